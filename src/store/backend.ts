// The storage back end: every write, and the reads that only the source of
// truth can answer (click statistics). Everything else is read synchronously
// from the local LMDB store by the repositories (storage.ts), which is the
// whole store on a single node and the node's replica in cluster mode.
//
// Two implementations: lmdb-backend.ts (a single node: each write is one
// asynchronous LMDB transaction) and pg/backend.ts (cluster mode: each write
// is one PostgreSQL transaction, then the change is in the local replica
// before the promise resolves). Either way a write resolves once it is
// committed, it is visible to every reader of this process, and every cache
// has been told through the change feed (feed.ts). Refusals that depend on
// stored state (quota_exceeded) are decided inside the writing transaction.
import type { Account, ApiKey, BlacklistChange, BlacklistEdit, ConsoleSession, DayStats, User } from './db.js';
import type { ConversionInput, ConversionOutcome, VisitCounts } from './experiments-store.js';
import type { Route, RouteChanges, RoutePrecondition, RouteUpdate } from './routes-store.js';

export interface NewAccount {
  name: string;
  quota: number;
  admin: boolean;
}

/** One route's counters for one UTC day, to be added to what is stored. */
export interface DayCounts {
  routeId: number;
  day: number;
  counts: DayStats;
}

export interface Backend {
  readonly kind: 'lmdb' | 'postgres';
  /** Whether a write may be tried now: false while PostgreSQL is known to be away (a write would be refused at once). */
  writable(): boolean;

  createAccount(input: NewAccount): Promise<Account>;
  /** Renames an account or sets its quota; undefined when it does not exist. */
  updateAccount(id: number, change: Partial<Pick<Account, 'name' | 'quota'>>): Promise<Account | undefined>;
  /** Stores a key unless its account already has `liveLimit` keys not revoked (counted in the write's own transaction); false when refused. */
  createKey(key: ApiKey, liveLimit: number): Promise<boolean>;
  /** The key as revoked (or as it was, if already revoked); undefined when unknown. */
  revokeKey(id: string, at: string): Promise<ApiKey | undefined>;
  /**
   * Revokes a live key and stores its replacement, in one transaction:
   * false, and nothing stored, when the key is unknown or already revoked
   * (of resets racing each other, one replaces the key).
   */
  replaceKey(id: string, at: string, replacement: ApiKey): Promise<boolean>;
  /** Removes revoked keys for good (an account keeps its newest KEPT_REVOKED, accounts-store.ts). */
  deleteKeys(keys: readonly ApiKey[]): Promise<void>;
  /** Key hash → last use (ISO time); an older time never replaces a newer one. */
  recordKeyUse(used: ReadonlyMap<string, string>): Promise<void>;
  /** False when a user with that email exists. */
  createUser(user: User): Promise<boolean>;
  /**
   * Stores a new session of a user whose password was checked against
   * `passwordHash`: false, and nothing stored, when that is no longer the
   * user's hash (a password change between the check and this write).
   */
  putSession(hash: string, session: ConsoleSession, passwordHash: string): Promise<boolean>;
  /** Sets a stored session's last use in one transaction; false when it is gone (signed out, expired), and then nothing is written. */
  touchSession(hash: string, lastSeenAt: number): Promise<boolean>;
  deleteSessions(hashes: readonly string[]): Promise<void>;
  /** Deletes every session of one user in one transaction; how many there were. */
  deleteUserSessions(email: string): Promise<number>;
  /**
   * Replaces a user's password hash and deletes every session of theirs, in
   * one transaction; with `expected`, only if that is the stored hash
   * ('changed' otherwise). Null when there is no such user.
   */
  setUserPassword(email: string, passwordHash: string, expected: string | null): Promise<{ sessionsEnded: number } | 'changed' | null>;
  /**
   * Deletes a user and every session of theirs in one transaction (their
   * account stays). Null when there is no such user; 'last_admin', and
   * nothing deleted, for the one admin left: the store keeps an admin (and
   * so a user: with none, the next start would bootstrap a new admin and
   * key), also when deletions of the last admins race.
   */
  deleteUser(email: string): Promise<{ sessionsEnded: number; accountId: number } | 'last_admin' | null>;

  /**
   * Counts the creation against the account's lifetime quota (quota_exceeded) and reserves a fresh code for ever;
   * `settings` resolved by applyRouteChanges (routes-store.ts) inside the transaction, as for updates.
   */
  createRoute(accountId: number, settings: RouteChanges): Promise<Route>;
  /** Checks the precondition against the stored route inside the transaction (routes-store.ts RoutePrecondition). */
  updateRoute(accountId: number, id: number, changes: RouteChanges, precondition: RoutePrecondition): Promise<RouteUpdate>;
  /** False when there is no such route of the account; 'changed' when its precondition failed (nothing deleted). */
  deleteRoute(accountId: number, id: number, precondition: RoutePrecondition): Promise<boolean | 'changed'>;
  /** Removes what is left of the data of routes deleted before (a stop interrupted its removal); PostgreSQL leaves nothing. */
  purgeDeletedRoutes(): Promise<void>;

  /** False when the ASN already has an entry. */
  addBlacklistEntry(change: BlacklistChange): Promise<boolean>;
  /**
   * Enables or disables an entry and sets its note (undefined keeps it) in one
   * transaction, reading the stored entry there (`seed`, a built-in entry's
   * first change, when none is stored); null when neither exists.
   */
  setBlacklistEnabled(asn: number, edit: BlacklistEdit, seed: BlacklistChange | null): Promise<BlacklistChange | null>;
  removeBlacklistEntry(asn: number): Promise<boolean>;

  /** Refresh and feed state under a name (state-store.ts); `null` removes it. */
  putState(entries: Readonly<Record<string, unknown>>): Promise<void>;
  /**
   * Replaces the state under `name` with what `change` makes of the stored
   * value (undefined when there is none), read and written in one
   * transaction, so that no other writer's value lands between them;
   * `change` answering undefined leaves the entry as it is, null removes
   * it. Resolves with whether it wrote. `change` may run more than once
   * (PostgreSQL, when a first value was inserted meanwhile): the last run
   * is the one that counts.
   */
  updateState(name: string, change: (current: unknown) => unknown): Promise<boolean>;
  /**
   * Takes the account's refresh allowance when its last trigger is at least
   * `intervalMs` old, or a whole `intervalMs` in the future (made while the
   * clock ran ahead, as the limiters count it: docs/reliability.md, finding
   * 59): resolves with 0 when taken, else with the time (ms) of the trigger
   * that holds it.
   */
  claimRefreshTrigger(accountId: number, now: number, intervalMs: number): Promise<number>;
  /**
   * A new database file was installed as `file` (current.trie): every
   * process serving from this store is to swap to it. `state` is written in
   * the same transaction.
   */
  databaseInstalled(file: string, state?: Readonly<Record<string, unknown>>): Promise<void>;

  /**
   * Adds the counters to the stored days (a flush of the click recorders).
   * With `batch` (cluster mode), only if this writer's batch `seq` is newer
   * than the last one taken, decided in the same transaction: a batch sent
   * twice is counted once.
   */
  addClicks(days: readonly DayCounts[], batch?: { writer: string; seq: number }): Promise<void>;
  /** The last batch sequence taken from `writer` (cluster mode; 0 when none). */
  lastClickBatch(writer: string): Promise<number>;
  /** A route's stored days from `from` to `to` (UTC day numbers, inclusive); missing days are absent. */
  readDays(routeId: number, from: number, to: number): Promise<Map<number, DayStats>>;

  /**
   * Experiments (experiments-store.ts). Adds per-variant clicks and merges
   * unique-visitor sketches into the stored day's and the route's lifetime
   * sketch (a flush of the visit recorders; merging is idempotent). With
   * `claim` (cluster mode), only if this writer's batch `seq` is newer than
   * the last one taken, as addClicks: the clicks of a batch sent twice count once.
   * A day before `sketchesFrom` (past the sketches' retention, pruneSketches)
   * gets no sketch of its own: its visitors go into the lifetime's only.
   */
  addVisits(batch: readonly VisitCounts[], claim?: { writer: string; seq: number }, sketchesFrom?: number): Promise<void>;
  /** Per day from `from` to `to` (inclusive): clicks per variant; missing days are absent. */
  readVariantDays(routeId: number, from: number, to: number): Promise<Map<number, number[]>>;
  /** Stored sketches per day (day 0: the lifetime), indexed by variant; missing ones are absent. */
  readSketches(routeId: number, days: readonly number[]): Promise<Map<number, (Uint8Array | undefined)[]>>;
  /**
   * Deletes every route's per-day sketches of days 1 to `before` − 1 (the
   * lifetime's, day 0, stay), a few milliseconds of the store at a time
   * (sketch-prune.ts, pg/sketch-prune.ts); stops between two steps once
   * `going` answers false. Resolves with how many were deleted.
   */
  pruneSketches(before: number, going?: () => boolean): Promise<number>;
  /**
   * Records conversions, each counted once per (route, goal, visitor), a
   * route's goals at most GOAL_LIMIT besides DEFAULT_GOAL (a conversion
   * naming one more is refused), an account's stored conversions at most `quota` (0: no limit;
   * a new one past it is refused, counted in the write's own transaction):
   * resolves, in order, with what became of each, once committed (an
   * acknowledged conversion survives a crash).
   */
  addConversions(items: readonly ConversionInput[], quota: number): Promise<ConversionOutcome[]>;
  /**
   * The conversions the account stores now, as the quota counts them (the
   * count addConversions checks: on LMDB meta conversionCountKey, in
   * PostgreSQL its account_conversions row, which no replica holds); 0 when
   * it has none. Reads only.
   */
  storedConversions(accountId: number): Promise<number>;
  /** Per click day from `from` to `to`: goal → conversions per variant. */
  readConversionDays(routeId: number, from: number, to: number): Promise<Map<number, Map<string, number[]>>>;
  /** A named secret, stored once: the first value written wins, and every call resolves with the stored one. */
  ensureSecret(name: string, value: Uint8Array): Promise<Uint8Array>;

  /** Closes the back end; connections still busy at `until` (wall time), if given, are cut. */
  close(until?: number): Promise<void>;
}
