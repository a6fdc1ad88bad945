// Moving in (splitguard cluster import): copies a single-node data
// directory's store into the cluster's PostgreSQL, in one transaction, with
// the change log entries every replica needs. Idempotent: each record is
// inserted unless its key is there already (accounts, routes and keys by id,
// users by email, codes, blacklist entries by ASN, click days by route and
// day), so a second run adds nothing and counts everything as skipped.
//
// Meant for an empty cluster database, before the first node starts. A
// record the cluster already holds under an imported id or email, but
// another than the imported one (a started node bootstraps its own account
// 1), refuses the whole import: the imported keys, users and routes would
// go to that other record's owner.
//
// Experiment data comes along (clicks per variant, unique-visitor sketches,
// conversions and their day counters) with the click-id secret, so that the
// click ids the node issued still convert in the cluster.
import { AppError } from '../../errors.js';
import { CLICK_ID_SECRET } from '../../experiments/click-id.js';
import { openStores, type Stores } from '../db.js';
import { LmdbBackend } from '../lmdb-backend.js';
import { Experiments } from '../experiments-store.js';
import { appendChanges, type NewChange } from './changes.js';
import { createPool, inTransaction, type Pool, type PoolClient, storageError } from './client.js';
import { type ClusterReport, clusterStatus } from './status.js';
import { migrate } from './migrations.js';
import { accountOf, blacklistOf, DAY_FIELDS, keyOf, routeOf, sessionOf, userOf, experimentOf } from './records.js';

interface ImportCount {
  imported: number;
  skipped: number;
}

export type ImportCounts = Record<
  'accounts' | 'api_keys' | 'users' | 'sessions' | 'route_codes' | 'routes' | 'blacklist' | 'route_days' | 'variant_days' | 'sketches' | 'conversions' | 'conversion_days' | 'secrets',
  ImportCount
>;

/**
 * Refuses the import when the cluster holds, under an id or email this
 * store uses, a record that is not this store's own (an earlier import of it
 * is: the import is idempotent).
 */
async function refuseClashes(c: PoolClient, s: Stores): Promise<void> {
  const clash = (what: string) => {
    throw new AppError('cli_failed', `cluster import: the cluster already holds ${what}; nothing was imported. Import into an empty cluster database, before the first node starts (docs/cluster.md)`);
  };
  const accounts = [...s.accounts.getRange()].map(({ value }) => value);
  const { rows: held } = await c.query('SELECT id, name, created_at FROM accounts WHERE id = ANY($1::bigint[])', [accounts.map((a) => a.id)]);
  for (const row of held) {
    const mine = s.accounts.get(Number(row.id))!;
    const made = (row.created_at as Date).toISOString();
    if (mine.name !== row.name || Date.parse(mine.createdAt) !== Date.parse(made)) {
      clash(`account ${row.id} ("${row.name}", made ${made}), another than this directory's ("${mine.name}", made ${mine.createdAt})`);
    }
  }
  const routes = [...s.routes.getRange()].map(({ value }) => value);
  const { rows: heldRoutes } = await c.query('SELECT id, code FROM routes WHERE id = ANY($1::bigint[])', [routes.map((r) => r.id)]);
  for (const row of heldRoutes) if (s.routes.get(Number(row.id))!.code !== row.code) clash(`route ${row.id} (code ${row.code}), another than this directory's`);
  const users = [...s.users.getRange()].map(({ value }) => value);
  const { rows: heldUsers } = await c.query('SELECT email, account_id FROM users WHERE email = ANY($1::text[])', [users.map((u) => u.email)]);
  for (const row of heldUsers) if (s.users.get(row.email as string)!.accountId !== Number(row.account_id)) clash(`the user ${row.email}, of another account than in this directory`);
}

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

/**
 * insert() for tables with array columns (unnest cannot take an array of
 * arrays): the rows travel as one JSON array of objects, read back by
 * jsonb_to_recordset with `columns` (names and types, as in the table).
 */
async function insertJson(c: PoolClient, table: string, columns: string, rows: Record<string, unknown>[], conflict: string): Promise<Record<string, unknown>[]> {
  const names = columns.split(',').map((col) => col.trim().split(' ')[0]);
  const out: Record<string, unknown>[] = [];
  for (const part of chunks(rows)) {
    const { rows: inserted } = await c.query(
      `INSERT INTO ${table} (${names.join(', ')}) SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(${columns})
       ON CONFLICT (${conflict}) DO NOTHING RETURNING *`,
      [JSON.stringify(part)],
    );
    out.push(...inserted);
  }
  return out;
}

const count = (total: number, imported: number): ImportCount => ({ imported, skipped: total - imported });

/** The records (accounts, keys, users, console sessions, codes, routes, the blacklist); each inserted one is also a change for `changes`, which the nodes replay. */
async function importRecords(c: PoolClient, s: Stores, changes: NewChange[]): Promise<Pick<ImportCounts, 'accounts' | 'api_keys' | 'users' | 'sessions' | 'route_codes' | 'routes' | 'blacklist'>> {
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

  // Signed-in console users stay signed in; an expired session comes along and is refused and swept as before.
  const sessions = [...s.sessions.getRange()].map(({ key, value: v }) => [key, v.email, v.csrf, v.createdAt, v.lastSeenAt]);
  const sessionRows = await insert(c, 'sessions', ['hash', 'email', 'csrf', 'created_at', 'last_seen_at'], ['text', 'text', 'text', 'bigint', 'bigint'], sessions, 'hash');
  for (const r of sessionRows) changes.push({ kind: 'session', key: r.hash as string, record: sessionOf(r) });

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

  return {
    accounts: count(accounts.length, accountRows.length),
    api_keys: count(keys.length, keyRows.length),
    users: count(users.length, userRows.length),
    sessions: count(sessions.length, sessionRows.length),
    route_codes: count(codes.length, codeRows.length),
    routes: count(routes.length, routeRows.length),
    blacklist: count(blacklist.length, blacklistRows.length),
  };
}

/** The counters, the experiments' data and the click-id secret: nodes read these from PostgreSQL, no change names them. */
async function importCounters(c: PoolClient, s: Stores): Promise<Pick<ImportCounts, 'route_days' | 'variant_days' | 'sketches' | 'conversions' | 'conversion_days' | 'secrets'>> {
  const days = [...s.stats.getRange()].map(({ key, value }) => [key[0], key[1], ...DAY_FIELDS.map((f) => value[f] ?? 0)]);
  const dayRows = await insert(c, 'route_days', ['route_id', 'day', ...DAY_FIELDS], ['bigint', 'int', ...DAY_FIELDS.map(() => 'bigint')], days, 'route_id, day');

  const dense = (a: readonly (number | undefined)[]) => Array.from(a, (n) => n ?? 0);
  const variantDays = [...s.variantDays.getRange()].map(({ key, value }) => ({ route_id: key[0], day: key[1], clicks: dense(value.clicks) }));
  const variantDayRows = await insertJson(c, 'variant_days', 'route_id bigint, day int, clicks float8[]', variantDays, 'route_id, day');
  const sketches = [...s.sketches.getRange()].map(({ key, value }) => [key[0], key[1], key[2], Buffer.from(value)]);
  const sketchRows = await insert(c, 'sketches', ['route_id', 'day', 'variant', 'registers'], ['bigint', 'int', 'smallint', 'bytea'], sketches, 'route_id, day, variant');
  const conversions = [...s.conversions.getRange()].map(({ key, value }) => [key[0], key[1], key[2], value.variant, value.day, value.at, value.value]);
  const conversionRows = await insert(c, 'conversions', ['route_id', 'goal', 'visitor', 'variant', 'day', 'at', 'value'],
    ['bigint', 'text', 'text', 'smallint', 'int', 'bigint', 'float8'], conversions, 'route_id, goal, visitor');
  // Each imported account's count of stored conversions (the quota's), as the cluster now holds them: idempotent like the rest.
  await c.query(
    `INSERT INTO account_conversions (account_id, stored)
     SELECT a, (SELECT count(*) FROM conversions c JOIN routes r ON r.id = c.route_id WHERE r.account_id = a) FROM unnest($1::bigint[]) AS u(a)
     ON CONFLICT (account_id) DO UPDATE SET stored = EXCLUDED.stored`,
    [[...s.accounts.getKeys()]],
  );
  const conversionDays = [...s.conversionDays.getRange()].map(({ key, value }) => ({ route_id: key[0], day: key[1], goal: key[2], count: dense(value.count), value: dense(value.value) }));
  const conversionDayRows = await insertJson(c, 'conversion_days', 'route_id bigint, day int, goal text, count float8[], value float8[]', conversionDays, 'route_id, day, goal');
  // The click-id secret: the cluster's own wins if it has one (the counts show it skipped).
  const secret = s.meta.get(`secret:${CLICK_ID_SECRET}`) as Uint8Array | undefined;
  const secretRows = secret ? (await c.query('INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING name', [CLICK_ID_SECRET, Buffer.from(secret)])).rows : [];
  return {
    route_days: count(days.length, dayRows.length),
    variant_days: count(variantDays.length, variantDayRows.length),
    sketches: count(sketches.length, sketchRows.length),
    conversions: count(conversions.length, conversionRows.length),
    conversion_days: count(conversionDays.length, conversionDayRows.length),
    secrets: count(secret ? 1 : 0, secretRows.length),
  };
}

/** New ids continue after every id the node ever gave (deleted routes' too: ids are never reused either). */
async function continueSequences(c: PoolClient, s: Stores): Promise<void> {
  const given = (name: string) => (s.meta.get(`seq:${name}`) as number | undefined) ?? 0;
  // (setval's third argument false: an empty import leaves the next id at 1.)
  for (const [sequence, table, name] of [['account_ids', 'accounts', 'account'], ['route_ids', 'routes', 'route']]) {
    await c.query(
      `SELECT setval('${sequence}', greatest(v, 1), v > 0) FROM (SELECT greatest(coalesce(max(id), 0), $1, (SELECT last_value FROM ${sequence} WHERE is_called)) AS v FROM ${table}) m`,
      [given(name)],
    );
  }
}

async function importStore(pool: Pool, s: Stores): Promise<ImportCounts> {
  await migrate(pool).catch((err: unknown) => {
    throw storageError(err);
  });
  return inTransaction(pool, async (c) => {
    await refuseClashes(c, s);
    const changes: NewChange[] = [];
    const records = await importRecords(c, s, changes);
    const counters = await importCounters(c, s);
    await continueSequences(c, s);
    for (const part of chunks(changes)) await appendChanges(c, part);
    return { ...records, ...counters };
  });
}

/**
 * Imports the store of `dataDir` (opened, and closed again) into the
 * PostgreSQL at `url`; per-day sketches past `sketchDays`
 * (SPLITGUARD_SKETCH_DAYS) are deleted from the store first, as its own
 * server would, so that the cluster never holds what its nodes' retention
 * deletes.
 */
export async function importDataDir(dataDir: string, url: string, sketchDays: number): Promise<ImportCounts> {
  const stores = openStores(dataDir);
  const pool = createPool(url, 'splitguard cluster import', 2);
  try {
    const local = new LmdbBackend(stores);
    // Deleted routes whose data a stop left half removed: removed first, so none of it is carried over.
    await local.purgeDeletedRoutes();
    await new Experiments(local, null, { sketchDays }).pruneSketches();
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
