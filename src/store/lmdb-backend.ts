// The single-node back end: every write is one asynchronous LMDB transaction
// (concurrent writes share one commit and one fsync instead of each blocking
// its thread), which also appends the change feed's entries (feed.ts); once
// it has committed, the feed signal moves. LMDB serialises writers across
// threads and processes, so the CLI writes the same store while the server runs.
import type { Database, Key } from 'lmdb';
import { routeQuotaExceeded } from '../errors.js';
import { log } from '../log.js';
import { META_GENERATION } from '../ipdb/refresh-state.js';
import type { Backend, DayCounts, NewAccount } from './backend.js';
import { type ConversionInput, type ConversionOutcome, DEFAULT_GOAL, GOAL_LIMIT, GoalsSeen, type VisitCounts } from './experiments-store.js';
import { mergeForms } from '../experiments/hll.js';
import { pruneLocalSketches } from './sketch-prune.js';
import {
  type Account, type ApiKey, type BlacklistChange, type BlacklistEdit, type ConsoleSession, conversionCountKey, type DayStats, liveKeyCount, metaPrefix, nextId,
  putKeyRecord, removeKeyRecord, storedConversionCount, type Stores, type User,
} from './db.js';
import { announce, recordChange } from './feed.js';
import { applyRouteChanges, newCode, nextUpdatedAt, preconditionFails, type Route, type RouteChanges, type RoutePrecondition, type RouteUpdate } from './routes-store.js';
import { addDay, completeDay } from './stats-store.js';

const triggerKey = (accountId: number) => `ipdb_trigger:${accountId}`;

/**
 * A deleted route whose data is still being removed: meta `purge:route:<id>`
 * → {accountId} (see deleteRoute), written with the deletion and removed with
 * the last of its data, so a stop in between leaves it for the next start.
 * The purge subtracts the conversions it removes from that account's count
 * (conversionCountKey); a marker written before the count existed is `true`
 * and subtracts nothing (its conversions were never counted).
 */
const PURGE_PREFIX = 'purge:route:';
interface PurgeMarker {
  accountId: number;
}
/**
 * Keys removed per transaction while purging: each chunk holds its thread and
 * the store's one write lock for about 1.5 ms (about 1.5 µs a key), where the
 * whole of a route with a million conversions held both for 1.7 s.
 */
export const PURGE_CHUNK = 1000;

export class LmdbBackend implements Backend {
  readonly kind = 'lmdb';

  writable(): boolean {
    return true;
  }
  readonly #stores: Stores;

  constructor(stores: Stores) {
    this.#stores = stores;
  }

  /** One write transaction; the feed signal moves once it has committed. */
  async #write<T>(change: () => T): Promise<T> {
    const out = await this.#stores.root.transaction(change);
    announce(this.#stores);
    return out;
  }

  #putAccount(account: Account): void {
    this.#stores.accounts.put(account.id, account);
    recordChange(this.#stores, 'account', account.id);
  }

  createAccount(input: NewAccount): Promise<Account> {
    return this.#write(() => {
      const account: Account = { id: nextId(this.#stores, 'account'), ...input, routesCreated: 0, createdAt: new Date().toISOString() };
      this.#putAccount(account);
      return account;
    });
  }

  updateAccount(id: number, change: Partial<Pick<Account, 'name' | 'quota'>>): Promise<Account | undefined> {
    return this.#write(() => {
      const current = this.#stores.accounts.get(id);
      if (!current) return undefined;
      const next = { ...current, ...change };
      this.#putAccount(next);
      return next;
    });
  }

  createKey(key: ApiKey, liveLimit: number): Promise<boolean> {
    return this.#write(() => {
      if (liveKeyCount(this.#stores, key.accountId) >= liveLimit) return false;
      this.#putKey(key);
      return true;
    });
  }

  revokeKey(id: string, at: string): Promise<ApiKey | undefined> {
    return this.#write(() => {
      const hash = this.#stores.keyIds.get(id);
      const key = hash === undefined ? undefined : this.#stores.keys.get(hash);
      if (!key || key.revokedAt) return key;
      const revoked = { ...key, revokedAt: at };
      this.#putKey(revoked);
      return revoked;
    });
  }

  /** A key's records (putKeyRecord), with its feed entry; inside a write transaction. */
  #putKey(key: ApiKey): void {
    putKeyRecord(this.#stores, key);
    recordChange(this.#stores, 'key', key.hash);
  }

  deleteKeys(keys: readonly ApiKey[]): Promise<void> {
    return this.#write(() => {
      for (const k of keys) {
        const stored = this.#stores.keys.get(k.hash);
        if (!stored?.revokedAt) continue;
        removeKeyRecord(this.#stores, stored);
        recordChange(this.#stores, 'key', k.hash);
      }
    });
  }

  replaceKey(id: string, at: string, replacement: ApiKey): Promise<boolean> {
    return this.#write(() => {
      const hash = this.#stores.keyIds.get(id);
      const key = hash === undefined ? undefined : this.#stores.keys.get(hash);
      if (!key || key.revokedAt) return false;
      this.#putKey({ ...key, revokedAt: at });
      this.#putKey(replacement);
      return true;
    });
  }

  recordKeyUse(used: ReadonlyMap<string, string>): Promise<void> {
    return this.#write(() => {
      for (const [hash, at] of used) {
        const key = this.#stores.keys.get(hash);
        if (key && (!key.lastUsedAt || key.lastUsedAt < at)) {
          this.#stores.keys.put(hash, { ...key, lastUsedAt: at });
          recordChange(this.#stores, 'key', hash);
        }
      }
    });
  }

  createUser(user: User): Promise<boolean> {
    return this.#write(() => {
      if (this.#stores.users.get(user.email)) return false;
      this.#stores.users.put(user.email, user);
      recordChange(this.#stores, 'user', user.email);
      return true;
    });
  }

  putSession(hash: string, session: ConsoleSession, passwordHash: string): Promise<boolean> {
    return this.#write(() => {
      if (this.#stores.users.get(session.email)?.passwordHash !== passwordHash) return false;
      this.#stores.sessions.put(hash, session);
      recordChange(this.#stores, 'session', hash);
      return true;
    });
  }

  touchSession(hash: string, lastSeenAt: number): Promise<boolean> {
    return this.#write(() => {
      const session = this.#stores.sessions.get(hash);
      if (!session) return false;
      this.#stores.sessions.put(hash, { ...session, lastSeenAt });
      recordChange(this.#stores, 'session', hash);
      return true;
    });
  }

  deleteSessions(hashes: readonly string[]): Promise<void> {
    return this.#write(() => {
      for (const hash of hashes) {
        if (this.#stores.sessions.get(hash) === undefined) continue;
        this.#stores.sessions.remove(hash);
        recordChange(this.#stores, 'session', hash);
      }
    });
  }

  setUserPassword(email: string, passwordHash: string, expected: string | null): Promise<{ sessionsEnded: number } | 'changed' | null> {
    return this.#write(() => {
      const user = this.#stores.users.get(email);
      if (!user) return null;
      if (expected !== null && user.passwordHash !== expected) return 'changed';
      this.#stores.users.put(email, { ...user, passwordHash });
      recordChange(this.#stores, 'user', email);
      return { sessionsEnded: this.#deleteUserSessions(email) };
    });
  }

  deleteUser(email: string): Promise<{ sessionsEnded: number; accountId: number } | 'last_admin' | null> {
    return this.#write(() => {
      const user = this.#stores.users.get(email);
      if (!user) return null;
      if (user.admin && !this.#anotherAdmin(email)) return 'last_admin';
      this.#stores.users.remove(email);
      recordChange(this.#stores, 'user', email);
      return { sessionsEnded: this.#deleteUserSessions(email), accountId: user.accountId };
    });
  }

  /** Inside a write transaction: whether a user other than `email` is an admin. */
  #anotherAdmin(email: string): boolean {
    for (const { key, value } of this.#stores.users.getRange()) if (key !== email && value?.admin) return true;
    return false;
  }

  deleteUserSessions(email: string): Promise<number> {
    return this.#write(() => this.#deleteUserSessions(email));
  }

  /** Inside a write transaction. */
  #deleteUserSessions(email: string): number {
    // Sessions are keyed by their hash alone, so every user's are read, in
    // the transaction: a session this user starts meanwhile is either
    // deleted here or started after it.
    const keys: string[] = [];
    for (const { key, value } of this.#stores.sessions.getRange()) if (value.email === email) keys.push(key);
    for (const key of keys) {
      this.#stores.sessions.remove(key);
      recordChange(this.#stores, 'session', key);
    }
    return keys.length;
  }

  createRoute(accountId: number, settings: RouteChanges): Promise<Route> {
    return this.#write(() => {
      // The fields first (a default_group past the variants is 400 whatever the quota), then the quota.
      const now = new Date().toISOString();
      const base = applyRouteChanges(undefined, settings, now);
      const account = this.#stores.accounts.get(accountId)!;
      if (account.routesCreated >= account.quota) {
        throw routeQuotaExceeded({ created: account.routesCreated, quota: account.quota });
      }
      let code = newCode();
      while (this.#stores.codes.get(code) !== undefined) code = newCode();
      const route: Route = { id: nextId(this.#stores, 'route'), accountId, code, ...base, status: 'active', createdAt: now, updatedAt: now };
      this.#stores.routes.put(route.id, route);
      this.#stores.codes.put(code, route.id);
      this.#stores.accountRoutes.put([accountId, route.id], 1);
      recordChange(this.#stores, 'route', code);
      this.#putAccount({ ...account, routesCreated: account.routesCreated + 1, routesActive: (account.routesActive ?? 0) + 1 });
      return route;
    });
  }

  #ownRoute(accountId: number, id: number): Route | undefined {
    const route = this.#stores.routes.get(id);
    return route && route.accountId === accountId ? route : undefined;
  }

  updateRoute(accountId: number, id: number, changes: RouteChanges, precondition: RoutePrecondition): Promise<RouteUpdate> {
    return this.#write((): RouteUpdate => {
      const route = this.#ownRoute(accountId, id);
      if (!route) return undefined;
      if (preconditionFails(route, precondition)) return 'changed';
      const now = nextUpdatedAt(route.updatedAt);
      const updated: Route = { ...route, ...applyRouteChanges(route, changes, now), updatedAt: now };
      this.#stores.routes.put(id, updated);
      recordChange(this.#stores, 'route', route.code);
      return updated;
    });
  }

  deleteRoute(accountId: number, id: number, precondition: RoutePrecondition): Promise<boolean | 'changed'> {
    return this.#write((): boolean | 'changed' => {
      const route = this.#ownRoute(accountId, id);
      if (!route) return false;
      if (preconditionFails(route, precondition)) return 'changed';
      this.#stores.routes.remove(id);
      this.#stores.accountRoutes.remove([accountId, id]);
      this.#stores.meta.put(`${PURGE_PREFIX}${id}`, { accountId } satisfies PurgeMarker);
      recordChange(this.#stores, 'route', route.code);
      const account = this.#stores.accounts.get(accountId)!;
      this.#putAccount({ ...account, routesActive: Math.max(0, (account.routesActive ?? 1) - 1) });
      return true;
    }).then((deleted) => {
      if (deleted === true) this.#purgeRoute(id).catch((err: unknown) => log('warn', 'route_data_purge_failed', { route_id: id, error: err }));
      return deleted;
    });
  }

  /**
   * A deleted route's data goes after it: nothing reads it again (its id and
   * code are never used again, and writes for a route that is gone are
   * dropped), and sketches grow up to 8 x 32 KiB a day. It is removed in
   * transactions of PURGE_CHUNK keys after the deletion has been answered:
   * in the deletion's own transaction, a route holding a million conversions
   * stalled its thread and every writer for 1.7 s (docs/reliability.md,
   * finding 97).
   */
  async #purgeRoute(id: number): Promise<void> {
    const { stats, variantDays, sketches, conversions, conversionDays, meta } = this.#stores;
    const marker = meta.get(`${PURGE_PREFIX}${id}`) as PurgeMarker | true | undefined;
    const accountId = typeof marker === 'object' && marker !== null && typeof marker.accountId === 'number' ? marker.accountId : null;
    for (const table of [stats, variantDays, sketches, conversions, conversionDays] as Database<unknown, Key[]>[]) {
      // Keys are gathered first: no cursor is walked while it is written.
      const chunk = { start: [id], end: [id + 1], limit: PURGE_CHUNK };
      for (let removed = PURGE_CHUNK; removed === PURGE_CHUNK; ) {
        removed = await this.#stores.root.transaction(() => {
          const keys = [...table.getKeys(chunk)];
          for (const key of keys) table.remove(key);
          // The account's count gives back what this chunk removed, in the same transaction.
          if (table === (conversions as unknown) && accountId !== null && keys.length > 0) {
            const key = conversionCountKey(accountId);
            const left = storedConversionCount(meta, accountId) - keys.length;
            if (left > 0) meta.put(key, left);
            else meta.remove(key);
          }
          return keys.length;
        });
      }
    }
    await this.#stores.root.transaction(() => this.#stores.meta.remove(`${PURGE_PREFIX}${id}`));
  }

  purgeDeletedRoutes(): Promise<void> {
    const ids = [...this.#stores.meta.getKeys(metaPrefix(PURGE_PREFIX))].map((k) => Number(String(k).slice(PURGE_PREFIX.length)));
    return ids.reduce((done, id) => done.then(() => this.#purgeRoute(id)), Promise.resolve());
  }

  addBlacklistEntry(change: BlacklistChange): Promise<boolean> {
    return this.#write(() => {
      if (this.#stores.blacklist.get(change.asn)) return false;
      this.#putBlacklist(change);
      return true;
    });
  }

  setBlacklistEnabled(asn: number, edit: BlacklistEdit, seed: BlacklistChange | null): Promise<BlacklistChange | null> {
    return this.#write(() => {
      const base = this.#stores.blacklist.get(asn) ?? seed;
      if (!base) return null;
      const change: BlacklistChange = { ...base, disabled: edit.disabled, note: edit.note ?? base.note, updatedAt: edit.updatedAt };
      this.#putBlacklist(change);
      return change;
    });
  }

  #putBlacklist(change: BlacklistChange): void {
    this.#stores.blacklist.put(change.asn, change);
    recordChange(this.#stores, 'blacklist', change.asn);
  }

  removeBlacklistEntry(asn: number): Promise<boolean> {
    return this.#write(() => {
      if (!this.#stores.blacklist.get(asn)) return false;
      this.#stores.blacklist.remove(asn);
      recordChange(this.#stores, 'blacklist', asn);
      return true;
    });
  }

  putState(entries: Readonly<Record<string, unknown>>): Promise<void> {
    return this.#write(() => this.#putState(entries));
  }

  updateState(name: string, change: (current: unknown) => unknown): Promise<boolean> {
    return this.#write(() => {
      const next = change(this.#stores.meta.get(name));
      if (next === undefined) return false;
      this.#putState({ [name]: next });
      return true;
    });
  }

  #putState(entries: Readonly<Record<string, unknown>>): void {
    for (const [name, value] of Object.entries(entries)) {
      if (value === null) this.#stores.meta.remove(name);
      else this.#stores.meta.put(name, value);
      recordChange(this.#stores, 'state', name);
    }
  }

  claimRefreshTrigger(accountId: number, now: number, intervalMs: number): Promise<number> {
    // The allowance is nobody's cache: no feed entry.
    return this.#stores.root.transaction(() => {
      const last = (this.#stores.meta.get(triggerKey(accountId)) as number | undefined) ?? 0;
      // A claim a whole interval in the future was made while the clock ran ahead: it holds nothing (Backend).
      if (now - last < intervalMs && last - now < intervalMs) return last;
      this.#stores.meta.put(triggerKey(accountId), now);
      return 0;
    });
  }

  /** Every server on this data directory maps current.trie itself: moving the generation is the whole announcement. */
  databaseInstalled(_file: string, state: Readonly<Record<string, unknown>> = {}): Promise<void> {
    return this.#write(() => {
      this.#putState(state);
      const generation = ((this.#stores.meta.get(META_GENERATION) as number | undefined) ?? 0) + 1;
      this.#stores.meta.put(META_GENERATION, generation);
      recordChange(this.#stores, 'ipdb', generation);
    });
  }

  /**
   * A read-modify-write inside the write transaction, so threads and
   * processes flushing at once never lose each other's counts. Statistics
   * are nobody's cache: no feed entry.
   */
  async addClicks(days: readonly DayCounts[]): Promise<void> {
    const stats = this.#stores.stats;
    await this.#stores.root.transaction(() => {
      for (const p of days) {
        // Counted before its route was deleted (see deleteRoute).
        if (this.#stores.routes.get(p.routeId) === undefined) continue;
        const key: [number, number] = [p.routeId, p.day];
        const stored = completeDay(stats.get(key));
        addDay(stored, p.counts);
        stats.put(key, stored);
      }
    });
  }

  lastClickBatch(): Promise<number> {
    return Promise.resolve(0); // one node: batches are not numbered
  }

  readDays(routeId: number, from: number, to: number): Promise<Map<number, DayStats>> {
    const out = new Map<number, DayStats>();
    for (let d = from; d <= to; d++) {
      const stored = this.#stores.stats.get([routeId, d]);
      if (stored) out.set(d, stored);
    }
    return Promise.resolve(out);
  }

  /**
   * Read-modify-write in one transaction, like addClicks: clicks add up,
   * sketches merge register by register into the day's (none for a day
   * before `sketchesFrom`, past retention) and the lifetime's.
   */
  /** A single node commits or fails here, never both: no claim is needed. */
  async addVisits(batch: readonly VisitCounts[], _claim?: unknown, sketchesFrom = -Infinity): Promise<void> {
    const { variantDays, sketches } = this.#stores;
    const merge = (key: [number, number, number], add: Uint8Array) => sketches.put(key, mergeForms(sketches.get(key), add));
    await this.#stores.root.transaction(() => {
      for (const v of batch) {
        if (this.#stores.routes.get(v.routeId) === undefined) continue;
        if (v.clicks.some((c) => c > 0)) {
          const key: [number, number] = [v.routeId, v.day];
          const day = variantDays.get(key) ?? { clicks: [] };
          const clicks = [...day.clicks];
          v.clicks.forEach((c, i) => (clicks[i] = (clicks[i] ?? 0) + c));
          variantDays.put(key, { clicks });
        }
        v.sketches.forEach((bytes, variant) => {
          if (!bytes) return;
          if (v.day >= sketchesFrom) merge([v.routeId, v.day, variant], bytes);
          merge([v.routeId, 0, variant], bytes);
        });
      }
    });
  }

  readVariantDays(routeId: number, from: number, to: number): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>();
    for (const { key, value } of this.#stores.variantDays.getRange({ start: [routeId, from], end: [routeId, to + 1] })) {
      out.set((key as [number, number])[1], value.clicks);
    }
    return Promise.resolve(out);
  }

  /** Sketches are nobody's cache: no feed entry. */
  pruneSketches(before: number, going?: () => boolean): Promise<number> {
    return pruneLocalSketches(this.#stores, before, going);
  }

  readSketches(routeId: number, days: readonly number[]): Promise<Map<number, (Uint8Array | undefined)[]>> {
    const out = new Map<number, (Uint8Array | undefined)[]>();
    for (const day of days) {
      const row: (Uint8Array | undefined)[] = [];
      for (const { key, value } of this.#stores.sketches.getRange({ start: [routeId, day, 0], end: [routeId, day, 8] })) {
        row[(key as [number, number, number])[2]] = value;
      }
      if (row.length > 0) out.set(day, row);
    }
    return Promise.resolve(out);
  }

  /**
   * The route's existence, the check for a duplicate, the goal limit, the
   * account's quota and the count are in one transaction, so racing requests
   * count once, a route never passes GOAL_LIMIT goals nor an account its
   * quota of stored conversions, and nothing is stored under a route a
   * deletion took away meanwhile (its data went with it: deleteRoute); the
   * day counters of a group are added up first and written once per (route,
   * day, goal), the accounts' counts once per account.
   */
  addConversions(items: readonly ConversionInput[], quota: number): Promise<ConversionOutcome[]> {
    const { conversions, conversionDays, routes, meta } = this.#stores;
    const written = this.#stores.root.transaction(() => {
      const days = new Map<string, { key: [number, number, string]; count: number[]; value: number[] }>();
      /** Route id → whether it exists, read once a transaction (doesExist decodes nothing). */
      const live = new Map<number, boolean>();
      /** Account id → the conversions it stores, read at its first new conversion, with the transaction's own. */
      const stored = new Map<number, { was: number; now: number }>();
      const out = items.map((c): ConversionOutcome => {
        let exists = live.get(c.routeId);
        if (exists === undefined) live.set(c.routeId, (exists = routes.doesExist(c.routeId)));
        if (!exists) return 'route_gone';
        const key: [number, string, string] = [c.routeId, c.goal, c.visitor];
        if (conversions.get(key) !== undefined) return 'duplicate';
        if (c.goal !== DEFAULT_GOAL && !this.#knownGoal(c.routeId, c.goal) && this.#goalCount(c.routeId) >= GOAL_LIMIT) return 'goal_limit';
        let count = stored.get(c.accountId);
        if (count === undefined) {
          const was = storedConversionCount(meta, c.accountId);
          stored.set(c.accountId, (count = { was, now: was }));
        }
        if (quota > 0 && count.now >= quota) return 'quota';
        count.now++;
        conversions.put(key, { variant: c.variant, day: c.day, at: c.at, value: c.value });
        const id = `${c.routeId}/${c.day}/${c.goal}`;
        let d = days.get(id);
        if (!d) days.set(id, (d = { key: [c.routeId, c.day, c.goal], count: [], value: [] }));
        d.count[c.variant] = (d.count[c.variant] ?? 0) + 1;
        d.value[c.variant] = (d.value[c.variant] ?? 0) + (c.value ?? 0);
        return 'counted';
      });
      for (const d of days.values()) {
        const stored = conversionDays.get(d.key);
        const count = stored ? [...stored.count] : [];
        const value = stored ? [...stored.value] : [];
        d.count.forEach((n, i) => (count[i] = (count[i] ?? 0) + (n ?? 0)));
        d.value.forEach((n, i) => (value[i] = (value[i] ?? 0) + (n ?? 0)));
        conversionDays.put(d.key, { count, value });
      }
      for (const [accountId, count] of stored) if (count.now !== count.was) meta.put(conversionCountKey(accountId), count.now);
      return out;
    });
    return written.then((out) => this.#goalsSeen.remember(items, out));
  }

  /** (route, goal) pairs known stored: their conversions need no goal check (GoalsSeen). */
  readonly #goalsSeen = new GoalsSeen();

  /** Whether the route has a conversion for the goal (inside the write transaction: its own writes count). */
  #knownGoal(routeId: number, goal: string): boolean {
    if (this.#goalsSeen.has(routeId, goal)) return true;
    // Keys are [route, goal, visitor hash]: the hash is hex digits, all below '~'.
    for (const _ of this.#stores.conversions.getKeys({ start: [routeId, goal], end: [routeId, goal, '~'], limit: 1 })) return true;
    return false;
  }

  /** The route's distinct goals besides DEFAULT_GOAL, counted up to GOAL_LIMIT: one seek per goal, skipping its visitors. */
  #goalCount(routeId: number): number {
    let n = 0;
    let start: [number] | [number, string, string] = [routeId];
    while (n < GOAL_LIMIT) {
      let goal: string | null = null;
      for (const key of this.#stores.conversions.getKeys({ start, end: [routeId + 1], limit: 1 })) goal = key[1];
      if (goal === null) break;
      if (goal !== DEFAULT_GOAL) n++;
      start = [routeId, goal, '~'];
    }
    return n;
  }

  storedConversions(accountId: number): Promise<number> {
    return Promise.resolve(storedConversionCount(this.#stores.meta, accountId));
  }

  readConversionDays(routeId: number, from: number, to: number): Promise<Map<number, Map<string, number[]>>> {
    const out = new Map<number, Map<string, number[]>>();
    for (const { key, value } of this.#stores.conversionDays.getRange({ start: [routeId, from, ''], end: [routeId, to + 1, ''] })) {
      const [, day, goal] = key as [number, number, string];
      let goals = out.get(day);
      if (!goals) out.set(day, (goals = new Map()));
      goals.set(goal, value.count);
    }
    return Promise.resolve(out);
  }

  /** Secrets are nobody's cache: no feed entry (each thread reads its secret once, at start). */
  async ensureSecret(name: string, value: Uint8Array): Promise<Uint8Array> {
    const key = `secret:${name}`;
    return this.#stores.root.transaction(() => {
      const stored = this.#stores.meta.get(key) as Uint8Array | undefined;
      if (stored) return new Uint8Array(stored);
      this.#stores.meta.put(key, value);
      return value;
    });
  }

  /** The store itself is the storage's to close. */
  async close(): Promise<void> {}
}
