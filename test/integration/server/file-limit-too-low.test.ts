// An open-file limit too low to serve is refused at once, with the limit,
// the least that would do and what to change, and exit code 1. Started
// under such a limit the server used to fail wherever its descriptors ran
// out: in Node's module loader (an EMFILE stack trace) or inside lmdb-js
// opening the store, whose error path crashed the process (SIGSEGV at 48
// and 52 descriptors). A start at exactly the least limit the refusal names
// listens.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { BIN, childEnv, startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const prlimit = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p));
/** The command that runs `argv` under an open-file limit of `n` (soft and hard). */
const limited = (n: number): string[] => (prlimit ? [prlimit, `--nofile=${n}:${n}`] : ['sh', '-c', `ulimit -n ${n} && exec "$0" "$@"`]);

const dataDir = tempDataDir();
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs `splitguard serve` under the limit; it must end by itself. */
function serveUnder(n: number, threads: number) {
  const [command, ...args] = [...limited(n), process.execPath, BIN, 'serve'];
  const env = childEnv(dataDir, { PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: String(threads) });
  return spawnSync(command, args, { env, encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL' });
}

const REFUSAL = /^splitguard: the open-file limit is too low: (\d+) \(hard limit (\d+)\); (\d+) server threads? needs? at least (\d+): raise it \(ulimit -n, or LimitNOFILE= under systemd\) or run fewer threads \(SPLITGUARD_THREADS\)$/m;

it('refuses a limit too low to serve, naming the least one, and starts at that one', async () => {
  let least = 0;
  for (const [n, threads] of [[32, 1], [48, 1], [52, 1], [64, 1], [150, 1], [300, 4]]) {
    const r = serveUnder(n, threads);
    expect(r.signal, `${n} descriptors, ${threads} threads:\n${r.stderr}`).toBeNull();
    expect(r.status, r.stderr).toBe(1);
    const m = REFUSAL.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect([Number(m![1]), Number(m![2]), Number(m![3])]).toEqual([n, n, threads]);
    expect(Number(m![4])).toBeGreaterThan(n);
    if (threads === 1) least = Number(m![4]);
  }
  server = await startServer({ dataDir, wrapper: limited(least) });
  expect(server.logs().find((l) => l.event === 'connection_limits')).toMatchObject({ fileLimit: least });
  expect(await server.stop()).toBe(0);
});
