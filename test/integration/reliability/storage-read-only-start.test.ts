// A data directory that cannot be written at start (a read-only mount): the
// server does not start half-way. It exits 1 at once with one line naming
// the directory and the cause (EROFS), both for a fresh directory and for one
// a server used before; the CLI says the same. Nothing stored is damaged:
// made writable again, the directory serves what it held.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { cannotMount, mountTmpfs, remountReadOnly, remountReadWrite, unmount } from '../../helpers/faults.js';
import { api, createRoute, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, tempDataDir } from '../../helpers/server.js';

const skip = cannotMount();
if (skip) console.warn(`skipped: ${skip}`);

describe.skipIf(skip !== null)('a read-only data directory at start', () => {
  const mnt = mkdtempSync(path.join(os.tmpdir(), 'sg-ro-start-'));
  beforeAll(() => mountTmpfs(mnt, 96));
  afterAll(() => {
    unmount(mnt);
    rmSync(mnt, { recursive: true, force: true });
  });

  const readOnlyMessage = (dir: string) => new RegExp(`^splitguard: the storage in the data directory cannot be opened: ${dir}.*EROFS: read-only file system`, 'm');

  it('stops a start on a fresh read-only directory with a message naming it', async () => {
    remountReadOnly(mnt);
    const fresh = path.join(mnt, 'data');
    const failed = startServer({ dataDir: fresh, timeoutMs: 20_000 });
    await expect(failed).rejects.toThrow(/exited \(code 1\) before listening/);
    await failed.catch((err: Error) => expect(err.message).toMatch(readOnlyMessage(fresh)));
    await failed.catch((err: Error) => expect(err.message).not.toMatch(/ENOENT|\n\s+at /));
  });

  it('stops a start on a used directory mounted read-only, and the data survives', async () => {
    unmount(mnt);
    mountTmpfs(mnt, 96);
    const dataDir = path.join(mnt, 'data');
    const seed = tempDataDir();
    cpSync(seed, dataDir, { recursive: true });
    rmSync(seed, { recursive: true, force: true });

    const first = await startServer({ dataDir, env: NO_RATE_LIMIT });
    const route = await createRoute(first, { name: 'kept while read-only' });
    expect(await first.stop()).toBe(0);

    remountReadOnly(mnt);
    const failed = startServer({ dataDir, env: NO_RATE_LIMIT, timeoutMs: 20_000 });
    await expect(failed).rejects.toThrow(readOnlyMessage(dataDir));
    const cli = await runCli(['account', 'create', '--name', 'refused'], dataDir);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(readOnlyMessage(dataDir));

    remountReadWrite(mnt);
    const again = await startServer({ dataDir, env: NO_RATE_LIMIT });
    try {
      const r = await api(again, 'GET', `/v1/routes/${route.id}`);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ name: 'kept while read-only', code: route.code });
    } finally {
      await again.close();
    }
  });
});
