// Accounts, API keys and console users. Keys are random 32-byte secrets shown
// once; only their SHA-256 is stored, so a key is found by hashing what the
// client sends and reading one record. Reads are synchronous, from the local
// store; writes go to the back end (backend.ts).
import { AppError } from '../errors.js';
import { createHash, randomBytes, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';
import type { Backend } from './backend.js';
import { type Account, accountKeyEntries, type ApiKey, liveKeyCount, type Stores, type User } from './db.js';
import type { FeedReader } from './feed.js';

/** A key's public id, as create() makes it. */
const KEY_ID = /^key_[0-9a-f]{16}$/;

export const DEFAULT_QUOTA = 1000;
/** The largest quota an account may have, set by `account create` or an admin's change. */
export const MAX_QUOTA = 1_000_000_000;
const KEY_PREFIX = 'sg_';

function hashKey(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function newToken(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** Accounts: read from the local store, written through the back end. */
export class Accounts {
  readonly #stores: Stores;
  readonly #backend: Backend;

  constructor(stores: Stores, backend: Backend) {
    this.#stores = stores;
    this.#backend = backend;
  }

  create(name: string, quota = DEFAULT_QUOTA, admin = false): Promise<Account> {
    return this.#backend.createAccount({ name, quota, admin });
  }

  get(id: number): Account | undefined {
    return this.#stores.accounts.get(id);
  }

  list(): Account[] {
    return [...this.#stores.accounts.getRange().map(({ value }) => value)];
  }

  /** Renames an account or sets its quota; undefined when it does not exist. */
  update(id: number, change: Partial<Pick<Account, 'name' | 'quota'>>): Promise<Account | undefined> {
    return this.#backend.updateAccount(id, change);
  }
}

/** The live key and its account for a presented token. */
export interface Authenticated {
  key: ApiKey;
  account: Account;
}

/** A new key record and its token, the only copy of the secret; stored by the caller. */
function newKey(accountId: number, name: string, admin: boolean): { token: string; key: ApiKey } {
  const token = newToken();
  const key: ApiKey = {
    id: `key_${randomUUID().replaceAll('-', '').slice(0, 16)}`, // KEY_ID
    accountId,
    name,
    hash: hashKey(token),
    prefix: token.slice(0, KEY_PREFIX.length + 6),
    createdAt: new Date().toISOString(),
    lastUsedAt: null,
    revokedAt: null,
    admin,
  };
  return { token, key };
}

/** Live keys one account may hold: a new one past it is refused. */
const LIVE_KEY_LIMIT = 100;
/** Revoked keys an account keeps listed; older ones are removed for good as others are revoked. */
const KEPT_REVOKED = 100;

/**
 * API keys. A change to a key's validity (creation, revocation) is in force
 * on every thread once its promise resolves: the change feed tells every
 * KeyCache before the caller answers.
 */
export class Keys {
  readonly #stores: Stores;
  readonly #backend: Backend;

  constructor(stores: Stores, backend: Backend) {
    this.#stores = stores;
    this.#backend = backend;
  }

  /**
   * Creates a key; the returned token is the only copy of the secret.
   * `admin` is the rights of whoever makes it (a console user's own flag;
   * for the CLI, run by the operator, the account's), never more.
   */
  async create(accountId: number, name: string, admin: boolean): Promise<{ token: string; key: ApiKey }> {
    const full = () => new AppError('invalid_parameter', `the account has ${LIVE_KEY_LIMIT} live keys, the most it may hold; revoke one first`);
    // Refused here at once when the replica already shows the limit; counted
    // again in the write's transaction, where keys created at once queue:
    // checked here only, 500 created at once in a cluster all passed.
    if (liveKeyCount(this.#stores, accountId) >= LIVE_KEY_LIMIT) throw full();
    const made = newKey(accountId, name, admin);
    if (!(await this.#backend.createKey(made.key, LIVE_KEY_LIMIT))) throw full();
    return made;
  }

  list(accountId: number): ApiKey[] {
    const out: ApiKey[] = [];
    for (const { value: hash } of this.#stores.meta.getRange(accountKeyEntries(accountId))) {
      const key = this.#stores.keys.get(hash as string);
      if (key) out.push(key);
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** The key with this public id; undefined for any other string (an LMDB key is at most 1,978 bytes: a longer id must not reach it). */
  byId(id: string): ApiKey | undefined {
    if (!KEY_ID.test(id)) return undefined;
    const hash = this.#stores.keyIds.get(id);
    return hash === undefined ? undefined : this.#stores.keys.get(hash);
  }

  /** Revokes one key at once: the next request with it, on any thread, is refused. */
  async revoke(id: string): Promise<ApiKey | undefined> {
    const key = await this.#backend.revokeKey(id, new Date().toISOString());
    if (key) await this.#forgetOldRevoked(key.accountId);
    return key;
  }

  /** Removes the account's revoked keys beyond the newest KEPT_REVOKED: key churn would otherwise grow the store for good. */
  async #forgetOldRevoked(accountId: number): Promise<void> {
    const revoked = this.list(accountId).filter((k) => k.revokedAt).sort((a, b) => b.revokedAt!.localeCompare(a.revokedAt!));
    if (revoked.length > KEPT_REVOKED) await this.#backend.deleteKeys(revoked.slice(KEPT_REVOKED));
  }

  /**
   * Replaces one key by a new secret under the same name and rights, but no
   * more than `maxAdmin` allows (the rights of whoever resets it); the old
   * one stops working at once.
   */
  async reset(id: string, maxAdmin: boolean): Promise<{ token: string; key: ApiKey } | undefined> {
    const old = this.byId(id);
    if (!old || old.revokedAt) return undefined;
    const made = newKey(old.accountId, old.name, old.admin && maxAdmin);
    if (!(await this.#backend.replaceKey(id, new Date().toISOString(), made.key))) return undefined;
    await this.#forgetOldRevoked(old.accountId);
    return made;
  }

  /** Revokes every live key of an account and issues one new key with the account's rights (CLI `key reset`). */
  async resetAccount(accountId: number): Promise<{ token: string; key: ApiKey }> {
    const live = this.list(accountId).filter((k) => !k.revokedAt);
    for (const k of live) await this.revoke(k.id);
    return this.create(accountId, live[0]?.name ?? 'default', Boolean(this.#stores.accounts.get(accountId)?.admin));
  }

  /** The live key and its account for a presented token, or null. */
  authenticate(token: string): Authenticated | null {
    const key = this.#stores.keys.get(hashKey(token));
    if (!key || key.revokedAt) return null;
    const account = this.#stores.accounts.get(key.accountId);
    return account ? { key, account } : null;
  }

  /** Records last-used times gathered in memory (one write for many requests). */
  recordUse(used: ReadonlyMap<string, string>): Promise<void> {
    return used.size === 0 ? Promise.resolve() : this.#backend.recordKeyUse(used);
  }
}

/**
 * Per-thread memo of authenticated tokens. Hashing a key and reading its
 * record costs several microseconds; the memo costs a look at the change
 * feed per request, and is emptied whenever a key or an account changes.
 * Only keys that authenticated are kept (at most MAX), so bad tokens cannot
 * grow it.
 *
 * Freshness: a change committed in the server (API, console, replication)
 * moves the feed signal before its answer is sent, so every thread empties
 * its memo on its next request. A change from another process (the CLI) is
 * seen through the stored feed sequence, read at most once per millisecond,
 * within about 2 ms (docs/api.md).
 */
export class KeyCache {
  static readonly MAX = 10_000;
  /**
   * Credentials longer than this are authenticated every time and never
   * kept: a key's header is about 60 characters, and the header's form
   * allows any run of spaces after "Bearer", so 10,000 spellings of 50 KB
   * each held 500 MB a thread (docs/reliability.md, finding 100).
   */
  static readonly MAX_CREDENTIAL = 256;
  readonly #keys: Keys;
  readonly #feed: FeedReader;
  readonly #memo = new Map<string, Authenticated>();

  constructor(keys: Keys, feed: FeedReader) {
    this.#keys = keys;
    this.#feed = feed;
    feed.on(['key', 'account'], () => this.#memo.clear());
  }

  /**
   * The memo's answer for a credential (the API's whole Authorization
   * header), or undefined when it has none; call first on every request.
   */
  cached(credential: string, nowMs: number): Authenticated | undefined {
    this.#feed.poll(nowMs);
    return this.#memo.get(credential);
  }

  /** Authenticates the token carried by a credential cached() did not know, and remembers a success. */
  authenticate(credential: string, token: string): Authenticated | null {
    const auth = this.#keys.authenticate(token);
    if (auth && credential.length <= KeyCache.MAX_CREDENTIAL) {
      if (this.#memo.size >= KeyCache.MAX) this.#memo.clear();
      this.#memo.set(credential, auth);
    }
    return auth;
  }
}

// Passwords: scrypt with N = 2^15, r = 8, p = 1 (about 32 MiB and 50-100 ms).
/**
 * A password's length in characters (code points): a new user's at least
 * PASSWORD_MIN; any at most PASSWORD_MAX, which sign-in refuses beyond (so a
 * user made with a longer one could never sign in).
 */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 1024;
export const passwordLength = (password: string): number => [...password].length;

const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** A new scrypt$N$r$p$salt$hash for `password`, computed on libuv's thread pool. */
export function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return new Promise((resolve, reject) => {
    scrypt(password, salt, 32, SCRYPT, (err, hash) => {
      if (err) reject(err);
      else resolve(`scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`);
    });
  });
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

/** Console users by email (lower case). */
export class Users {
  readonly #stores: Stores;
  readonly #backend: Backend;

  constructor(stores: Stores, backend: Backend) {
    this.#stores = stores;
    this.#backend = backend;
  }

  // A node of the version before user deletion replicates one as an empty
  // record (it could only put users), which stays after its upgrade: no user.
  get(email: string): User | undefined {
    return this.#stores.users.get(email) ?? undefined;
  }

  list(): User[] {
    return [...this.#stores.users.getRange().filter(({ value }) => value !== null).map(({ value }) => value)];
  }

  /** Creates a user; user_exists when the email is taken. */
  async create(email: string, password: string, admin: boolean, accountId: number): Promise<User> {
    const user: User = {
      email: email.toLowerCase(),
      passwordHash: await hashPassword(password),
      admin,
      accountId,
      createdAt: new Date().toISOString(),
    };
    if (!(await this.#backend.createUser(user))) throw new AppError('user_exists', user.email, 'email');
    return user;
  }

  /**
   * A user's password change: replaces the hash (hashPassword's) if the
   * stored one is still `checked`, the hash the current password was checked
   * against ('changed' otherwise), and ends every session of theirs, in one
   * transaction: whoever held one must sign in with the new password. Null
   * when there is no such user.
   */
  changePasswordHash(email: string, passwordHash: string, checked: string): Promise<{ sessionsEnded: number } | 'changed' | null> {
    return this.#backend.setUserPassword(email, passwordHash, checked);
  }

  /** An operator's reset: changePasswordHash over whatever hash is stored. */
  async resetPasswordHash(email: string, passwordHash: string): Promise<{ sessionsEnded: number } | null> {
    const out = await this.#backend.setUserPassword(email, passwordHash, null);
    return out === 'changed' ? null : out;
  }

  /** Deletes a user and ends every session of theirs; their account and its keys stay (Backend.deleteUser). */
  delete(email: string): Promise<{ sessionsEnded: number; accountId: number } | 'last_admin' | null> {
    return this.#backend.deleteUser(email);
  }
}
