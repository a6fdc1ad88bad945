// Schema 4 → 5: keys are listed by account through the accountKeys index;
// a store written before it gets the index for every key it holds, revoked
// ones included, and lists each account's keys as before.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { Keys } from '../../../src/store/accounts-store.js';
import { openStores, SCHEMA_VERSION } from '../../../src/store/db.js';
import { LmdbBackend } from '../../../src/store/lmdb-backend.js';

it('indexes every stored key by its account at the upgrade', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-migration-account-keys-'));
  try {
    let s = openStores(dir);
    const key = (id: string, accountId: number, createdAt: string, revokedAt: string | null = null) =>
      ({ id, accountId, name: id, hash: `h-${id}`, prefix: 'sg_x', createdAt, lastUsedAt: null, revokedAt, admin: false });
    s.root.transactionSync(() => {
      s.meta.putSync('schema_version', 4);
      // As version 4 wrote them: keys and key ids, no account index.
      for (const k of [key('one', 1, '2026-01-01'), key('two', 2, '2026-01-02'), key('three', 1, '2026-01-03', '2026-02-01')]) {
        s.keys.putSync(k.hash, k);
        s.keyIds.putSync(k.id, k.hash);
      }
    });
    await s.root.close();

    s = openStores(dir);
    expect(s.meta.get('schema_version')).toBe(SCHEMA_VERSION);
    const keys = new Keys(s, new LmdbBackend(s));
    expect(keys.list(1).map((k) => k.id)).toEqual(['one', 'three']);
    expect(keys.list(2).map((k) => k.id)).toEqual(['two']);
    expect(keys.list(3)).toEqual([]);
    await s.root.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
