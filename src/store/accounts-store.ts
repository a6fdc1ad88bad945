// Accounts, API keys and console users. Keys are random 32-byte secrets shown
// once; only their SHA-256 is stored, so a key is found by hashing what the
// client sends and reading one record.
import { AppError } from '../errors.js';
import { createHash, randomBytes, randomUUID, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { type Account, type ApiKey, nextId, type Stores, type User } from './db.js';

export const DEFAULT_QUOTA = 1000;
const KEY_PREFIX = 'sg_';

export function hashKey(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function newToken(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function createAccount(stores: Stores, name: string, quota = DEFAULT_QUOTA, admin = false): Account {
  return authTransactionSync(stores, () => {
    const account: Account = {
      id: nextId(stores, 'account'),
      name,
      admin,
      quota,
      routesCreated: 0,
      createdAt: new Date().toISOString(),
    };
    putAccount(stores, account);
    return account;
  });
}

export function getAccount(stores: Stores, id: number): Account | undefined {
  return stores.accounts.get(id);
}

export function listAccounts(stores: Stores): Account[] {
  return [...stores.accounts.getRange().map(({ value }) => value)];
}

/**
 * Creates a key; the returned token is the only copy of the secret. `admin`
 * is the rights of whoever makes it (a console user's own flag; for the CLI,
 * run by the operator, the account's), never more.
 */
export function createKey(stores: Stores, accountId: number, name: string, admin: boolean): { token: string; key: ApiKey } {
  const token = newToken();
  const key: ApiKey = {
    id: `key_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    accountId,
    name,
    hash: hashKey(token),
    prefix: token.slice(0, KEY_PREFIX.length + 6),
    createdAt: new Date().toISOString(),
    lastUsedAt: null,
    revokedAt: null,
    admin,
  };
  // No memo holds the new key, but a busy thread's read snapshot may predate
  // it: the signal makes every thread renew its snapshot, so the key works
  // on any thread from the moment it is handed out.
  authTransactionSync(stores, () => {
    stores.keys.putSync(key.hash, key);
    stores.keyIds.putSync(key.id, key.hash);
  });
  return { token, key };
}

export function listKeys(stores: Stores, accountId: number): ApiKey[] {
  const out: ApiKey[] = [];
  for (const { value } of stores.keys.getRange()) if (value.accountId === accountId) out.push(value);
  return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

export function getKeyById(stores: Stores, id: string): ApiKey | undefined {
  const hash = stores.keyIds.get(id);
  return hash === undefined ? undefined : stores.keys.get(hash);
}

/**
 * The auth generation: bumped in the same transaction as every change to a
 * key's validity or to an account record. KeyCache reads it at most once a
 * millisecond per thread: that is how changes made by another process (the
 * CLI) reach the server. Changes made in the server also move the shared
 * auth signal once committed (authTransactionSync), which KeyCache checks on
 * every request.
 */
export const AUTH_GENERATION = 'auth_generation';

export function authGeneration(stores: Stores): number {
  return (stores.meta.get(AUTH_GENERATION) as number | undefined) ?? 0;
}

// Both are called inside write transactions (sync or async), where put()
// writes into the transaction at once.
function bumpAuthGeneration(stores: Stores): void {
  stores.meta.put(AUTH_GENERATION, authGeneration(stores) + 1);
}

/**
 * A write transaction that changes keys or accounts. Once it has committed,
 * the server's threads are told through the auth signal, so their key memos
 * and read snapshots are renewed on their next request.
 */
export function authTransactionSync<T>(stores: Stores, change: () => T): T {
  const out = stores.root.transactionSync(change);
  moveAuthSignal(stores);
  return out;
}

/** authTransactionSync for a batched asynchronous transaction: the signal moves once it has committed. */
export async function authTransaction<T>(stores: Stores, change: () => T): Promise<T> {
  const out = await stores.root.transaction(change);
  moveAuthSignal(stores);
  return out;
}

function moveAuthSignal(stores: Stores): void {
  if (stores.authSignal) Atomics.add(stores.authSignal, 0, 1);
}

/** Writes an account record; call inside an auth transaction. */
export function putAccount(stores: Stores, account: Account): void {
  stores.accounts.put(account.id, account);
  bumpAuthGeneration(stores);
}

/** Revokes one key at once: the next request with it, on any thread, is refused. */
export function revokeKey(stores: Stores, id: string): ApiKey | undefined {
  return authTransactionSync(stores, () => {
    const key = getKeyById(stores, id);
    if (!key || key.revokedAt) return key;
    const revoked = { ...key, revokedAt: new Date().toISOString() };
    stores.keys.putSync(key.hash, revoked);
    bumpAuthGeneration(stores);
    return revoked;
  });
}

/** Replaces one key by a new secret under the same name and rights; the old one stops working at once. */
export function resetKey(stores: Stores, id: string): { token: string; key: ApiKey } | undefined {
  const old = getKeyById(stores, id);
  if (!old || old.revokedAt) return undefined;
  revokeKey(stores, id);
  return createKey(stores, old.accountId, old.name, old.admin);
}

/** Revokes every live key of an account and issues one new key with the account's rights (CLI `key reset`). */
export function resetAccountKeys(stores: Stores, accountId: number): { token: string; key: ApiKey } {
  const live = listKeys(stores, accountId).filter((k) => !k.revokedAt);
  for (const k of live) revokeKey(stores, k.id);
  return createKey(stores, accountId, live[0]?.name ?? 'default', Boolean(stores.accounts.get(accountId)?.admin));
}

export interface Authenticated {
  key: ApiKey;
  account: Account;
}

/** The live key and its account for a presented token, or null. */
export function authenticate(stores: Stores, token: string): Authenticated | null {
  const key = stores.keys.get(hashKey(token));
  if (!key || key.revokedAt) return null;
  const account = stores.accounts.get(key.accountId);
  return account ? { key, account } : null;
}

/**
 * Per-thread memo of authenticated tokens. Hashing a key and reading its
 * record costs several microseconds; the memo costs one Atomics load of the
 * auth signal per request, and is emptied whenever the signal or the auth
 * generation moves. Only keys that authenticated are kept (at most MAX), so
 * bad tokens cannot grow it.
 *
 * Freshness: a change committed in the server (API, console) moves the
 * signal before its answer is sent, and the next request on every thread
 * renews its LMDB read snapshot and reads afresh. A change from another
 * process (the CLI) is seen through the generation, read at most once per
 * millisecond; lmdb-js renews a busy thread's snapshot on a 1 ms timer, so
 * such a change is in force within about 2 ms (docs/api.md).
 */
export class KeyCache {
  static readonly MAX = 10_000;
  readonly #stores: Stores;
  readonly #keys = new Map<string, Authenticated>();
  #generation = -1;
  #signal = -1;
  #checkedAt = -1;

  constructor(stores: Stores) {
    this.#stores = stores;
  }

  /**
   * The memo's answer for a credential (the API's whole Authorization
   * header), or undefined when it has none; call first on every request.
   */
  cached(credential: string, nowMs: number): Authenticated | undefined {
    const signal = this.#stores.authSignal ? Atomics.load(this.#stores.authSignal, 0) : 0;
    if (signal !== this.#signal || nowMs !== this.#checkedAt) {
      if (signal !== this.#signal) {
        // Committed before the signal moved, but this thread's snapshot may
        // predate the commit.
        this.#stores.root.resetReadTxn();
        this.#signal = signal;
        this.#keys.clear();
      }
      this.#checkedAt = nowMs;
      const generation = authGeneration(this.#stores);
      if (generation !== this.#generation) {
        this.#keys.clear();
        this.#generation = generation;
      }
    }
    return this.#keys.get(credential);
  }

  /** Authenticates the token carried by a credential cached() did not know, and remembers a success. */
  authenticate(credential: string, token: string): Authenticated | null {
    const auth = authenticate(this.#stores, token);
    if (auth) {
      if (this.#keys.size >= KeyCache.MAX) this.#keys.clear();
      this.#keys.set(credential, auth);
    }
    return auth;
  }
}

/** Records last-used times gathered in memory (one write for many requests). */
export async function recordKeyUse(stores: Stores, used: Map<string, string>): Promise<void> {
  if (used.size === 0) return;
  const batch = [...used];
  used.clear();
  await stores.root.transaction(() => {
    for (const [hash, at] of batch) {
      const key = stores.keys.get(hash);
      if (key && (!key.lastUsedAt || key.lastUsedAt < at)) stores.keys.put(hash, { ...key, lastUsedAt: at });
    }
  });
}

// Passwords: scrypt with N = 2^15, r = 8, p = 1 (about 32 MiB and 50-100 ms).
const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/**
 * Whether `password` matches a stored scrypt$N$r$p$salt$hash, computed on
 * libuv's thread pool (console/password-work.ts bounds how many at once).
 * A malformed stored hash never matches.
 */
export function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return Promise.resolve(false);
  const expected = Buffer.from(hash, 'base64');
  const options = { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem };
  return new Promise((resolve, reject) => {
    scrypt(password, Buffer.from(salt, 'base64'), expected.length, options, (err, got) => {
      if (err) reject(err);
      else resolve(timingSafeEqual(expected, got));
    });
  });
}

/** A stored hash in the current format that no password matches (all-zero salt and hash). */
export const NEVER_MATCHING_PASSWORD_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(32).toString('base64')}`;

export function createUser(stores: Stores, email: string, password: string, admin: boolean, accountId: number): User {
  const user: User = {
    email: email.toLowerCase(),
    passwordHash: hashPassword(password),
    admin,
    accountId,
    createdAt: new Date().toISOString(),
  };
  const created = stores.root.transactionSync(() => {
    if (stores.users.get(user.email)) return false;
    stores.users.putSync(user.email, user);
    return true;
  });
  if (!created) throw new AppError('user_exists', user.email, 'email');
  return user;
}
