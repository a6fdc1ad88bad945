// A node's LMDB replica of what the redirect and authentication read:
// accounts, key hashes, users, sessions, routes and codes, blacklist edits
// and the refresh state, fed from the change log (migrations.ts).
//
// Applying is idempotent and safe from any thread or process: a pass reads
// the changes after the sequence the replica has applied (meta
// `replica_seq`), and applies them in one LMDB write transaction that
// re-reads that sequence first and applies only the changes that follow it,
// in order. So the main thread (woken by NOTIFY) and a server thread (after
// its own write: read-your-writes) can both apply without coordination; each
// change is applied once, together with its change-feed entry (feed.ts), and
// the process's threads are told when it has committed.
//
// A replica that is behind the oldest change kept (or ahead of the head: a
// different database) takes a snapshot: every replicated record, read in one
// repeatable-read transaction with the head's sequence.
//
// A sequence alone does not say which history it belongs to: a node started
// on another cluster's data directory, or a node that was away while
// PostgreSQL was restored from a dump and then written past its old
// sequence, would apply the changes after its number on top of records that
// history never had (another cluster's keys valid, new routes missing). So
// the replica also keeps the time PostgreSQL gave the last change it applied
// (`changes.at`, to the microsecond), and a pass whose change at that
// sequence has another time takes a snapshot; so does one with changes to
// apply when that change is no longer kept to tell.
import { log } from '../../log.js';
import { type Account, type ApiKey, type BlacklistChange, type ConsoleSession, accountKeyEntries, putKeyRecord, raiseIdCounter, removeKeyRecord, type Stores, type User } from '../db.js';
import { announce, type ChangeKind, recordChange, resetFeed } from '../feed.js';
import type { Route } from '../routes-store.js';
import { borrow, type Pool } from './client.js';
import { accountOf, blacklistOf, keyOf, routeOf, sessionOf, userOf } from './records.js';

/** The sequence of the last change the replica applied. */
const META_APPLIED = 'replica_seq';
/** That change's `at` (atText): which history the sequence belongs to. */
const META_APPLIED_AT = 'replica_at';
/**
 * changes.at as microseconds since the epoch, in text: the whole precision
 * (a Date would round it to milliseconds), and the same whatever the
 * session's TimeZone or DateStyle (`at::text` is not).
 */
const atText = (column: string) => `(extract(epoch FROM ${column}) * 1000000)::bigint::text`;
/** The database file the cluster serves (pg/ipdb.ts), as its 'ipdb' change carries it. */
export const META_PUBLISHED = 'ipdb_published';
const BATCH = 2000;

interface ChangeRow {
  seq: number;
  kind: ChangeKind;
  key: string;
  record: unknown;
  /** changes.at as atText gives it. */
  at: string;
}

function appliedSeq(stores: Stores): number {
  return (stores.meta.get(META_APPLIED) as number | undefined) ?? 0;
}

/** One change into the replica; inside its write transaction. */
function apply(s: Stores, c: ChangeRow): void {
  switch (c.kind) {
    case 'account':
      s.accounts.put(Number(c.key), c.record as Account);
      // PostgreSQL gives cluster ids; this store may serve alone again later (nextId).
      raiseIdCounter(s, 'account', Number(c.key));
      break;
    case 'key': {
      if (c.record === null) {
        // A revoked key removed for good (the key is its hash).
        const gone = s.keys.get(c.key);
        if (gone) removeKeyRecord(s, gone);
        break;
      }
      putKeyRecord(s, c.record as ApiKey);
      break;
    }
    case 'user':
      if (c.record === null) s.users.remove(c.key);
      else s.users.put(c.key, c.record as User);
      break;
    case 'session':
      if (c.record === null) s.sessions.remove(c.key);
      else s.sessions.put(c.key, c.record as ConsoleSession);
      break;
    case 'route':
      applyRoute(s, c.key, c.record as Route | null);
      break;
    case 'blacklist':
      if (c.record === null) s.blacklist.remove(Number(c.key));
      else s.blacklist.put(Number(c.key), c.record as BlacklistChange);
      break;
    case 'state':
      if (c.record === null) s.meta.remove(c.key);
      else s.meta.put(c.key, c.record);
      break;
    case 'ipdb':
      s.meta.put(META_PUBLISHED, c.record);
      break;
  }
  recordChange(s, c.kind, c.key);
}

/** A route by its code: the record, or null once deleted (the code stays taken). */
function applyRoute(s: Stores, code: string, route: Route | null): void {
  if (route !== null) {
    raiseIdCounter(s, 'route', route.id);
    s.routes.put(route.id, route);
    s.codes.put(code, route.id);
    s.accountRoutes.put([route.accountId, route.id], 1);
    return;
  }
  const id = s.codes.get(code);
  const old = id === undefined ? undefined : s.routes.get(id);
  if (old) {
    s.routes.remove(old.id);
    s.accountRoutes.remove([old.accountId, old.id]);
  }
}

export class Replica {
  readonly #stores: Stores;
  readonly #pool: Pool;
  #running: Promise<void> | null = null;
  #queued: Promise<void> | null = null;

  constructor(stores: Stores, pool: Pool) {
    this.#stores = stores;
    this.#pool = pool;
  }

  /**
   * Keeps a value this node read from PostgreSQL in the replica's meta, for
   * starts while PostgreSQL is away (a server secret: the same on every node).
   */
  async keepLocal(key: string, value: unknown): Promise<void> {
    await this.#stores.meta.put(key, value);
  }

  get applied(): number {
    return appliedSeq(this.#stores);
  }

  /**
   * Applies every change committed before the call. A pass already running
   * may have read the log before that: the call then waits for the next
   * pass, which every caller meanwhile shares.
   */
  catchUp(): Promise<void> {
    if (this.#running === null) {
      this.#running = this.#pass().finally(() => {
        this.#running = null;
      });
      return this.#running;
    }
    this.#queued ??= this.#running
      .catch(() => {})
      .then(() => {
        this.#queued = null;
        return this.catchUp();
      });
    return this.#queued;
  }

  /** Resolves once the replica holds change `seq` (a write's own, for read-your-writes). */
  async through(seq: number): Promise<void> {
    while (this.applied < seq) await this.catchUp();
  }

  async #pass(): Promise<void> {
    for (;;) {
      // The pair as one commit wrote it (no await between the reads): another thread may apply meanwhile.
      const from = this.applied;
      const fromAt = this.#stores.meta.get(META_APPLIED_AT) as string | undefined;
      // One statement, one snapshot: the head, the change at `from` and the changes after it agree.
      const { rows } = await this.#pool.query<ChangeRow & { head: number; from_at: string | null }>(
        `SELECT h.seq AS head, (SELECT ${atText('at')} FROM changes WHERE seq = $1) AS from_at, c.seq, c.kind, c.key, c.record, ${atText('c.at')} AS at
           FROM change_head h LEFT JOIN LATERAL (SELECT * FROM changes WHERE seq > $1 ORDER BY seq LIMIT $2) c ON true`,
        [from, BATCH],
      );
      const head = rows[0].head;
      const changes = rows[0].seq === null ? [] : rows;
      // Another history: PostgreSQL's change at `from` is not the one this
      // replica applied (or its time was never recorded: a replica from
      // before it was). When the change is no longer kept, nothing can be
      // told: a replica with nothing to apply stays, one with changes to
      // apply takes a snapshot (it cannot know what they follow).
      const pgAt = rows[0].from_at;
      const foreign = from > 0 && pgAt !== null && pgAt !== fromAt;
      const untold = from > 0 && pgAt === null;
      if (head === from && !foreign) return;
      if (foreign || untold || head < from || changes.length === 0 || changes[0].seq !== from + 1) {
        if (foreign && fromAt !== undefined) log('warn', 'replica_history_differs', { seq: from, replica_at: fromAt, postgres_at: pgAt });
        await this.snapshot();
        return;
      }
      await this.#stores.root.transaction(() => {
        let at = appliedSeq(this.#stores);
        let atTime: string | null = null;
        for (const c of changes) {
          if (c.seq <= at) continue;
          if (c.seq !== at + 1) break;
          apply(this.#stores, c);
          at = c.seq;
          atTime = c.at;
        }
        this.#stores.meta.put(META_APPLIED, at);
        if (atTime !== null) this.#stores.meta.put(META_APPLIED_AT, atTime);
      });
      announce(this.#stores);
      if (changes.length < BATCH) return;
    }
  }

  /** Replaces every replicated record by PostgreSQL's, as of one moment. */
  async snapshot(): Promise<void> {
    const lent = await borrow(this.#pool);
    const { client } = lent;
    const read = async (sql: string) => (await client.query(sql)).rows;
    let data: Record<string, Record<string, unknown>[]>;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      data = {
        head: await read(`SELECT h.seq, (SELECT ${atText('at')} FROM changes WHERE seq = h.seq) AS at FROM change_head h`),
        accounts: await read('SELECT * FROM accounts'),
        keys: await read('SELECT * FROM api_keys'),
        users: await read('SELECT * FROM users'),
        sessions: await read('SELECT * FROM sessions'),
        routes: await read('SELECT * FROM routes'),
        codes: await read('SELECT c.code, r.id FROM route_codes c LEFT JOIN routes r USING (code)'),
        blacklist: await read('SELECT * FROM blacklist'),
        state: await read('SELECT name, value FROM state'),
        ipdb: await read('SELECT version, sha256, size FROM ipdb_files ORDER BY version DESC LIMIT 1'),
      };
      await client.query('COMMIT');
    } finally {
      lent.release();
    }
    await this.#stores.root.transaction(() => this.#replaceAll(data));
    announce(this.#stores);
    log('info', 'replica_snapshot', { seq: data.head[0].seq, routes: data.routes.length, keys: data.keys.length });
  }

  #replaceAll(data: Record<string, Record<string, unknown>[]>): void {
    const s = this.#stores;
    for (const db of [s.accounts, s.keys, s.keyIds, s.users, s.sessions, s.routes, s.codes, s.accountRoutes, s.blacklist] as const) {
      for (const key of db.getKeys()) (db as { remove(k: unknown): unknown }).remove(key);
    }
    for (const key of [...s.meta.getKeys(accountKeyEntries())]) s.meta.remove(key);
    for (const r of data.accounts) s.accounts.put(r.id as number, accountOf(r));
    for (const r of data.keys) putKeyRecord(s, keyOf(r));
    for (const r of data.users) s.users.put(r.email as string, userOf(r));
    for (const r of data.sessions) s.sessions.put(r.hash as string, sessionOf(r));
    for (const r of data.routes) applyRoute(s, r.code as string, routeOf(r));
    // Codes of deleted routes stay known, with no route behind them (no route has id 0).
    for (const r of data.codes) if (r.id === null) s.codes.put(r.code as string, 0);
    for (const r of data.blacklist) s.blacklist.put(r.asn as number, blacklistOf(r));
    for (const r of data.state) s.meta.put(r.name as string, r.value);
    if (data.ipdb.length > 0) s.meta.put(META_PUBLISHED, data.ipdb[0]);
    s.meta.put(META_APPLIED, data.head[0].seq as number);
    // null at head 0 (nothing written yet): the next pass then has nothing to compare (from is 0).
    if (data.head[0].at === null) s.meta.remove(META_APPLIED_AT);
    else s.meta.put(META_APPLIED_AT, data.head[0].at as string);
    resetFeed(s);
  }
}
