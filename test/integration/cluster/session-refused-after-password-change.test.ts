// A sign-in checks the password against the hash it read, then stores the
// session: a password change committed in between (the owner's, or
// `user password`) must not leave a session of the old password behind,
// nor a `user delete` a session of a user who is gone. The
// session is stored only if the hash it was checked against is still the
// user's, in the same transaction; and a change made against a hash that is
// no longer stored is refused ('changed'), not applied over the other one.
// On both back ends: the single node's LMDB, and PostgreSQL.
import { expect, it } from 'vitest';
import { Sessions } from '../../../src/console/sessions.js';
import { hashPassword } from '../../../src/store/accounts-store.js';
import type { Backend } from '../../../src/store/backend.js';
import type { Stores } from '../../../src/store/db.js';
import { LmdbBackend } from '../../../src/store/lmdb-backend.js';
import { SessionStore } from '../../../src/store/sessions-store.js';
import { useLocalStores } from '../../helpers/local-stores.js';
import { usePgBackend } from '../../helpers/pg-backend.js';

const fixture = usePgBackend('sg-session-race-');
const local = useLocalStores('sg-session-race-lmdb-');

async function race(backend: Backend, stores: Stores, email: string): Promise<void> {
  const [h0, h1, h2] = await Promise.all([hashPassword('the-old-password'), hashPassword('the-new-password'), hashPassword('a-third-password')]);
  const account = await backend.createAccount({ name: email, quota: 1, admin: false });
  expect(await backend.createUser({ email, passwordHash: h0, admin: false, accountId: account.id, createdAt: new Date().toISOString() })).toBe(true);
  const sessions = new Sessions(new SessionStore(stores, backend), 30);
  const before = await sessions.create({ email, passwordHash: h0 });

  // A sign-in has checked the old password against h0; the owner's change commits first.
  expect(await backend.setUserPassword(email, h1, h0)).toEqual({ sessionsEnded: 1 });
  await expect(sessions.create({ email, passwordHash: h0 })).rejects.toMatchObject({ code: 'login_failed' });
  // A second change checked against h0 as well: refused, h1 stays.
  expect(await backend.setUserPassword(email, h2, h0)).toBe('changed');
  // The new password's session is stored; an operator's reset (no expected hash) applies whatever is stored.
  await sessions.create({ email, passwordHash: h1 });
  expect(await backend.setUserPassword(email, h2, null)).toEqual({ sessionsEnded: 1 });
  expect(await backend.setUserPassword('nobody@example.com', h2, null)).toBeNull();
  // A sign-in checked against h2; the user is deleted first.
  await sessions.create({ email, passwordHash: h2 });
  expect(await backend.deleteUser(email)).toMatchObject({ sessionsEnded: 1 });
  await expect(sessions.create({ email, passwordHash: h2 })).rejects.toMatchObject({ code: 'login_failed' });
  expect(await backend.deleteUser(email)).toBeNull();
  expect(before.session.email).toBe(email);
}

it('single node (LMDB)', async () => {
  await race(new LmdbBackend(local.stores), local.stores, 'lmdb@example.com');
  // Nothing of the refused sign-in was stored.
  expect([...local.stores.sessions.getRange()].filter(({ value }) => value.email === 'lmdb@example.com')).toHaveLength(0);
});

it.skipIf(fixture.skip)('cluster (PostgreSQL)', async () => {
  await race(fixture.backend(), fixture.stores, 'pg@example.com');
  expect(await fixture.pg.query('SELECT hash FROM sessions WHERE email = $1', ['pg@example.com'])).toHaveLength(0);
});
