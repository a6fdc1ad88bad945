// Moving in (splitguard cluster import): copies a single-node data
// directory's store into the cluster's PostgreSQL, in one transaction, with
// the change log entries every replica needs. Idempotent: each record is
// inserted unless its key is there already (accounts, routes and keys by id,
// users by email, codes, blacklist entries by ASN, click days by route and
// day), so a second run adds nothing and counts everything as skipped.
//
// Meant for an empty cluster database, before the first node starts (a
// started node bootstraps its own account 1, with which an imported
// account 1 would collide and be skipped: the counts show it).
import { openStores, type Stores } from '../db.js';
import { appendChanges, type NewChange } from './changes.js';
import { createPool, inTransaction, type Pool, type PoolClient, storageError } from './client.js';
import { type ClusterReport, clusterStatus } from './status.js';
import { migrate } from './migrations.js';
import { accountOf, blacklistOf, DAY_FIELDS, keyOf, routeOf, userOf, experimentOf } from './records.js';

interface ImportCount {
  imported: number;
  skipped: number;
}

export type ImportCounts = Record<'accounts' | 'api_keys' | 'users' | 'route_codes' | 'routes' | 'blacklist' | 'route_days', ImportCount>;

/** Rows per INSERT statement. */
const CHUNK = 5000;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** Inserts `rows` (column arrays by unnest), returning the inserted rows. */
async function insert(c: PoolClient, table: string, columns: string[], types: string[], rows: unknown[][], conflict: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const part of chunks(rows)) {
    const params = columns.map((_, i) => part.map((r) => r[i]));
    const { rows: inserted } = await c.query(
      `INSERT INTO ${table} (${columns.join(', ')}) SELECT * FROM unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})
       ON CONFLICT (${conflict}) DO NOTHING RETURNING *`,
      params,
    );
    out.push(...inserted);
  }
  return out;
}

async function importStore(pool: Pool, s: Stores): Promise<ImportCounts> {
  await migrate(pool).catch((err: unknown) => {
    throw storageError(err);
  });
  return inTransaction(pool, async (c) => {
    const changes: NewChange[] = [];
    const count = (total: number, imported: number): ImportCount => ({ imported, skipped: total - imported });

    const accounts = [...s.accounts.getRange()].map(({ value: a }) => [a.id, a.name, Boolean(a.admin), a.quota, a.routesCreated, a.routesActive ?? 0, a.createdAt]);
    const accountRows = await insert(c, 'accounts', ['id', 'name', 'admin', 'quota', 'routes_created', 'routes_active', 'created_at'],
      ['bigint', 'text', 'boolean', 'int', 'int', 'int', 'timestamptz'], accounts, 'id');
    for (const r of accountRows) changes.push({ kind: 'account', key: r.id as number, record: accountOf(r) });

    const keys = [...s.keys.getRange()].map(({ value: k }) => [k.id, k.hash, k.accountId, k.name, k.prefix, k.admin, k.createdAt, k.lastUsedAt, k.revokedAt]);
    const keyRows = await insert(c, 'api_keys', ['id', 'hash', 'account_id', 'name', 'prefix', 'admin', 'created_at', 'last_used_at', 'revoked_at'],
      ['text', 'text', 'bigint', 'text', 'text', 'boolean', 'timestamptz', 'timestamptz', 'timestamptz'], keys, 'id');
    for (const r of keyRows) changes.push({ kind: 'key', key: r.hash as string, record: keyOf(r) });

    const users = [...s.users.getRange()].map(({ value: u }) => [u.email, u.passwordHash, u.admin, u.accountId, u.createdAt]);
    const userRows = await insert(c, 'users', ['email', 'password_hash', 'admin', 'account_id', 'created_at'], ['text', 'text', 'boolean', 'bigint', 'timestamptz'], users, 'email');
    for (const r of userRows) changes.push({ kind: 'user', key: r.email as string, record: userOf(r) });

    // Every code ever given out, deleted routes' included: never reused in the cluster either.
    const codes = [...s.codes.getKeys()].map((code) => [code]);
    const codeRows = await insert(c, 'route_codes', ['code'], ['text'], codes, 'code');

    const routes = [...s.routes.getRange()].map(({ value: r }) => [
      r.id, r.accountId, r.code, r.name, r.pageA, r.pageB, r.splitRatio, r.defaultGroup, r.interceptLevel,
      r.variants ? JSON.stringify(experimentOf(r)) : null, r.createdAt, r.updatedAt,
    ]);
    const routeRows = await insert(c, 'routes',
      ['id', 'account_id', 'code', 'name', 'page_a', 'page_b', 'split_ratio', 'default_group', 'intercept_level', 'experiment', 'created_at', 'updated_at'],
      ['bigint', 'bigint', 'text', 'text', 'text', 'text', 'float8', 'text', 'text', 'jsonb', 'timestamptz', 'timestamptz'], routes, 'id');
    for (const r of routeRows) changes.push({ kind: 'route', key: r.code as string, record: routeOf(r) });

    const blacklist = [...s.blacklist.getRange()].map(({ value: b }) => [b.asn, b.builtIn, b.disabled, b.provider, b.category, b.level, b.note, b.updatedAt]);
    const blacklistRows = await insert(c, 'blacklist', ['asn', 'built_in', 'disabled', 'provider', 'category', 'level', 'note', 'updated_at'],
      ['bigint', 'boolean', 'boolean', 'text', 'text', 'text', 'text', 'text'], blacklist, 'asn');
    for (const r of blacklistRows) changes.push({ kind: 'blacklist', key: r.asn as number, record: blacklistOf(r) });

    const days = [...s.stats.getRange()].map(({ key, value }) => [key[0], key[1], ...DAY_FIELDS.map((f) => value[f] ?? 0)]);
    const dayRows = await insert(c, 'route_days', ['route_id', 'day', ...DAY_FIELDS], ['bigint', 'int', ...DAY_FIELDS.map(() => 'bigint')], days, 'route_id, day');

    // New ids continue after every id the node ever gave (deleted routes' too: ids are never reused either).
    const given = (name: string) => (s.meta.get(`seq:${name}`) as number | undefined) ?? 0;
    // (setval's third argument false: an empty import leaves the next id at 1.)
    for (const [sequence, table, name] of [['account_ids', 'accounts', 'account'], ['route_ids', 'routes', 'route']]) {
      await c.query(
        `SELECT setval('${sequence}', greatest(v, 1), v > 0) FROM (SELECT greatest(coalesce(max(id), 0), $1, (SELECT last_value FROM ${sequence} WHERE is_called)) AS v FROM ${table}) m`,
        [given(name)],
      );
    }
    for (const part of chunks(changes)) await appendChanges(c, part);

    return {
      accounts: count(accounts.length, accountRows.length),
      api_keys: count(keys.length, keyRows.length),
      users: count(users.length, userRows.length),
      route_codes: count(codes.length, codeRows.length),
      routes: count(routes.length, routeRows.length),
      blacklist: count(blacklist.length, blacklistRows.length),
      route_days: count(days.length, dayRows.length),
    };
  });
}

/** Imports the store of `dataDir` (opened, and closed again) into the PostgreSQL at `url`. */
export async function importDataDir(dataDir: string, url: string): Promise<ImportCounts> {
  const stores = openStores(dataDir);
  const pool = createPool(url, 'splitguard cluster import', 2);
  try {
    return await importStore(pool, stores);
  } finally {
    await pool.end();
    await stores.root.close();
  }
}

/** `cluster status` against the PostgreSQL at `url`. */
export async function statusOf(url: string): Promise<ClusterReport> {
  const pool = createPool(url, 'splitguard cluster status', 1);
  try {
    return await clusterStatus(pool);
  } catch (err) {
    throw storageError(err);
  } finally {
    await pool.end();
  }
}
