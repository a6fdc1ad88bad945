// The one module that loads `pg`: pools and single connections to the
// cluster's PostgreSQL, how their failures read, and transactions.
//
// Every failure that means "PostgreSQL cannot be reached or has gone away"
// (refused or dropped connections, timeouts, an administrator's shutdown)
// becomes storage_unavailable (503 with Retry-After): the node keeps serving
// reads from its replica. Anything else (a constraint a query did not
// expect) stays an internal error.
import { createRequire } from 'node:module';
import type pg from 'pg';
import { AppError } from '../../errors.js';

let loaded: typeof pg | null = null;

/**
 * `pg`, loaded at the first pool or connection: a single node never loads
 * it, and each server thread would otherwise compile it into its own heap
 * (about 6 MB a thread with ioredis, limits/redis-link.ts; bench:startup).
 */
function pgModule(): typeof pg {
  if (loaded === null) {
    loaded = createRequire(import.meta.url)('pg') as typeof pg;
    // bigint (ids, sequences, counters) as numbers: every value splitguard
    // stores stays far below 2^53.
    loaded.types.setTypeParser(loaded.types.builtins.INT8, (v) => Number(v));
  }
  return loaded;
}

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Client = pg.Client;
export type Queryable = Pick<pg.ClientBase, 'query'>;

/** Seconds a client is told to wait before retrying a write refused while PostgreSQL is away. */
const RETRY_AFTER_S = 5;

/** Limits shared by every connection: nothing may hang a request for long. */
const LIMITS = {
  connectionTimeoutMillis: 3000,
  query_timeout: 10_000,
  keepAlive: true,
};

/**
 * How long a pooled query may wait for a connection: under a burst of
 * writes most of that is the wait for a free one (pg-pool times the queue
 * and the connecting alike), which is load, not an outage. A PostgreSQL that
 * is away is known sooner: refused connections fail at once, and the node's
 * link (node.ts) marks it unreachable, which refuses writes before they queue.
 */
const POOL_WAIT_MS = 15_000;

/** Each pool's open connections (pg-pool lists none), for closePool to end those still lent out. */
const connections = new WeakMap<Pool, Set<PoolClient>>();

export function createPool(url: string, name: string, max: number): Pool {
  const pool = new (pgModule().Pool)({ connectionString: url, application_name: name, max, idleTimeoutMillis: 30_000, ...LIMITS, connectionTimeoutMillis: POOL_WAIT_MS });
  // An idle connection that breaks (PostgreSQL restarted) is dropped from
  // the pool; the next query opens another. Unhandled, it would end the thread.
  pool.on('error', () => {});
  const open = new Set<PoolClient>();
  pool.on('connect', (client) => open.add(client));
  pool.on('remove', (client) => open.delete(client));
  connections.set(pool, open);
  return pool;
}

/**
 * Ends a pool. pg-pool's end() waits for every connection lent out to come
 * back, and a query stalled on a lock or a silent server holds one for up
 * to its timeout (10 s); at `until` (wall time) those are ended, and their
 * queries fail as PostgreSQL unavailable.
 */
export async function closePool(pool: Pool, until = Infinity): Promise<void> {
  const ended = pool.end();
  if (until === Infinity) return ended;
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([ended.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), Math.max(0, until - Date.now()))))]);
  clearTimeout(timer);
  if (!late) return;
  for (const client of connections.get(pool) ?? []) void (client as unknown as Client).end().catch(() => {});
  // A connection still being made is not in the list yet ('connect' comes
  // once it is made) and holds end() for up to POOL_WAIT_MS: not waited for
  // beyond a second; it goes with the thread.
  await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
}

/** One connection of its own (LISTEN, advisory locks held for a session). */
export async function connect(url: string, name: string): Promise<Client> {
  const client = new (pgModule().Client)({ connectionString: url, application_name: name, ...LIMITS });
  try {
    await client.connect();
  } catch (err) {
    client.removeAllListeners();
    throw storageError(err);
  }
  return client;
}

const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** Whether `err` says PostgreSQL is unreachable, gone or shutting down (SQLSTATE classes 08 and 57P). */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof AppError) return err.code === 'storage_unavailable';
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (UNAVAILABLE_ERRNO.has(code) || code.startsWith('08') || code.startsWith('57P')) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection error|Client was closed|not queryable/i.test(message);
}

/** The refusal of a write while PostgreSQL is away: 503 storage_unavailable with Retry-After. */
export function unavailable(cause?: unknown, detail = ''): AppError {
  return new AppError('storage_unavailable', detail, null, { cause, headers: { 'Retry-After': String(RETRY_AFTER_S) } });
}

/** A connection failure in a few words for a log line or a start-up message (never a password: pg's messages carry none). */
export function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : String(err);
  return typeof e.code === 'string' && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}

/** Whether PostgreSQL refused the connection itself: a role or password (class 28), a database that does not exist (3D000). */
function isRefused(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('28') || code === '3D000');
}

/**
 * storage_unavailable (with Retry-After) for an unreachable PostgreSQL,
 * storage_refused for one that refused the connection (pg's message names
 * the role or database, never the password); any other error as it is.
 */
export function storageError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  if (isRefused(err)) return new AppError('storage_refused', describe(err), null, { cause: err });
  return isUnavailable(err) ? unavailable(err) : err;
}

/** A pooled connection lent to a caller's own statements (borrow). */
export interface Borrowed {
  client: PoolClient;
  /** Gives it back; closed instead of reused when `err` is given or the server broke it meanwhile. */
  release(err?: Error): void;
}

/**
 * A pooled connection for a caller's own statements. While it is lent out,
 * node-postgres listens for nothing on it: an error the server sends
 * between two statements (a restart's 57P01 "terminating connection",
 * arriving with the last reply) is an 'error' event, which without a
 * listener ends the thread and then the process (redirects included). The
 * listener here takes it; the connection's next statement fails, as the
 * caller expects of a lost connection.
 */
export async function borrow(pool: Pool): Promise<Borrowed> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => (broken ??= err);
  client.on('error', onError);
  return {
    client,
    release(err?: Error) {
      client.off('error', onError);
      client.release(err ?? broken);
    },
  };
}

/** Runs `work` in one transaction on a pooled connection: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  let lent: Borrowed;
  try {
    lent = await borrow(pool);
  } catch (err) {
    throw storageError(err);
  }
  const { client } = lent;
  let broken: unknown;
  try {
    await client.query('BEGIN');
    const out = await work(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    if (isUnavailable(err)) broken = err;
    else await client.query('ROLLBACK').catch((e: unknown) => (broken = e));
    throw storageError(err);
  } finally {
    // A connection whose state is unknown is closed, not reused.
    lent.release(broken instanceof Error ? broken : undefined);
  }
}
