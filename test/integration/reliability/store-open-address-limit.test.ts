// A process whose address space is limited (`ulimit -v`) below the store's
// 64 GiB map still opens the store: lmdb-js ends the process with SIGSEGV
// when the map it is given cannot be made, so the map is sized to the limit
// (src/store/db.ts storeMapSize). Run as an operator would: the CLI under a
// 40 GB limit, on a new store and on one the unlimited server side made.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/ipdb-cache.js';
import { BIN } from '../../helpers/server.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sg-address-limit-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** `splitguard account create` under `ulimit -v <kib>` (none: unlimited). */
function createAccount(name: string, kib?: number) {
  const limit = kib === undefined ? '' : `ulimit -v ${kib} && `;
  return spawnSync('bash', ['-c', `${limit}exec "$0" "$1" account create --name "$2"`, process.execPath, BIN, name], {
    cwd: ROOT,
    env: { ...process.env, SPLITGUARD_DATA_DIR: dataDir },
    encoding: 'utf8',
  });
}

describe('the store under a limited address space', () => {
  it('opens a new store and one made without a limit, under a limit below the whole map', () => {
    const limited = createAccount('limited', 40_000_000);
    expect(limited.signal, limited.stderr).toBeNull();
    expect(limited.status, limited.stderr).toBe(0);
    expect(JSON.parse(limited.stdout)).toMatchObject({ account_id: 1, name: 'limited' });

    const unlimited = createAccount('unlimited');
    expect(unlimited.status, unlimited.stderr).toBe(0);
    const again = createAccount('limited again', 40_000_000);
    expect(again.signal, again.stderr).toBeNull();
    expect(JSON.parse(again.stdout)).toMatchObject({ account_id: 3 });
  });
});
