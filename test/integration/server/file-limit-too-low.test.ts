// An open-file limit too low to serve is refused at once, with the limit,
// the least that would do and what to change, and exit code 1. Started
// under such a limit the server used to fail wherever its descriptors ran
// out: in Node's module loader (an EMFILE stack trace) or inside lmdb-js
// opening the store, whose error path crashed the process (SIGSEGV at 48
// and 52 descriptors). A start at exactly the least limit the refusal names
// listens.
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { fileLimitWrapper, serveToExit, startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const dataDir = tempDataDir();
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const REFUSAL = /^splitguard: the open-file limit is too low: (\d+) \(hard limit (\d+)\); (\d+) server threads? needs? at least (\d+): raise it \(ulimit -n, or LimitNOFILE= under systemd\) or run fewer threads \(SPLITGUARD_THREADS\)$/m;

it('refuses a limit too low to serve, naming the least one, and starts at that one', async () => {
  let least = 0;
  for (const [n, threads] of [[32, 1], [48, 1], [52, 1], [64, 1], [150, 1], [300, 4]]) {
    const r = serveToExit(dataDir, { SPLITGUARD_THREADS: String(threads) }, fileLimitWrapper(n));
    expect(r.signal, `${n} descriptors, ${threads} threads:\n${r.stderr}`).toBeNull();
    expect(r.status, r.stderr).toBe(1);
    const m = REFUSAL.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect([Number(m![1]), Number(m![2]), Number(m![3])]).toEqual([n, n, threads]);
    expect(Number(m![4])).toBeGreaterThan(n);
    if (threads === 1) least = Number(m![4]);
  }
  server = await startServer({ dataDir, wrapper: fileLimitWrapper(least) });
  expect(server.logs().find((l) => l.event === 'connection_limits')).toMatchObject({ fileLimit: least });
  expect(await server.stop()).toBe(0);
});
