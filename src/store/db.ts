// The LMDB environment: one per process thread, all on <data dir>/db. LMDB
// is multi-reader, single-writer across threads and processes, so the CLI can
// change accounts and keys while the server runs and every thread sees the
// change on its next read.
//
// Record kinds live in their own named databases. The schema version sits in
// `meta`; MIGRATIONS[n] moves a store from version n to n + 1.
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { AppError } from '../errors.js';
import type { VisitCounts } from './experiments-store.js';
import type { Change } from './feed.js';
import { storePagesProblem, storeProblem } from './lmdb-file.js';
import type { Route } from './routes-store.js';

export interface Account {
  id: number;
  name: string;
  /**
   * An operator account: keys the CLI makes for it carry admin rights. The
   * rights themselves are the key's (ApiKey.admin) or the console user's
   * (User.admin), never read from here at request time.
   */
  admin?: boolean;
  quota: number;
  /** Routes ever created (the lifetime quota counts these; deleting does not give one back). */
  routesCreated: number;
  /** Routes that exist now (the list total). Absent in records written before it existed. */
  routesActive?: number;
  createdAt: string;
}

export interface ApiKey {
  id: string;
  accountId: number;
  name: string;
  /** SHA-256 of the key, hex: the only form a key is stored in. */
  hash: string;
  /** The first characters of the key, safe to show and log. */
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** Admin rights (/v1/admin/...): those of whoever made the key, fixed at creation. */
  admin: boolean;
}

export interface User {
  email: string;
  /** scrypt$N$r$p$salt$hash, base64 parts. */
  passwordHash: string;
  admin: boolean;
  accountId: number;
  createdAt: string;
}

/** A console login session, stored under the SHA-256 (hex) of its cookie value. */
export interface ConsoleSession {
  email: string;
  /** Sent back in X-CSRF-Token on every console request that changes something. */
  csrf: string;
  /** ms since the epoch. */
  createdAt: number;
  lastSeenAt: number;
}

/**
 * The operator's changes to the ASN blacklist: a disabled built-in entry, or
 * a custom entry (builtIn false). Built-in entries themselves live in
 * src/quality/lists/asn-blacklist.json and are not copied here.
 */
export interface BlacklistChange {
  asn: number;
  builtIn: boolean;
  disabled: boolean;
  provider: string;
  category: string;
  level: 'low' | 'medium' | 'high';
  note: string;
  updatedAt: string;
}

/** An enable or disable of a blacklist entry (Backend.setBlacklistEnabled); a note left undefined is kept. */
export interface BlacklistEdit {
  disabled: boolean;
  note: string | undefined;
  updatedAt: string;
}

export interface Stores {
  root: RootDatabase;
  meta: Database<unknown, string>;
  accounts: Database<Account, number>;
  /** API keys by hash (the auth lookup). */
  keys: Database<ApiKey, string>;
  /** Key id → hash, for management by id. */
  keyIds: Database<string, string>;
  users: Database<User, string>;
  blacklist: Database<BlacklistChange, number>;
  routes: Database<Route, number>;
  /** Short-link code → route id; never removed, so codes are never reused. */
  codes: Database<number, string>;
  /** [account id, route id] → 1. */
  accountRoutes: Database<number, [number, number]>;
  /** [route id, UTC day number] → that day's counters. */
  stats: Database<DayStats, [number, number]>;
  /** Console sessions by the hash of their id (console/sessions.ts). */
  sessions: Database<ConsoleSession, string>;
  /** [route id, UTC day] → non-intercepted redirects per variant (index 0 = a). */
  variantDays: Database<VariantDay, [number, number]>;
  /** [route id, UTC day, variant] → HyperLogLog sketch (experiments/hll.ts); day 0 holds the route's lifetime. */
  sketches: Database<Uint8Array, [number, number, number]>;
  /** [route id, goal, visitor hash (16 hex digits)] → the conversion counted for it (one per visitor, route and goal). */
  conversions: Database<StoredConversion, [number, string, string]>;
  /** [route id, UTC day of the click, goal] → conversions per variant. */
  conversionDays: Database<ConversionDay, [number, number, string]>;
  /** The change feed's recent entries by sequence number (feed.ts). */
  feed: Database<Change, number>;
  /** Cluster mode: click batches waiting for PostgreSQL, by [writer slot, batch seq] (stats-store.ts). */
  clickSpill: Database<readonly SpilledDay[], [number, number]>;
  /** Cluster mode: visit batches a stop could not write, by [writer slot, batch seq] (experiments-store.ts). */
  visitSpill: Database<readonly VisitCounts[], [number, number]>;
  /**
   * The server's feed signal (SharedArrayBuffer, shared by its threads):
   * moved after every committed change, so every thread's caches look at
   * the feed on their next read (feed.ts). Null outside the server (CLI).
   */
  signal: Int32Array | null;
}

/** One route's counters for one UTC day (see redirect/clicks.ts). */
/**
 * A route-day of a spilled click batch as click_spill stores it (msgpack):
 * backend.ts's DayCounts with its counters under `c`, the name every spill
 * has been written with, so a batch spilled before an upgrade still reads.
 */
export interface SpilledDay {
  routeId: number;
  day: number;
  c: DayStats;
}

export interface DayStats {
  clicks: number;
  a: number;
  b: number;
  intercepted: number;
  asn_blacklist: number;
  org_keyword: number;
  vpn_proxy: number;
  carrier_whitelist: number;
  check_failed: number;
  /** Intercepted by a range feed (contract §6a); absent in days written before feeds. */
  range_feed: number;
  /** Intercepted by the user agent; absent in days written before. */
  crawler: number;
}

/** Non-intercepted redirects per variant on one day (index 0 = a, up to 8). */
interface VariantDay {
  clicks: number[];
}

interface StoredConversion {
  variant: number;
  /** UTC day of the click the conversion came from. */
  day: number;
  /** When it was recorded, ms since the epoch. */
  at: number;
  value: number | null;
}

/** Conversions per variant for one (route, click day, goal), and the sum of their values. */
interface ConversionDay {
  count: number[];
  value: number[];
}

export const SCHEMA_VERSION = 6;

const MIGRATIONS: ((s: Stores) => void)[] = [
  // 0 → 1: the initial layout; nothing to move.
  () => {},
  // 1 → 2: accounts keep the number of routes that exist (routesActive).
  (s) => {
    for (const { value: account } of s.accounts.getRange()) {
      const routesActive = s.accountRoutes.getCount({ start: [account.id, 0], end: [account.id, Number.MAX_SAFE_INTEGER] });
      s.accounts.putSync(account.id, { ...account, routesActive });
    }
  },
  // 2 → 3: a key carries its own admin rights. Keys made before knew only
  // their account's flag, so they keep it.
  (s) => {
    for (const { key, value } of s.keys.getRange()) {
      if (typeof value.admin !== 'boolean') s.keys.putSync(key, { ...value, admin: Boolean(s.accounts.get(value.accountId)?.admin) });
    }
  },
  // 3 → 4: the id counters are at least every id the store holds. A
  // cluster's replica took its ids from PostgreSQL and left the counters
  // where they were, so a node going back to one node gave new routes and
  // accounts the ids of existing ones (and an old short link the new
  // route's pages). Deleted routes count too: their codes keep their ids.
  (s) => {
    let account = 0;
    for (const id of s.accounts.getKeys({ reverse: true, limit: 1 })) account = id;
    raiseIdCounter(s, 'account', account);
    let route = 0;
    for (const id of s.routes.getKeys({ reverse: true, limit: 1 })) route = id;
    for (const { value } of s.codes.getRange()) route = Math.max(route, value);
    raiseIdCounter(s, 'route', route);
  },
  // 4 → 5: keys are listed by account (accountKeyEntries).
  (s) => {
    for (const { key, value } of s.keys.getRange()) s.meta.putSync(accountKeyEntry(value.accountId, value.id), key);
  },
  // 5 → 6: each account counts the conversions it stores (conversionCountKey),
  // those of its routes; a deleted route's awaiting their purge are not
  // counted (its marker, from before, names no account to subtract them from).
  (s) => {
    const stored = new Map<number, number>();
    for (const { value: route } of s.routes.getRange()) {
      const n = s.conversions.getCount({ start: [route.id], end: [route.id + 1] });
      if (n > 0) stored.set(route.accountId, (stored.get(route.accountId) ?? 0) + n);
    }
    for (const [accountId, n] of stored) s.meta.putSync(conversionCountKey(accountId), n);
  },
];

/**
 * The conversions an account stores (the quota's count, SPLITGUARD_CONVERSION_QUOTA):
 * meta `conversions:account:<id>` → a number, absent for none. Kept apart
 * from the account's record, which feeds every thread's caches through the
 * change feed: this one changes with every commit of conversions.
 */
export const conversionCountKey = (accountId: number) => `conversions:account:${accountId}`;

/** The conversions the account stores, as conversionCountKey holds them (0 when absent). */
export const storedConversionCount = (meta: Stores['meta'], accountId: number): number => (meta.get(conversionCountKey(accountId)) as number | undefined) ?? 0;

/**
 * One account's keys, without reading every account's (Keys.list): meta
 * `account_key:<account id>:<key id>` → the key's hash. Kept in meta rather
 * than a database of its own: with a nineteenth named database, a commit
 * refused by a file system turned read-only (reliability/storage-read-only-map-growth)
 * left lmdb-js 3.5.6's heap corrupted in 4 of 12 runs (the process aborted
 * at exit), against none in 14 with eighteen (docs/reliability.md, finding 96).
 */
const ACCOUNT_KEY = 'account_key:';
const accountKeyEntry = (accountId: number, keyId: string) => `${ACCOUNT_KEY}${accountId}:${keyId}`;

/**
 * The range of meta keys that start with `prefix`, which ends in ':': every
 * key past the prefix sorts before the same text ending in ';', the next
 * character (string keys compare as their UTF-8 bytes).
 */
export function metaPrefix(prefix: string): { start: string; end: string } {
  return { start: prefix, end: `${prefix.slice(0, -1)};` };
}

/** The meta range holding one account's key entries (every account's when none is named). */
export function accountKeyEntries(accountId?: number): { start: string; end: string } {
  return metaPrefix(accountId === undefined ? ACCOUNT_KEY : `${ACCOUNT_KEY}${accountId}:`);
}

/** An account's keys not revoked, as the store holds them (inside a write transaction: its own writes count). */
export function liveKeyCount(stores: Stores, accountId: number): number {
  let live = 0;
  for (const { value: hash } of stores.meta.getRange(accountKeyEntries(accountId))) {
    const key = stores.keys.get(hash as string);
    if (key && !key.revokedAt) live++;
  }
  return live;
}

/**
 * A key's records: keys, keyIds and its account's entry (accountKeyEntries),
 * which every writer of keys keeps together through these two; inside a
 * write transaction.
 */
export function putKeyRecord(s: Stores, key: ApiKey): void {
  s.keys.put(key.hash, key);
  s.keyIds.put(key.id, key.hash);
  s.meta.put(accountKeyEntry(key.accountId, key.id), key.hash);
}

/** putKeyRecord's undoing: a key removed for good. */
export function removeKeyRecord(s: Stores, key: ApiKey): void {
  s.keys.remove(key.hash);
  s.keyIds.remove(key.id);
  s.meta.remove(accountKeyEntry(key.accountId, key.id));
}

/** Raises a named id counter in `meta` to at least `id` (nextId gives the next one); inside a write transaction. */
export function raiseIdCounter(stores: Stores, name: 'account' | 'route', id: number): void {
  const key = `seq:${name}`;
  if (((stores.meta.get(key) as number | undefined) ?? 0) < id) stores.meta.put(key, id);
}

/**
 * Creates the data directory when it is missing and checks that it can be
 * written, so that the server stops at once with a message naming the
 * setting, the directory and the reason (a recursive mkdir on a read-only
 * file system reports a misleading ENOENT, and LMDB's own errors name no
 * path).
 */
export function prepareDataDir(dataDir: string): void {
  try {
    makeDirectory(dataDir);
    accessSync(dataDir, constants.W_OK);
  } catch (err) {
    throw storageError(dataDir, err, 'SPLITGUARD_DATA_DIR');
  }
}

/**
 * mkdir -p, one component at a time below the nearest existing ancestor,
 * which must be a directory. Node 20's recursive mkdirSync never returns for
 * some paths (under /proc/self/, it retries forever at full CPU).
 */
export function makeDirectory(dir: string): void {
  const missing: string[] = [];
  let at = dir;
  while (!existsSync(at) && path.dirname(at) !== at) {
    missing.push(at);
    at = path.dirname(at);
  }
  // Node's own error for it, so that callers that name an errno keep doing so.
  if (!statSync(at).isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR', syscall: 'mkdir', path: dir });
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
    } catch (err) {
      // Made meanwhile by another process: fine if it is a directory.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(d).isDirectory()) throw err;
    }
  }
}

function storageError(dir: string, err: unknown, setting?: string): AppError {
  // The nearest existing ancestor says why nothing can be created below it.
  let reason = (err as Error).message;
  let at = dir;
  while (!existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  try {
    accessSync(at, constants.W_OK);
  } catch (probe) {
    reason = (probe as Error).message;
  }
  return new AppError('storage_unusable', `${dir}${setting ? ` (${setting})` : ''}: ${reason}`, null, { cause: err });
}

/** The store's map when the process may use any amount of address space. */
export const MAP_SIZE = 2 ** 36; // 64 GiB

/**
 * The map to reserve: MAP_SIZE, or a quarter of the address space the
 * process may use when that is limited (`ulimit -v`, the soft limit in
 * /proc/self/limits), rounded down to whole MiB: a map lmdb-js cannot make at
 * open ends the process as a failed remap does, and Node needs the rest.
 */
export function storeMapSize(limits = readLimits()): number {
  const soft = /^Max address space\s+(\S+)/m.exec(limits)?.[1];
  if (soft === undefined || !/^\d+$/.test(soft)) return MAP_SIZE;
  const MIB = 2 ** 20;
  return Math.min(MAP_SIZE, Math.max(MIB, Math.floor(Number(soft) / 4 / MIB) * MIB));
}

function readLimits(): string {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return '';
  }
}

/**
 * How every process opens <data dir>/db (the server, the CLI, backup and
 * restore). overlappingSync is off, so that a commit is on disk, in LMDB's
 * order, before its promise resolves: lmdb-js's default answers first and can
 * lose acknowledged writes across a file-system failure (docs/reliability.md,
 * "Acknowledged writes across a file-system failure").
 *
 * mapSize reserves the store's memory map once, at open: address space only
 * (no memory and no disk until pages are written). Left to itself, lmdb-js
 * maps a new store at 128 KB and maps it again, larger, inside the write that
 * first needs a page past the map; if that mmap fails (a file system the
 * kernel has turned read-only refuses it with EROFS), the environment every
 * thread shares is left with no map, and the next read on any thread ends the
 * process with SIGSEGV (docs/reliability.md, "Under attack", row 61). A store
 * past the map still grows the old way.
 */
export const ENV_OPTIONS = { maxDbs: 32, compression: false, overlappingSync: false, mapSize: storeMapSize() } as const;

/**
 * The store's named databases, by their field in Stores: each one's LMDB
 * name, and how its values are encoded (msgpack unless 'binary': raw bytes).
 * openStores opens every one, and store-check (backup, restore) reads every
 * one, so a database added here is also checked in a backup.
 */
export const DATABASES: Readonly<Record<Exclude<keyof Stores, 'root' | 'signal'>, { name: string; encoding?: 'binary' }>> = {
  meta: { name: 'meta' },
  accounts: { name: 'accounts' },
  keys: { name: 'keys' },
  keyIds: { name: 'key_ids' },
  users: { name: 'users' },
  blacklist: { name: 'blacklist' },
  routes: { name: 'routes' },
  codes: { name: 'route_codes' },
  accountRoutes: { name: 'account_routes' },
  stats: { name: 'route_stats' },
  sessions: { name: 'sessions' },
  variantDays: { name: 'variant_days' },
  sketches: { name: 'sketches', encoding: 'binary' },
  conversions: { name: 'conversions' },
  conversionDays: { name: 'conversion_days' },
  feed: { name: 'feed' },
  clickSpill: { name: 'click_spill' },
  visitSpill: { name: 'visit_spill' },
};

/** The batches a writer slot keeps in a spill database (click_spill, visit_spill: keys [slot, seq]), oldest first. */
export function keptBatches<V>(db: Database<V, [number, number]>, slot: number, limit?: number) {
  return db.getRange({ start: [slot, 0], end: [slot, Number.MAX_SAFE_INTEGER], limit });
}

/** The oldest batch a writer slot keeps in a spill database, or undefined. */
export function oldestKept<V>(db: Database<V, [number, number]>, slot: number): { seq: number; value: V } | undefined {
  for (const { key, value } of keptBatches(db, slot, 1)) return { seq: key[1], value };
  return undefined;
}

/** lmdb-js's options for one named database: its default encoding (msgpack) unless it is binary. */
export const openOptions = (name: string, encoding: 'binary' | undefined) => (encoding ? { name, encoding } : { name });

/** Where a data directory's store lies, and whether one was ever made there (its LMDB file exists). */
export const storeDir = (dataDir: string): string => path.join(dataDir, 'db');
export const hasStore = (dataDir: string): boolean => existsSync(path.join(storeDir(dataDir), 'data.mdb'));

export function openStores(dataDir: string): Stores {
  const dir = storeDir(dataDir);
  let stores: Stores;
  try {
    refuseInterruptedRestore(dataDir, dir);
    makeDirectory(dir);
    refuseDamagedFiles(dir);
    const root = open({ path: dir, ...ENV_OPTIONS });
    const databases: Record<string, Database> = {};
    for (const [field, { name, encoding }] of Object.entries(DATABASES)) databases[field] = root.openDB(openOptions(name, encoding));
    // The record types are Stores' own: DATABASES has one entry per database field.
    stores = { root, ...(databases as Omit<Stores, 'root' | 'signal'>), signal: null };
  } catch (err) {
    throw err instanceof AppError ? err : storageError(dir, err);
  }
  migrate(stores);
  return stores;
}

/**
 * A restore killed between its two renames (cli/backup.ts, swapIn) leaves
 * no store in <data dir>/db, the store it was installing in
 * db.restore-<pid> and the one before it in db.before-restore-<time>.
 * Opening would make a new, empty store there (and the server a new admin
 * and key over bootstrap.json), so it is refused, before LMDB creates
 * anything, naming where the stores are. A successful restore leaves no
 * db.restore-<pid> (it became db), and restore itself never opens a store
 * that is missing, so a second restore still installs into db.
 */
function refuseInterruptedRestore(dataDir: string, dir: string): void {
  if (existsSync(path.join(dir, 'data.mdb'))) return;
  let entries;
  try {
    entries = readdirSync(dataDir, { withFileTypes: true });
  } catch {
    return; // a data directory that does not exist holds no interrupted restore
  }
  const named = (pattern: RegExp) => entries.filter((e) => e.isDirectory() && pattern.test(e.name)).map((e) => path.join(dataDir, e.name)).sort();
  const staged = named(/^db\.restore-\d+$/);
  if (staged.length === 0) return;
  // The newest: the restore's time in its name sorts as it reads (ISO 8601).
  const previous = named(/^db\.before-restore-/).pop();
  throw new AppError(
    'storage_unusable',
    `${dir} is missing and ${staged.join(', ')} ${staged.length === 1 ? 'holds' : 'hold'} the copy an interrupted restore was installing ` +
      `(checked and whole only if the restore was stopped between its two renames; ` +
      `${previous === undefined ? 'there is no earlier store' : `the newest earlier store is ${previous}`}); ` +
      `run splitguard restore --from FILE again, or move the store you want to ${dir} and start again`,
  );
}

/** A store file LMDB would refuse, or whose pages would crash it, is refused here, before lmdb-js crashes on it (store/lmdb-file.ts). */
function refuseDamagedFiles(dir: string): void {
  const problem = storeProblem(dir) ?? storePagesProblem(dir, ENV_OPTIONS.mapSize);
  if (problem !== null) {
    throw new AppError('storage_unusable', `${problem}; the store is damaged: restore a backup (splitguard restore --from FILE), or move ${dir} away to start an empty store`);
  }
}

function migrate(stores: Stores): void {
  stores.root.transactionSync(() => {
    const version = (stores.meta.get('schema_version') as number | undefined) ?? 0;
    if (version > SCHEMA_VERSION) {
      throw new AppError('schema_newer', `it uses schema version ${version}, newer than this splitguard (${SCHEMA_VERSION}); upgrade splitguard or restore an older backup`);
    }
    for (let v = version; v < SCHEMA_VERSION; v++) MIGRATIONS[v](stores);
    if (version !== SCHEMA_VERSION) stores.meta.putSync('schema_version', SCHEMA_VERSION);
  });
}

/**
 * The largest account or route id: ids are JavaScript numbers (LMDB keys, and
 * PostgreSQL's bigint columns read as Number by pg/client.ts), exact up to
 * 2^53 - 1. The counters start at 1 and never come near it.
 */
/** Ids take at most 15 digits: every such number is a safe integer (under 2^53), in both back ends' JavaScript numbers. */
export const MAX_ID_DIGITS = 15;
const ID_TEXT = new RegExp(`^[1-9][0-9]{0,${MAX_ID_DIGITS - 1}}$`);

/**
 * An account or route id as the API, the console and the CLI take it: decimal
 * digits without a leading zero (an id is written one way), at most
 * MAX_ID_DIGITS of them; 0 when `text` is not one. Each caller words its own
 * refusal.
 */
export function parseId(text: string): number {
  return ID_TEXT.test(text) ? Number(text) : 0;
}

/** Next value of a named counter in `meta`; call inside a write transaction (sync or async). */
export function nextId(stores: Stores, name: string): number {
  const next = ((stores.meta.get(`seq:${name}`) as number | undefined) ?? 0) + 1;
  stores.meta.put(`seq:${name}`, next);
  return next;
}
