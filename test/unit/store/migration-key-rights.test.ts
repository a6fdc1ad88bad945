// Schema 2 → 3: a key carries its own admin rights. Keys written before knew
// only their account's flag; each keeps exactly that.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openStores, SCHEMA_VERSION } from '../../../src/store/db.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-migrate-rights-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("gives every key written before the account's admin flag, and nothing more", async () => {
  let s = openStores(dir);
  const key = (id: string, accountId: number) => ({ id, accountId, name: id, hash: `h-${id}`, prefix: 'sg_x', createdAt: 'x', lastUsedAt: null, revokedAt: null });
  s.root.transactionSync(() => {
    s.meta.putSync('schema_version', 2);
    s.accounts.putSync(1, { id: 1, name: 'operator', admin: true, quota: 10, routesCreated: 0, createdAt: 'x' });
    s.accounts.putSync(2, { id: 2, name: 'customer', quota: 10, routesCreated: 0, createdAt: 'x' });
    // As version 2 wrote them: no admin field.
    s.keys.putSync('h-op', key('op', 1) as never);
    s.keys.putSync('h-cu', key('cu', 2) as never);
  });
  await s.root.close();

  s = openStores(dir);
  expect(s.meta.get('schema_version')).toBe(SCHEMA_VERSION);
  expect(s.keys.get('h-op')?.admin).toBe(true);
  expect(s.keys.get('h-cu')?.admin).toBe(false);
  await s.root.close();
});
