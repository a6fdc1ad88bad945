// Console sessions with an injected clock: the idle limit, the 12-hour
// absolute limit however busy, lookups by the cookie value only (the store
// holds its hash), deletion (a request that touches the session while it is
// signed out does not bring it back), and the Cookie header parser.
import { beforeAll, expect, it } from 'vitest';
import { storedUser, useLocalStores } from '../helpers/local-stores.js';
import { ABSOLUTE_MS, csrfMatches, readCookie, sessionCookies, sessionIdsOf, Sessions } from '../../src/console/sessions.js';
import { LmdbBackend } from '../../src/store/lmdb-backend.js';
import { SessionStore } from '../../src/store/sessions-store.js';

const local = useLocalStores('splitguard-sessions-');
let store: SessionStore;
beforeAll(() => {
  store = new SessionStore(local.stores, new LmdbBackend(local.stores));
});

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;

it('ends a session after the idle time without requests', async () => {
  const sessions = new Sessions(store, 30);
  const { id } = await sessions.create(storedUser(local.stores, 'a@example.com'), T0);
  const live = await sessions.find(id, T0 + 29 * MIN);
  expect(live?.session.email).toBe('a@example.com');
  // The request at +29 min moved the idle deadline.
  expect(await sessions.find(id, T0 + 58 * MIN)).not.toBeNull();
  expect(await sessions.find(id, T0 + 58 * MIN + 30 * MIN)).toBeNull();
  // Expired means deleted, not just refused once.
  expect(local.stores.sessions.get(live!.key)).toBeUndefined();
});

it('ends a session 12 hours after sign-in however busy it is', async () => {
  const sessions = new Sessions(store, 30);
  const { id } = await sessions.create(storedUser(local.stores, 'b@example.com'), T0);
  let t = T0;
  for (; t < T0 + ABSOLUTE_MS - 10 * MIN; t += 10 * MIN) expect(await sessions.find(id, t)).not.toBeNull();
  expect(await sessions.find(id, T0 + ABSOLUTE_MS)).toBeNull();
});

it('does not bring back a session signed out while a request touches it', async () => {
  const sessions = new Sessions(store, 30);
  const { id, session } = await sessions.create(storedUser(local.stores, 'c@example.com'), T0);
  const key = (await sessions.find(id, T0))!.key;
  // The sign-out's write is queued first; the request, past the touch
  // interval, reads the session before that write lands and touches it after.
  const signOut = sessions.delete(key);
  const found = await sessions.find(id, T0 + 10 * MIN);
  await signOut;
  expect(found).toBeNull();
  expect(local.stores.sessions.get(key)).toBeUndefined();
  expect(await sessions.find(id, T0 + 10 * MIN)).toBeNull();
  expect(session.email).toBe('c@example.com');
});

it('stores only a hash of the id and finds nothing for a wrong or malformed id', async () => {
  const sessions = new Sessions(store, 30);
  const { id, session } = await sessions.create(storedUser(local.stores, 'c@example.com'), T0);
  expect(local.stores.sessions.get(id)).toBeUndefined();
  expect([...local.stores.sessions.getKeys()].every((k) => /^[0-9a-f]{64}$/.test(k))).toBe(true);
  expect(await sessions.find(`${id.slice(0, -1)}${id.endsWith('A') ? 'B' : 'A'}`, T0)).toBeNull();
  expect(await sessions.find('short', T0)).toBeNull();
  const live = (await sessions.find(id, T0))!;
  expect(csrfMatches(live.session, session.csrf)).toBe(true);
  expect(csrfMatches(live.session, `${session.csrf}x`)).toBe(false);
  await sessions.delete(live.key);
  expect(await sessions.find(id, T0)).toBeNull();
});

it('reads the session cookies among others and writes them with their flags', () => {
  expect(readCookie('sg_vid=abc; sg_session=XYZ_-1; other=2', 'sg_session')).toBe('XYZ_-1');
  expect(readCookie('sg_sessionx=1', 'sg_session')).toBe('');
  expect(readCookie('', 'sg_session')).toBe('');
  // Only spaces and tabs surround a name: U+00A0 and U+FEFF are part of it.
  expect(readCookie('\u00a0sg_session=1; \ufeffsg_session=2;\tsg_session=3', 'sg_session')).toBe('3');
  const id = 'A'.repeat(22) + 'b'.repeat(21);
  expect(sessionCookies(id)).toEqual([
    `__Host-sg_session=${'A'.repeat(22)}; Path=/; Max-Age=43200; HttpOnly; Secure; SameSite=Strict`,
    `__Host-sg_session_b=${'b'.repeat(21)}; Path=/; Max-Age=43200; HttpOnly; Secure; SameSite=Strict`,
  ]);
  const header = sessionCookies(id).map((c) => c.split(';')[0]).join('; ');
  expect(sessionIdsOf(`sg_vid=x; ${header}`)).toEqual([id]);
  // One half is no session.
  expect(sessionIdsOf(header.split('; ')[0]!)).toEqual([]);
  expect(sessionIdsOf(header.split('; ')[1]!)).toEqual([]);
  // A second first half (a sibling's, whose prefix uWS dropped): both pairings, at most 3 of each name.
  const other = 'C'.repeat(22);
  expect(sessionIdsOf(`__Host-sg_session=${other}; ${header}`)).toEqual([other + 'b'.repeat(21), id]);
  expect(sessionIdsOf(`${'__Host-sg_session=x; '.repeat(9)}${header}`)).toEqual([]);
});
