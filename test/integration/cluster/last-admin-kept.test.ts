// The store always keeps an admin login: deleting the last one is refused
// ('last_admin', nothing deleted), also when two deletions race for the last
// two admins (exactly one is taken). With no user left, the next start would
// bootstrap a new admin login and admin key. On both back ends: the single
// node's LMDB (one writer at a time) and PostgreSQL (two nodes' pools
// racing, twelve rounds, each with one admin kept and one added).
import { expect, it } from 'vitest';
import { NEVER_MATCHING_PASSWORD_HASH } from '../../../src/store/accounts-store.js';
import type { Backend } from '../../../src/store/backend.js';
import { LmdbBackend } from '../../../src/store/lmdb-backend.js';
import { useLocalStores } from '../../helpers/local-stores.js';
import { usePgBackend } from '../../helpers/pg-backend.js';

const fixture = usePgBackend('sg-last-admin-');
const local = useLocalStores('sg-last-admin-lmdb-');

async function addUser(backend: Backend, email: string, admin: boolean): Promise<void> {
  const account = await backend.createAccount({ name: email, quota: 1, admin: false });
  expect(await backend.createUser({ email, passwordHash: NEVER_MATCHING_PASSWORD_HASH, admin, accountId: account.id, createdAt: new Date().toISOString() })).toBe(true);
}

/**
 * The store holds one admin, `kept`; a second is added, and deletions of
 * both race on `one` and `other`: exactly one is taken. The admin left.
 */
async function race(one: Backend, other: Backend, kept: string, tag: string): Promise<string> {
  const fresh = `admin-${tag}@example.com`;
  await addUser(one, fresh, true);
  const outcomes = await Promise.all([one.deleteUser(kept), other.deleteUser(fresh)]);
  expect(outcomes.filter((o) => o === 'last_admin'), JSON.stringify(outcomes)).toHaveLength(1);
  expect(outcomes.filter((o) => typeof o === 'object' && o !== null)).toHaveLength(1);
  return outcomes[0] === 'last_admin' ? kept : fresh;
}

/** Rounds of racing deletions from a store with no user; then the last admin is refused, a user who is no admin deleted. */
async function rounds(one: Backend, other: Backend, tag: string, count: number): Promise<void> {
  let kept = `first-${tag}@example.com`;
  await addUser(one, kept, true);
  for (let i = 0; i < count; i++) kept = await race(one, other, kept, `${tag}${i}`);
  expect(await other.deleteUser(kept)).toBe('last_admin');
  await addUser(one, `user-${tag}@example.com`, false);
  expect(await one.deleteUser(`user-${tag}@example.com`)).toMatchObject({ sessionsEnded: 0 });
  expect(await one.deleteUser(`nobody-${tag}@example.com`)).toBeNull();
}

it('single node (LMDB)', async () => {
  const backend = new LmdbBackend(local.stores);
  await rounds(backend, backend, 'lmdb', 3);
  expect([...local.stores.users.getRange()].filter(({ value }) => value.admin)).toHaveLength(1);
});

it.skipIf(fixture.skip)('cluster (PostgreSQL), deletions racing from two nodes', async () => {
  await rounds(fixture.backend(), fixture.backend(), 'pg', 12);
  expect(await fixture.pg.query('SELECT email FROM users WHERE admin')).toHaveLength(1);
}, 60_000);
