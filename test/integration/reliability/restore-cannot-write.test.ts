// `splitguard restore` where it cannot write: a data directory under a
// regular file (ENOTDIR), a full file system (ENOSPC while copying the
// backup in) and a read-only one (EROFS). Each is exit 1 and one line naming
// the step that failed and the cause; the store already there is untouched
// and no staging copy is left. Before, each was "unexpected failure" and a
// stack trace, and a failed copy left db.restore-<pid>/ behind.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { cannotMount, fillFileSystem, mountTmpfs, remountReadOnly, unmount } from '../../helpers/faults.js';

const skip = cannotMount();
if (skip) console.warn(`skipped: ${skip}`);

const scratch = mkdtempSync(path.join(os.tmpdir(), 'splitguard-restore-cannot-write-'));
const backup = path.join(scratch, 'backup.mdb');
beforeAll(async () => {
  const source = path.join(scratch, 'source');
  await runCliJson(['account', 'create', '--name', 'in the backup'], source);
  await runCliJson(['backup', '--out', backup], source);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

it('names the data directory when it lies under a regular file', async () => {
  writeFileSync(path.join(scratch, 'a-file'), 'x');
  const dataDir = path.join(scratch, 'a-file', 'data');
  const r = await runCli(['restore', '--from', backup], dataDir);
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toBe(`splitguard: restore: creating the data directory ${dataDir} failed (ENOTDIR: not a directory)\n`);
});

describe.skipIf(skip !== null)('a data directory on a full, then read-only, file system', () => {
  const mnt = path.join(scratch, 'mnt');
  const dataDir = path.join(mnt, 'data');
  const store = path.join(dataDir, 'db', 'data.mdb');
  let before = '';
  beforeAll(async () => {
    mkdirSync(mnt);
    mountTmpfs(mnt, 1);
    await runCliJson(['account', 'create', '--name', 'in the store'], dataDir);
    before = digest(store);
    fillFileSystem(path.join(mnt, 'filler'));
  });
  afterAll(() => unmount(mnt));

  it('refuses on a full file system, naming the copy, and keeps the store', async () => {
    const r = await runCli(['restore', '--from', backup], dataDir);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^splitguard: restore: copying the backup into ${dataDir}/db\\.restore-\\d+ failed \\(ENOSPC: no space left on device\\)\\n$`));
    expect(readdirSync(dataDir)).toEqual(['db']);
    expect(digest(store)).toBe(before);
  });

  it('refuses on a read-only file system, naming the data directory, and keeps the store', async () => {
    remountReadOnly(mnt);
    const r = await runCli(['restore', '--from', backup], dataDir);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe(`splitguard: restore: writing in the data directory ${dataDir} failed (EROFS: read-only file system)\n`);
    expect(readdirSync(dataDir)).toEqual(['db']);
    expect(digest(store)).toBe(before);
  });
});
