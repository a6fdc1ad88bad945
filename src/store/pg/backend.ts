// The cluster back end: every write is one PostgreSQL transaction that also
// appends its changes to the change log (changes.ts); once it has committed,
// the writer's own replica applies the log up to it (replica.ts) before the
// promise resolves, so the writing node reads its write at once and every
// other node within a second (they are woken by NOTIFY).
//
// Refusals are PostgreSQL's, in the writing transaction: the quota by a
// conditional UPDATE of the account row (its row lock orders concurrent
// creations), code uniqueness by route_codes' primary key, the refresh
// allowance by a conditional upsert.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { routeQuotaExceeded } from '../../errors.js';
import { log } from '../../log.js';
import type { Backend, DayCounts, NewAccount } from '../backend.js';
import { type ConversionInput, type ConversionOutcome, DEFAULT_GOAL, GOAL_LIMIT, GoalsSeen, type VisitCounts } from '../experiments-store.js';
import type { Account, ApiKey, BlacklistChange, BlacklistEdit, ConsoleSession, DayStats, User } from '../db.js';
import { applyRouteChanges, newCode, nextUpdatedAt, preconditionFails, type Route, type RouteChanges, type RoutePrecondition, type RouteUpdate } from '../routes-store.js';
import { mergeForms } from '../../experiments/hll.js';
import { prunePgSketches } from './sketch-prune.js';
import { appendChanges, type NewChange } from './changes.js';
import { closePool, inTransaction, type Pool, type PoolClient, storageError, unavailable } from './client.js';
import { accountOf, blacklistOf, DAY_FIELDS, dayOf, experimentOf, keyOf, routeOf, sessionOf, userOf } from './records.js';
import type { Replica } from './replica.js';

/** Published database files kept in ipdb_files (the newest, and one to fall back on). */
const IPDB_FILES_KEPT = 2;

/** The order every writer takes route-day rows' locks in, so that concurrent flushes wait rather than deadlock. */
const byRouteDay = (x: { routeId: number; day: number }, y: { routeId: number; day: number }) => x.routeId - y.routeId || x.day - y.day;

/** A sketch row's key and the registers to merge into it. */
interface SketchRow {
  routeId: number;
  day: number;
  variant: number;
  bytes: Uint8Array;
}

/** Sketch rows a statement carries: at most 256 × 32 KiB of dense registers, 16 MiB as hex. */
const SKETCH_ROWS = 256;

/**
 * A batch of visits as rows, in key order: the variant days with clicks,
 * and per sketch row (route, day, variant) the registers to merge into it.
 * A route's days share its lifetime row (day 0), so a batch across midnight
 * names it twice: merged here first, as one row may be written once a
 * statement. A day before `sketchesFrom` (past retention) has no row of its own.
 */
function visitRows(batch: readonly VisitCounts[], sketchesFrom: number) {
  const sorted = [...batch].sort(byRouteDay);
  const clicks = sorted.filter((v) => v.clicks.some((n) => n > 0));
  const sketches = new Map<string, SketchRow>();
  for (const v of sorted) {
    v.sketches.forEach((bytes, variant) => {
      if (!bytes) return;
      for (const day of v.day >= sketchesFrom ? [v.day, 0] : [0]) {
        const key = `${v.routeId}/${day}/${variant}`;
        const had = sketches.get(key);
        if (had) had.bytes = mergeForms(had.bytes, bytes);
        else sketches.set(key, { routeId: v.routeId, day, variant, bytes });
      }
    });
  }
  return { clicks, sketches: [...sketches.values()].sort((x, y) => byRouteDay(x, y) || x.variant - y.variant) };
}

/**
 * Sketch rows of a batch, SKETCH_ROWS at a time in key order, so that the
 * lock order holds across them and nodes flushing the same route at once
 * wait for each other: every row made to exist (a row two nodes both found
 * missing would otherwise be inserted by both, the second overwriting the
 * first's registers), read and locked, and written merged. A statement's
 * bytea array travels as one string of hex, and 8,192 dense rows (a busy
 * tenant's day and lifetime rows of 4,096 variants) passed V8's longest
 * string: the batch failed at every try.
 */
async function mergeSketches(c: PoolClient, sketches: readonly SketchRow[]): Promise<void> {
  const keys = [sketches.map((k) => k.routeId), sketches.map((k) => k.day), sketches.map((k) => k.variant)];
  await c.query(
    `INSERT INTO sketches (route_id, day, variant, registers)
     SELECT r, d, v, '\\x02'::bytea FROM unnest($1::bigint[], $2::int[], $3::int[]) AS u(r, d, v)
     ON CONFLICT DO NOTHING`,
    keys,
  );
  const { rows } = await c.query(
    `SELECT s.route_id, s.day, s.variant, s.registers FROM sketches s
       JOIN unnest($1::bigint[], $2::int[], $3::int[]) AS u(r, d, v) ON s.route_id = u.r AND s.day = u.d AND s.variant = u.v
     ORDER BY s.route_id, s.day, s.variant FOR UPDATE OF s`,
    keys,
  );
  const stored = new Map(rows.map((r) => [`${r.route_id}/${r.day}/${r.variant}`, new Uint8Array(r.registers as Buffer)]));
  const merged = sketches.map((k) => Buffer.from(mergeForms(stored.get(`${k.routeId}/${k.day}/${k.variant}`), k.bytes)));
  await c.query(
    `UPDATE sketches s SET registers = u.b FROM unnest($1::bigint[], $2::int[], $3::int[], $4::bytea[]) AS u(r, d, v, b)
      WHERE s.route_id = u.r AND s.day = u.d AND s.variant = u.v`,
    [...keys, merged],
  );
}

type Work<T> = (c: PoolClient) => Promise<{ out: T; changes: NewChange[] }>;

/** Deletes every session of a user: the changes that say so. */
async function endSessions(c: PoolClient, email: string): Promise<NewChange[]> {
  const { rows } = await c.query('DELETE FROM sessions WHERE email = $1 RETURNING hash', [email]);
  return rows.map((r) => ({ kind: 'session', key: r.hash as string, record: null }));
}

/** A new key's row; inside a transaction. */
function insertKey(c: PoolClient, key: ApiKey): Promise<unknown> {
  return c.query(
    'INSERT INTO api_keys (id, hash, account_id, name, prefix, admin, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [key.id, key.hash, key.accountId, key.name, key.prefix, key.admin, key.createdAt],
  );
}

export class PgBackend implements Backend {
  readonly kind = 'postgres';

  writable(): boolean {
    return this.#connected();
  }
  readonly #pool: Pool;
  readonly #replica: Replica;
  readonly #node: string;
  readonly #connected: () => boolean;

  constructor(pool: Pool, replica: Replica, node: string, connected: () => boolean) {
    this.#pool = pool;
    this.#replica = replica;
    this.#node = node;
    this.#connected = connected;
  }

  /** One transaction with its changes; resolves once the local replica holds them. */
  async #write<T>(work: Work<T>): Promise<T> {
    // Known to be away: refuse at once rather than after a connect timeout.
    if (!this.#connected()) throw unavailable();
    const { out, seq } = await inTransaction(this.#pool, async (c) => {
      const done = await work(c);
      return { out: done.out, seq: done.changes.length > 0 ? await appendChanges(c, done.changes) : 0 };
    });
    // Committed: a failure to read it back only delays it here (the log
    // brings it later); the write itself must not be reported as failed.
    if (seq > 0) await this.#replica.through(seq).catch((err: unknown) => log('warn', 'replica_catch_up_failed', { seq, error: err }));
    return out;
  }

  async #query<R extends Record<string, unknown>>(sql: string, values: unknown[]): Promise<R[]> {
    try {
      return (await this.#pool.query<R>(sql, values)).rows;
    } catch (err) {
      throw storageError(err);
    }
  }

  createAccount(input: NewAccount): Promise<Account> {
    return this.#write(async (c) => {
      const { rows } = await c.query('INSERT INTO accounts (name, quota, admin) VALUES ($1, $2, $3) RETURNING *', [input.name, input.quota, input.admin]);
      const account = accountOf(rows[0]);
      return { out: account, changes: [{ kind: 'account', key: account.id, record: account }] };
    });
  }

  updateAccount(id: number, change: Partial<Pick<Account, 'name' | 'quota'>>): Promise<Account | undefined> {
    return this.#write(async (c) => {
      const { rows } = await c.query('UPDATE accounts SET name = coalesce($2, name), quota = coalesce($3, quota) WHERE id = $1 RETURNING *', [id, change.name ?? null, change.quota ?? null]);
      if (rows.length === 0) return { out: undefined, changes: [] };
      const account = accountOf(rows[0]);
      return { out: account, changes: [{ kind: 'account', key: id, record: account }] };
    });
  }

  /** The account's row is locked first: keys created at once for one account count one after another. */
  createKey(key: ApiKey, liveLimit: number): Promise<boolean> {
    return this.#write(async (c) => {
      await c.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [key.accountId]);
      const { rows } = await c.query('SELECT count(*)::int AS live FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL', [key.accountId]);
      if (rows[0].live >= liveLimit) return { out: false, changes: [] };
      await insertKey(c, key);
      return { out: true, changes: [{ kind: 'key', key: key.hash, record: key }] };
    });
  }

  revokeKey(id: string, at: string): Promise<ApiKey | undefined> {
    return this.#write(async (c) => {
      const revoked = await c.query('UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING *', [id, at]);
      if (revoked.rows.length > 0) {
        const key = keyOf(revoked.rows[0]);
        return { out: key, changes: [{ kind: 'key', key: key.hash, record: key }] };
      }
      const { rows } = await c.query('SELECT * FROM api_keys WHERE id = $1', [id]);
      return { out: rows.length > 0 ? keyOf(rows[0]) : undefined, changes: [] };
    });
  }

  deleteKeys(keys: readonly ApiKey[]): Promise<void> {
    return this.#write(async (c) => {
      const { rows } = await c.query('DELETE FROM api_keys WHERE id = ANY($1::text[]) AND revoked_at IS NOT NULL RETURNING hash', [keys.map((k) => k.id)]);
      return { out: undefined, changes: rows.map((r) => ({ kind: 'key' as const, key: r.hash as string, record: null })) };
    });
  }

  replaceKey(id: string, at: string, replacement: ApiKey): Promise<boolean> {
    return this.#write(async (c) => {
      const revoked = await c.query('UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING *', [id, at]);
      if (revoked.rows.length === 0) return { out: false, changes: [] };
      await insertKey(c, replacement);
      const old = keyOf(revoked.rows[0]);
      return { out: true, changes: [{ kind: 'key', key: old.hash, record: old }, { kind: 'key', key: replacement.hash, record: replacement }] };
    });
  }

  recordKeyUse(used: ReadonlyMap<string, string>): Promise<void> {
    return this.#write(async (c) => {
      const { rows } = await c.query(
        `UPDATE api_keys k SET last_used_at = u.at FROM unnest($1::text[], $2::timestamptz[]) AS u(hash, at)
          WHERE k.hash = u.hash AND (k.last_used_at IS NULL OR k.last_used_at < u.at) RETURNING k.*`,
        [[...used.keys()], [...used.values()]],
      );
      return { out: undefined, changes: rows.map((r) => ({ kind: 'key' as const, key: r.hash as string, record: keyOf(r) })) };
    });
  }

  createUser(user: User): Promise<boolean> {
    return this.#write(async (c) => {
      const { rows } = await c.query(
        'INSERT INTO users (email, password_hash, admin, account_id, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (email) DO NOTHING RETURNING *',
        [user.email, user.passwordHash, user.admin, user.accountId, user.createdAt],
      );
      if (rows.length === 0) return { out: false, changes: [] };
      return { out: true, changes: [{ kind: 'user', key: user.email, record: userOf(rows[0]) }] };
    });
  }

  putSession(hash: string, session: ConsoleSession, passwordHash: string): Promise<boolean> {
    return this.#write(async (c) => {
      // FOR SHARE waits for a password change holding the user's row, and then sees its hash.
      const user = await c.query('SELECT 1 FROM users WHERE email = $1 AND password_hash = $2 FOR SHARE', [session.email, passwordHash]);
      if (user.rows.length === 0) return { out: false, changes: [] };
      const { rows } = await c.query(
        `INSERT INTO sessions (hash, email, csrf, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (hash) DO UPDATE SET last_seen_at = EXCLUDED.last_seen_at RETURNING *`,
        [hash, session.email, session.csrf, session.createdAt, session.lastSeenAt],
      );
      return { out: true, changes: [{ kind: 'session', key: hash, record: sessionOf(rows[0]) }] };
    });
  }

  touchSession(hash: string, lastSeenAt: number): Promise<boolean> {
    return this.#write(async (c) => {
      const { rows } = await c.query('UPDATE sessions SET last_seen_at = $2 WHERE hash = $1 RETURNING *', [hash, lastSeenAt]);
      if (rows.length === 0) return { out: false, changes: [] };
      return { out: true, changes: [{ kind: 'session', key: hash, record: sessionOf(rows[0]) }] };
    });
  }

  deleteSessions(hashes: readonly string[]): Promise<void> {
    return this.#write(async (c) => {
      const { rows } = await c.query('DELETE FROM sessions WHERE hash = ANY($1::text[]) RETURNING hash', [hashes]);
      return { out: undefined, changes: rows.map((r) => ({ kind: 'session' as const, key: r.hash as string, record: null })) };
    });
  }

  deleteUserSessions(email: string): Promise<number> {
    return this.#write(async (c) => {
      const ended = await endSessions(c, email);
      return { out: ended.length, changes: ended };
    });
  }

  setUserPassword(email: string, passwordHash: string, expected: string | null): Promise<{ sessionsEnded: number } | 'changed' | null> {
    return this.#write<{ sessionsEnded: number } | 'changed' | null>(async (c) => {
      const { rows } = await c.query(
        'UPDATE users SET password_hash = $2 WHERE email = $1 AND ($3::text IS NULL OR password_hash = $3) RETURNING *',
        [email, passwordHash, expected],
      );
      if (rows.length === 0) {
        const exists = await c.query('SELECT 1 FROM users WHERE email = $1', [email]);
        return { out: exists.rows.length === 0 ? null : 'changed', changes: [] };
      }
      const ended = await endSessions(c, email);
      return { out: { sessionsEnded: ended.length }, changes: [{ kind: 'user', key: email, record: userOf(rows[0]) }, ...ended] };
    });
  }

  deleteUser(email: string): Promise<{ sessionsEnded: number; accountId: number } | 'last_admin' | null> {
    return this.#write<{ sessionsEnded: number; accountId: number } | 'last_admin' | null>(async (c) => {
      const target = await c.query('SELECT admin FROM users WHERE email = $1', [email]);
      if (target.rows.length === 0) return { out: null, changes: [] };
      if (target.rows[0].admin) {
        // Every admin's row locked, in one order: of two deletions racing
        // for the last two admins, the second waits for the first and then
        // finds only its own (a deleted row is skipped once its lock frees).
        const admins = await c.query('SELECT email FROM users WHERE admin ORDER BY email FOR UPDATE');
        if (admins.rows.every((r) => r.email === email)) return { out: 'last_admin', changes: [] };
      }
      // The row lock taken here makes a sign-in's putSession (FOR SHARE)
      // wait, and then find no user: no session outlives the user.
      const { rows } = await c.query('DELETE FROM users WHERE email = $1 RETURNING account_id', [email]);
      if (rows.length === 0) return { out: null, changes: [] };
      const ended = await endSessions(c, email);
      return { out: { sessionsEnded: ended.length, accountId: Number(rows[0].account_id) }, changes: [{ kind: 'user', key: email, record: null }, ...ended] };
    });
  }

  createRoute(accountId: number, settings: RouteChanges): Promise<Route> {
    return this.#write(async (c) => {
      // The fields first (a default_group past the variants is 400 whatever the quota), then the quota.
      const now = new Date().toISOString();
      const base = applyRouteChanges(undefined, settings, now);
      const counted = await c.query(
        'UPDATE accounts SET routes_created = routes_created + 1, routes_active = routes_active + 1 WHERE id = $1 AND routes_created < quota RETURNING *',
        [accountId],
      );
      if (counted.rows.length === 0) {
        const { rows } = await c.query('SELECT routes_created, quota FROM accounts WHERE id = $1', [accountId]);
        throw routeQuotaExceeded(rows.length > 0 ? { created: rows[0].routes_created as number, quota: rows[0].quota as number } : undefined);
      }
      let code = newCode();
      while ((await c.query('INSERT INTO route_codes (code) VALUES ($1) ON CONFLICT DO NOTHING', [code])).rowCount === 0) code = newCode();
      const { rows } = await c.query(
        `INSERT INTO routes (account_id, code, name, page_a, page_b, split_ratio, default_group, intercept_level, experiment, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING *`,
        [accountId, code, base.name, base.pageA, base.pageB, base.splitRatio, base.defaultGroup, base.interceptLevel, JSON.stringify(experimentOf(base)), now],
      );
      const route = routeOf(rows[0]);
      const account = accountOf(counted.rows[0]);
      return { out: route, changes: [{ kind: 'route', key: code, record: route }, { kind: 'account', key: accountId, record: account }] };
    });
  }

  /** Read under a row lock and resolved in the transaction (applyRouteChanges), so concurrent updates never lose each other. */
  updateRoute(accountId: number, id: number, changes: RouteChanges, precondition: RoutePrecondition): Promise<RouteUpdate> {
    return this.#write<RouteUpdate>(async (c) => {
      const current = await c.query('SELECT * FROM routes WHERE id = $1 AND account_id = $2 FOR UPDATE', [id, accountId]);
      if (current.rows.length === 0) return { out: undefined, changes: [] };
      const stored = routeOf(current.rows[0]);
      if (preconditionFails(stored, precondition)) return { out: 'changed', changes: [] };
      const now = nextUpdatedAt(stored.updatedAt);
      const base = applyRouteChanges(stored, changes, now);
      const { rows } = await c.query(
        `UPDATE routes SET name = $2, page_a = $3, page_b = $4, split_ratio = $5, default_group = $6, intercept_level = $7, experiment = $8, updated_at = $9
          WHERE id = $1 RETURNING *`,
        [id, base.name, base.pageA, base.pageB, base.splitRatio, base.defaultGroup, base.interceptLevel, JSON.stringify(experimentOf(base)), now],
      );
      const route = routeOf(rows[0]);
      return { out: route, changes: [{ kind: 'route', key: route.code, record: route }] };
    });
  }

  deleteRoute(accountId: number, id: number, precondition: RoutePrecondition): Promise<boolean | 'changed'> {
    return this.#write<boolean | 'changed'>(async (c) => {
      if (precondition !== null) {
        // Judged on the row as locked: an update committing meanwhile is seen.
        const current = await c.query('SELECT * FROM routes WHERE id = $1 AND account_id = $2 FOR UPDATE', [id, accountId]);
        if (current.rows.length === 0) return { out: false, changes: [] };
        if (preconditionFails(routeOf(current.rows[0]), precondition)) return { out: 'changed', changes: [] };
      }
      const deleted = await c.query('DELETE FROM routes WHERE id = $1 AND account_id = $2 RETURNING code', [id, accountId]);
      if (deleted.rows.length === 0) return { out: false, changes: [] };
      // Its data goes with it (see LmdbBackend.deleteRoute); the route's row
      // took its conversions out of the account's count as it went (the
      // trigger of migration 5, after the route's row, as addConversions
      // takes them: no deadlock).
      for (const table of ['route_days', 'variant_days', 'sketches', 'conversions', 'conversion_days']) await c.query(`DELETE FROM ${table} WHERE route_id = $1`, [id]);
      const { rows } = await c.query('UPDATE accounts SET routes_active = greatest(0, routes_active - 1) WHERE id = $1 RETURNING *', [accountId]);
      return {
        out: true,
        changes: [{ kind: 'route', key: deleted.rows[0].code as string, record: null }, { kind: 'account', key: accountId, record: accountOf(rows[0]) }],
      };
    });
  }

  /** A route's data is deleted in the deletion's own transaction: PostgreSQL's work, which stalls no thread of ours. */
  purgeDeletedRoutes(): Promise<void> {
    return Promise.resolve();
  }

  #blacklistValues(e: BlacklistChange): unknown[] {
    return [e.asn, e.builtIn, e.disabled, e.provider, e.category, e.level, e.note, e.updatedAt];
  }

  addBlacklistEntry(change: BlacklistChange): Promise<boolean> {
    return this.#write(async (c) => {
      const { rows } = await c.query(
        'INSERT INTO blacklist VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (asn) DO NOTHING RETURNING *',
        this.#blacklistValues(change),
      );
      if (rows.length === 0) return { out: false, changes: [] };
      return { out: true, changes: [{ kind: 'blacklist', key: change.asn, record: blacklistOf(rows[0]) }] };
    });
  }

  setBlacklistEnabled(asn: number, edit: BlacklistEdit, seed: BlacklistChange | null): Promise<BlacklistChange | null> {
    return this.#write(async (c) => {
      const note = edit.note ?? null;
      // One statement either way: the row's own note is what an undefined note keeps.
      const { rows } = seed
        ? await c.query(
          `INSERT INTO blacklist VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (asn) DO UPDATE SET
             disabled = EXCLUDED.disabled, note = COALESCE($9, blacklist.note), updated_at = EXCLUDED.updated_at RETURNING *`,
          [...this.#blacklistValues({ ...seed, disabled: edit.disabled, note: edit.note ?? seed.note, updatedAt: edit.updatedAt }), note],
        )
        : await c.query('UPDATE blacklist SET disabled = $2, note = COALESCE($3, note), updated_at = $4 WHERE asn = $1 RETURNING *', [asn, edit.disabled, note, edit.updatedAt]);
      if (rows.length === 0) return { out: null, changes: [] };
      const record = blacklistOf(rows[0]);
      return { out: record, changes: [{ kind: 'blacklist', key: asn, record }] };
    });
  }

  removeBlacklistEntry(asn: number): Promise<boolean> {
    return this.#write(async (c) => {
      const { rows } = await c.query('DELETE FROM blacklist WHERE asn = $1 RETURNING asn', [asn]);
      return { out: rows.length > 0, changes: rows.length > 0 ? [{ kind: 'blacklist', key: asn, record: null }] : [] };
    });
  }

  putState(entries: Readonly<Record<string, unknown>>): Promise<void> {
    return this.#write(async (c) => ({ out: undefined, changes: await this.#putState(c, entries) }));
  }

  updateState(name: string, change: (current: unknown) => unknown): Promise<boolean> {
    return this.#write(async (c) => {
      for (;;) {
        const { rows } = await c.query('SELECT value FROM state WHERE name = $1 FOR UPDATE', [name]);
        const next = change(rows[0]?.value);
        if (next === undefined) return { out: false, changes: [] };
        if (rows.length > 0 || next === null) return { out: true, changes: await this.#putState(c, { [name]: next }) };
        // No row to lock: insert unless another transaction inserted one
        // meanwhile (this waits for it to end); then read that one under its lock.
        const inserted = await c.query('INSERT INTO state (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING 1', [name, JSON.stringify(next)]);
        if (inserted.rows.length > 0) return { out: true, changes: [{ kind: 'state', key: name, record: next }] };
      }
    });
  }

  async #putState(c: PoolClient, entries: Readonly<Record<string, unknown>>): Promise<NewChange[]> {
    const changes: NewChange[] = [];
    for (const [name, value] of Object.entries(entries)) {
      if (value === null) await c.query('DELETE FROM state WHERE name = $1', [name]);
      else await c.query('INSERT INTO state (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value', [name, JSON.stringify(value)]);
      changes.push({ kind: 'state', key: name, record: value });
    }
    return changes;
  }

  claimRefreshTrigger(accountId: number, now: number, intervalMs: number): Promise<number> {
    return this.#write(async (c) => {
      // The upsert answers a row only when it took the allowance; a
      // concurrent claim waits on the row and then finds it taken.
      const taken = await c.query(
        `INSERT INTO refresh_triggers (account_id, last_at) VALUES ($1, $2)
         ON CONFLICT (account_id) DO UPDATE SET last_at = EXCLUDED.last_at
           WHERE refresh_triggers.last_at <= $2 - $3 OR refresh_triggers.last_at >= $2 + $3 RETURNING 1`,
        [accountId, now, intervalMs],
      );
      if (taken.rows.length > 0) return { out: 0, changes: [] };
      const { rows } = await c.query('SELECT last_at FROM refresh_triggers WHERE account_id = $1', [accountId]);
      return { out: rows[0].last_at as number, changes: [] };
    });
  }

  /** Publishes the file: the newest row of ipdb_files, announced by an 'ipdb' change every node follows (pg/ipdb.ts). */
  databaseInstalled(file: string, state: Readonly<Record<string, unknown>> = {}): Promise<void> {
    const data = readFileSync(file);
    const sha256 = createHash('sha256').update(data).digest('hex');
    return this.#write(async (c) => {
      const changes = await this.#putState(c, state);
      const { rows } = await c.query(
        `INSERT INTO ipdb_files (version, sha256, size, data, published_by)
         SELECT coalesce(max(version), 0) + 1, $1, $2, $3, $4 FROM ipdb_files RETURNING version`,
        [sha256, data.length, data, this.#node],
      );
      const version = rows[0].version as number;
      await c.query('DELETE FROM ipdb_files WHERE version <= $1', [version - IPDB_FILES_KEPT]);
      changes.push({ kind: 'ipdb', key: version, record: { version, sha256, size: data.length } });
      return { out: undefined, changes };
    });
  }

  /**
   * One statement: the writer's claim on `batch.seq` in click_flushes and
   * the counters, added only when the claim succeeded (the sequence is newer
   * than the last one taken), so a batch sent again is counted once. The
   * rows are upserted in (route, day) order: a batch comes in the order its
   * counters were first touched, and two nodes' batches over the same route
   * days in different orders locked them crosswise and deadlocked.
   */
  async addClicks(batchDays: readonly DayCounts[], batch?: { writer: string; seq: number }): Promise<void> {
    const days = [...batchDays].sort(byRouteDay);
    const columns = DAY_FIELDS.map((f) => days.map((d) => d.counts[f]));
    const add = DAY_FIELDS.map((f) => `${f} = route_days.${f} + EXCLUDED.${f}`).join(', ');
    const n = DAY_FIELDS.length + 2;
    await this.#query(
      `WITH claim AS (
         INSERT INTO click_flushes (node, seq) SELECT $${n + 1}::text, $${n + 2}::bigint WHERE $${n + 1}::text IS NOT NULL
         ON CONFLICT (node) DO UPDATE SET seq = EXCLUDED.seq WHERE click_flushes.seq < EXCLUDED.seq RETURNING 1)
       INSERT INTO route_days (route_id, day, ${DAY_FIELDS.join(', ')})
       SELECT * FROM unnest($1::bigint[], $2::int[], ${DAY_FIELDS.map((_, i) => `$${i + 3}::bigint[]`).join(', ')})
        WHERE $${n + 1}::text IS NULL OR EXISTS (SELECT 1 FROM claim)
       ON CONFLICT (route_id, day) DO UPDATE SET ${add}`,
      [days.map((d) => d.routeId), days.map((d) => d.day), ...columns, batch?.writer ?? null, batch?.seq ?? null],
    );
  }

  async lastClickBatch(writer: string): Promise<number> {
    const rows = await this.#query('SELECT seq FROM click_flushes WHERE node = $1', [writer]);
    return rows.length > 0 ? Number(rows[0].seq) : 0;
  }

  async readDays(routeId: number, from: number, to: number): Promise<Map<number, DayStats>> {
    const rows = await this.#query('SELECT * FROM route_days WHERE route_id = $1 AND day BETWEEN $2 AND $3', [routeId, from, to]);
    return new Map(rows.map((r) => [r.day as number, dayOf(r)]));
  }

  /** A transaction of experiment data: read by this node from PostgreSQL, never replicated. */
  async #experimentWrite<T>(work: (c: PoolClient) => Promise<T>): Promise<T> {
    if (!this.#connected()) throw unavailable();
    return inTransaction(this.#pool, work);
  }

  /**
   * Clicks per variant add up; sketches merge register by register into the
   * day's and the lifetime's (day 0). A statement for the variant days, then
   * three for each SKETCH_ROWS sketch rows (mergeSketches), whatever the
   * batch's size: a statement per sketch, two per row read and written, made
   * a flush of a tenant's 1,000 routes of 8 variants 32,000 round trips. The
   * claim is the writer's row of click_flushes (its name is not a click
   * writer's), taken first in the same transaction.
   */
  addVisits(batch: readonly VisitCounts[], claim?: { writer: string; seq: number }, sketchesFrom = -Infinity): Promise<void> {
    return this.#experimentWrite(async (c) => {
      if (claim) {
        const taken = await c.query(
          `INSERT INTO click_flushes (node, seq) VALUES ($1, $2)
           ON CONFLICT (node) DO UPDATE SET seq = EXCLUDED.seq WHERE click_flushes.seq < EXCLUDED.seq RETURNING 1`,
          [claim.writer, claim.seq],
        );
        if (taken.rowCount === 0) return;
      }
      const { clicks, sketches } = visitRows(batch, sketchesFrom);
      if (clicks.length > 0) {
        await c.query(
          `INSERT INTO variant_days (route_id, day, clicks)
           SELECT r, d, n::float8[] FROM unnest($1::bigint[], $2::int[], $3::text[]) AS u(r, d, n)
           ON CONFLICT (route_id, day) DO UPDATE SET clicks = ARRAY(
             SELECT coalesce(o, 0) + coalesce(n, 0) FROM unnest(variant_days.clicks, EXCLUDED.clicks) AS t(o, n))`,
          [clicks.map((v) => v.routeId), clicks.map((v) => v.day), clicks.map((v) => `{${v.clicks.join(',')}}`)],
        );
      }
      for (let at = 0; at < sketches.length; at += SKETCH_ROWS) await mergeSketches(c, sketches.slice(at, at + SKETCH_ROWS));
    });
  }

  async readVariantDays(routeId: number, from: number, to: number): Promise<Map<number, number[]>> {
    const rows = await this.#query('SELECT day, clicks FROM variant_days WHERE route_id = $1 AND day BETWEEN $2 AND $3', [routeId, from, to]);
    return new Map(rows.map((r) => [r.day as number, r.clicks as number[]]));
  }

  /** Idempotent, so every node runs it (pg/sketch-prune.ts); refused at once while PostgreSQL is known to be away. */
  async pruneSketches(before: number, going?: () => boolean): Promise<number> {
    if (!this.#connected()) throw unavailable();
    try {
      return await prunePgSketches(this.#pool, before, going);
    } catch (err) {
      throw storageError(err);
    }
  }

  async readSketches(routeId: number, days: readonly number[]): Promise<Map<number, (Uint8Array | undefined)[]>> {
    const rows = await this.#query('SELECT day, variant, registers FROM sketches WHERE route_id = $1 AND day = ANY($2::int[])', [routeId, [...days]]);
    const out = new Map<number, (Uint8Array | undefined)[]>();
    for (const r of rows) {
      let row = out.get(r.day as number);
      if (!row) out.set(r.day as number, (row = []));
      row[r.variant as number] = new Uint8Array(r.registers as Buffer);
    }
    return out;
  }

  /**
   * Each conversion is inserted once per (route, goal, visitor) (the primary
   * key decides a race between nodes); the day counters of the new ones are
   * added up per (route, day, goal) in the same transaction. The routes' rows
   * are locked first (FOR UPDATE, in id order): a deletion then either
   * commits before (the route's conversions are refused as route_gone) or
   * waits for this commit and takes the new conversions with the route's
   * data; and a goal this node has not seen stored for its route is checked
   * against GOAL_LIMIT while nodes adding new goals to one route take turns.
   * Then the accounts' rows of account_conversions (made if missing, in id
   * order): nodes adding conversions for one account take turns on its
   * count, read once and written once a transaction, so racing nodes never
   * pass the quota. Taking them also marks the transaction as one that
   * counts its own (splitguard.counting), which the trigger of migration 5,
   * there for the writes of an older node, leaves alone. deleteRoute takes
   * the same locks in the same order.
   */
  addConversions(items: readonly ConversionInput[], quota: number): Promise<ConversionOutcome[]> {
    return this.#experimentWrite(async (c) => {
      const ids = [...new Set(items.map((i) => i.routeId))].sort((x, y) => x - y);
      const locked = await c.query('SELECT id FROM routes WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE', [ids]);
      const live = new Set(locked.rows.map((r) => Number(r.id)));
      const accounts = [...new Set(items.filter((i) => live.has(i.routeId)).map((i) => i.accountId))].sort((x, y) => x - y);
      /** Account id → the conversions it stores, with this transaction's own. */
      const stored = new Map<number, { was: number; now: number }>();
      if (accounts.length > 0) {
        // The no-op update locks an existing row; unnest keeps the sorted order, in which the rows are taken.
        // set_config in the same statement: no round trip of its own (its value is not read here).
        const { rows } = await c.query(
          `INSERT INTO account_conversions (account_id, stored) SELECT a, 0 FROM unnest($1::bigint[]) AS u(a)
           ON CONFLICT (account_id) DO UPDATE SET stored = account_conversions.stored
           RETURNING account_id, stored, set_config('splitguard.counting', 'on', true)`,
          [accounts],
        );
        for (const r of rows) stored.set(Number(r.account_id), { was: Number(r.stored), now: Number(r.stored) });
      }
      const unseen = [...new Set(items.filter((i) => live.has(i.routeId) && !this.#goalsSeen.has(i.routeId, i.goal)).map((i) => i.routeId))];
      /** route → its stored goals, for the routes with a goal not yet seen here. */
      const goals = new Map<number, Set<string>>();
      if (unseen.length > 0) {
        for (const id of unseen) goals.set(id, new Set());
        const { rows } = await c.query('SELECT DISTINCT route_id, goal FROM conversions WHERE route_id = ANY($1::bigint[])', [unseen]);
        for (const r of rows) goals.get(Number(r.route_id))!.add(r.goal as string);
      }
      const days = new Map<string, { routeId: number; day: number; goal: string; count: number[]; value: number[] }>();
      const out: ConversionOutcome[] = [];
      for (const item of items) {
        if (!live.has(item.routeId)) {
          out.push('route_gone');
          continue;
        }
        const routeGoals = goals.get(item.routeId);
        if (item.goal !== DEFAULT_GOAL && routeGoals && !routeGoals.has(item.goal) && routeGoals.size - (routeGoals.has(DEFAULT_GOAL) ? 1 : 0) >= GOAL_LIMIT) {
          out.push('goal_limit');
          continue;
        }
        const count = stored.get(item.accountId)!;
        if (quota > 0 && count.now >= quota) {
          // At the quota a repeat is still a duplicate; nothing is stored either way.
          const held = await c.query('SELECT 1 FROM conversions WHERE route_id = $1 AND goal = $2 AND visitor = $3', [item.routeId, item.goal, item.visitor]);
          out.push(held.rows.length > 0 ? 'duplicate' : 'quota');
          continue;
        }
        const { rowCount } = await c.query(
          `INSERT INTO conversions (route_id, goal, visitor, variant, day, at, value) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT DO NOTHING`,
          [item.routeId, item.goal, item.visitor, item.variant, item.day, item.at, item.value],
        );
        routeGoals?.add(item.goal);
        const duplicate = rowCount === 0;
        out.push(duplicate ? 'duplicate' : 'counted');
        if (duplicate) continue;
        count.now++;
        const id = `${item.routeId}/${item.day}/${item.goal}`;
        let d = days.get(id);
        if (!d) days.set(id, (d = { routeId: item.routeId, day: item.day, goal: item.goal, count: [], value: [] }));
        d.count[item.variant] = (d.count[item.variant] ?? 0) + 1;
        d.value[item.variant] = (d.value[item.variant] ?? 0) + (item.value ?? 0);
      }
      for (const d of [...days.values()].sort((x, y) => x.routeId - y.routeId || x.day - y.day || (x.goal < y.goal ? -1 : 1))) {
        const dense = (a: number[]) => Array.from(a, (n) => n ?? 0);
        await c.query(
          `INSERT INTO conversion_days (route_id, day, goal, count, value) VALUES ($1, $2, $3, $4::float8[], $5::float8[])
           ON CONFLICT (route_id, day, goal) DO UPDATE SET
             count = ARRAY(SELECT coalesce(o, 0) + coalesce(n, 0) FROM unnest(conversion_days.count, EXCLUDED.count) AS t(o, n)),
             value = ARRAY(SELECT coalesce(o, 0) + coalesce(n, 0) FROM unnest(conversion_days.value, EXCLUDED.value) AS t(o, n))`,
          [d.routeId, d.day, d.goal, dense(d.count), dense(d.value)],
        );
      }
      const grown = [...stored].filter(([, n]) => n.now !== n.was);
      if (grown.length > 0) {
        await c.query('UPDATE account_conversions a SET stored = u.n FROM unnest($1::bigint[], $2::bigint[]) AS u(id, n) WHERE a.account_id = u.id', [
          grown.map(([id]) => id), grown.map(([, n]) => n.now),
        ]);
      }
      return out;
    }).then((out) => this.#goalsSeen.remember(items, out));
  }

  /** (route, goal) pairs known stored: their conversions need no goal check (GoalsSeen). */
  readonly #goalsSeen = new GoalsSeen();

  /** Known to be away: refused at once (storage_unavailable), as a write is, rather than after a connect timeout. */
  async storedConversions(accountId: number): Promise<number> {
    if (!this.#connected()) throw unavailable();
    const rows = await this.#query('SELECT stored FROM account_conversions WHERE account_id = $1', [accountId]);
    return rows.length === 0 ? 0 : Number(rows[0].stored);
  }

  async readConversionDays(routeId: number, from: number, to: number): Promise<Map<number, Map<string, number[]>>> {
    const rows = await this.#query('SELECT day, goal, count FROM conversion_days WHERE route_id = $1 AND day BETWEEN $2 AND $3', [routeId, from, to]);
    const out = new Map<number, Map<string, number[]>>();
    for (const r of rows) {
      let goals = out.get(r.day as number);
      if (!goals) out.set(r.day as number, (goals = new Map()));
      goals.set(r.goal as string, r.count as number[]);
    }
    return out;
  }

  /**
   * The first node to store a secret sets it for the cluster; each node keeps
   * it in its replica (where Secrets reads it first), so a node restarted
   * while PostgreSQL is away still has it.
   */
  async ensureSecret(name: string, value: Uint8Array): Promise<Uint8Array> {
    const rows = await this.#experimentWrite(async (c) => {
      await c.query('INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING', [name, Buffer.from(value)]);
      return (await c.query('SELECT value FROM secrets WHERE name = $1', [name])).rows;
    });
    const secret = new Uint8Array(rows[0].value as Buffer);
    await this.#replica.keepLocal(`secret:${name}`, secret);
    return secret;
  }

  close(until?: number): Promise<void> {
    return closePool(this.#pool, until);
  }
}
