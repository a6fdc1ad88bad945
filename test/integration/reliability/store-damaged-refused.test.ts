// A damaged store (<data dir>/db) is refused by every process that would
// open it, with the file, what is wrong with it and what to do, exit code 1:
// never handed to lmdb-js, which crashed on its failed open (SIGSEGV, or a
// heap-corruption abort: store/lmdb-file.ts). One damage per case, each made
// to a copy of a store a real server wrote; `serve` and `backup` must both
// refuse it.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { patchFile } from '../../helpers/faults.js';
import { serveToExit, startServer, tempDataDir } from '../../helpers/server.js';

const healthy = tempDataDir();
const scratch = mkdtempSync(path.join(os.tmpdir(), 'splitguard-damaged-'));
beforeAll(async () => {
  const server = await startServer({ dataDir: healthy });
  expect(await server.stop()).toBe(0);
});
afterAll(() => {
  rmSync(healthy, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

const DAMAGE: [string, 'data.mdb' | 'lock.mdb', (file: string) => void][] = [
  ['random bytes', 'data.mdb', (f) => writeFileSync(f, randomBytes(65536))],
  ['100 random bytes', 'data.mdb', (f) => writeFileSync(f, randomBytes(100))],
  ['zeros', 'data.mdb', (f) => writeFileSync(f, Buffer.alloc(8192))],
  ['another LMDB format', 'data.mdb', (f) => patchFile(f, 28, Buffer.from([1, 0]))],
  ['a damaged second meta page', 'data.mdb', (f) => patchFile(f, 4096, randomBytes(168))],
  ['cut inside the second meta page', 'data.mdb', (f) => truncateSync(f, 4200)],
  ['a directory for a lock file', 'lock.mdb', (f) => {
    rmSync(f);
    mkdirSync(f);
  }],
];

it.each(DAMAGE)('%s: serve and backup exit 1 naming %s, and nothing crashes', async (name, file, damage) => {
  const dataDir = path.join(scratch, name.replace(/\W+/g, '-'));
  cpSync(healthy, dataDir, { recursive: true });
  damage(path.join(dataDir, 'db', file));
  const named = path.join(dataDir, 'db', file);

  const served = serveToExit(dataDir);
  expect(served.signal, served.stderr).toBeNull();
  expect(served.status, served.stderr).toBe(1);
  expect(served.stderr).toContain(`splitguard: the storage in the data directory cannot be opened: ${named}: `);
  expect(served.stderr).toContain('; the store is damaged: restore a backup (splitguard restore --from FILE)');

  const backup = await runCli(['backup', '--out', path.join(dataDir, 'backup.mdb')], dataDir);
  expect(backup.code, backup.stderr).toBe(1);
  expect(backup.stderr).toContain(`splitguard: backup: ${named}: `);
  expect(backup.stderr).toContain('the store is damaged, there is nothing sound to back up');
});
