// Keys.list reads one account's keys through the accountKeys index, never the
// whole keys database (whose size grows with every other account), and the
// index follows every write of keys: creation, revocation, reset, and the
// removal of revoked keys past the newest 100.
import { beforeAll, expect, it } from 'vitest';
import { Accounts, Keys } from '../../../src/store/accounts-store.js';
import { accountKeyEntries } from '../../../src/store/db.js';
import { LmdbBackend } from '../../../src/store/lmdb-backend.js';
import { useLocalStores } from '../../helpers/local-stores.js';

const local = useLocalStores('sg-keys-by-account-');
let storage: { stores: typeof local.stores; accounts: Accounts; keys: Keys };
beforeAll(() => {
  const backend = new LmdbBackend(local.stores);
  storage = { stores: local.stores, accounts: new Accounts(local.stores, backend), keys: new Keys(local.stores, backend) };
});

const ids = (accountId: number) => storage.keys.list(accountId).map((k) => k.id);

it("lists an account's keys without reading any other account's", async () => {
  const a = await storage.accounts.create('a', 10);
  const b = await storage.accounts.create('b', 10);
  const made = [];
  for (let i = 0; i < 3; i++) made.push((await storage.keys.create(a.id, `a${i}`, false)).key);
  for (let i = 0; i < 50; i++) await storage.keys.create(b.id, `b${i}`, false);

  // Reading the whole keys database is what listing must not do.
  const keys = storage.stores.keys;
  const getRange = keys.getRange;
  keys.getRange = () => {
    throw new Error('Keys.list read every key');
  };
  try {
    expect(ids(a.id).sort()).toEqual(made.map((k) => k.id).sort());
    expect(ids(b.id)).toHaveLength(50);
  } finally {
    keys.getRange = getRange;
  }
});

it('follows revocation, reset and the removal of old revoked keys', async () => {
  const c = await storage.accounts.create('c', 10);
  const first = (await storage.keys.create(c.id, 'first', false)).key;
  const revoked = await storage.keys.revoke(first.id);
  expect(storage.keys.list(c.id).map((k) => [k.id, k.revokedAt])).toEqual([[first.id, revoked!.revokedAt]]);

  const second = (await storage.keys.create(c.id, 'second', false)).key;
  const reset = await storage.keys.reset(second.id, false);
  // Listed by creation time; keys made within one millisecond in either order.
  expect(ids(c.id).sort()).toEqual([first.id, second.id, reset!.key.id].sort());
  expect(storage.keys.list(c.id).filter((k) => !k.revokedAt).map((k) => k.id)).toEqual([reset!.key.id]);

  // 101 more revoked: the oldest revoked ones go for good, from the list too.
  for (let i = 0; i < 101; i++) await storage.keys.revoke((await storage.keys.create(c.id, `r${i}`, false)).key.id);
  const listed = storage.keys.list(c.id);
  expect(listed.filter((k) => k.revokedAt)).toHaveLength(100);
  expect(listed.map((k) => k.id)).not.toContain(first.id);
  expect(storage.keys.byId(first.id)).toBeUndefined();
  expect([...storage.stores.meta.getRange(accountKeyEntries(c.id))]).toHaveLength(listed.length);
});
