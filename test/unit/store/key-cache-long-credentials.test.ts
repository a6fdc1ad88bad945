// The per-thread memo of authenticated keys keeps only credentials of a
// key's length: the Authorization header allows any run of spaces after
// "Bearer", and each spelling of 50 KB was kept, 10,000 of them a thread
// (docs/reliability.md, finding 100). A long spelling still authenticates,
// each time afresh; an ordinary one is remembered as before.
import { beforeAll, expect, it } from 'vitest';
import { Accounts, KeyCache, Keys } from '../../../src/store/accounts-store.js';
import { FeedReader } from '../../../src/store/feed.js';
import { LmdbBackend } from '../../../src/store/lmdb-backend.js';
import { useLocalStores } from '../../helpers/local-stores.js';

const local = useLocalStores('sg-key-cache-');
let cache: KeyCache;
let token: string;
beforeAll(async () => {
  const backend = new LmdbBackend(local.stores);
  const keys = new Keys(local.stores, backend);
  const account = await new Accounts(local.stores, backend).create('a', 10);
  token = (await keys.create(account.id, 'k', false)).token;
  cache = new KeyCache(keys, new FeedReader(local.stores));
});

it('remembers an ordinary credential', () => {
  const credential = `Bearer ${token}`;
  expect(cache.cached(credential, Date.now())).toBeUndefined();
  expect(cache.authenticate(credential, token)).not.toBeNull();
  expect(cache.cached(credential, Date.now())).toBeDefined();
});

it('authenticates a long spelling without keeping it', () => {
  for (let n = 1; n <= 20; n++) {
    const credential = `Bearer${' '.repeat(1000 * n)}${token}`;
    expect(cache.authenticate(credential, token)).not.toBeNull();
    expect(cache.cached(credential, Date.now())).toBeUndefined();
  }
});
