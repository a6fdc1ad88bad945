// One server thread: its own storage handle, its own mapping of the database
// (the kernel shares the pages), its own uWS app on the shared port.
import { parentPort } from 'node:worker_threads';
import { registerAccountEndpoints } from './api/account.js';
import { registerBlacklistEndpoints } from './api/blacklist.js';
import { registerConsoleEndpoints } from './console/api.js';
import { registerIpEndpoints } from './api/ip.js';
import { registerIpdbEndpoints } from './api/ipdb.js';
import type { KeywordTables } from './quality/classifier.js';
import { registerRouteEndpoints } from './api/routes.js';
import { registerConversionEndpoints } from './api/conversions.js';
import { CLICK_ID_SECRET, ClickIds } from './experiments/click-id.js';
import { VisitRecorder } from './experiments/visits.js';
import { randomBytes } from 'node:crypto';
import { ClickRecorder, FLUSH_MS } from './redirect/clicks.js';
import { Redirector } from './redirect/redirect.js';
import { RouteCache } from './redirect/route-cache.js';
import { BLACKLIST_POLL_MS, QualityState } from './quality/state.js';
import { type AppDeps, buildApp } from './app.js';
import type { Config } from './config.js';
import { IpDatabase } from './ipdb/database.js';
import { log, setLogNode, setLogThread } from './log.js';
import { Metric, Metrics } from './metrics.js';
import { localLimits, localTables } from './limits/limits.js';
import { PasswordWork } from './console/password-work.js';
import type { ConsoleFiles } from './console/static.js';
import { Router } from './http/router.js';
import { type us_listen_socket, uws } from './http/uws.js';
import { KeyCache } from './store/accounts-store.js';
import { handleStorageCommitErrors } from './store/commit-errors.js';
import { ClusterStatus } from './store/pg/cluster-status.js';
import { openStorage } from './store/storage.js';

/** Connections to PostgreSQL each server thread may hold (writes, statistics). */
const THREAD_POOL_SIZE = 4;

export interface WorkerInput {
  thread: number;
  config: Config;
  dbFile: string;
  tls: { certFile: string; keyFile: string };
  shared: {
    accounts: SharedArrayBuffer;
    /** FailureLimiter: failed API authentications per client address. */
    authFailures: SharedArrayBuffer;
    /** FailureLimiter tables of failed console sign-ins (console/login.ts). */
    loginAddresses: SharedArrayBuffer;
    loginEmailAtAddress: SharedArrayBuffer;
    loginEmails: SharedArrayBuffer;
    /** PasswordWork: password hashes running, process-wide. */
    passwordWork: SharedArrayBuffer;
    metrics: SharedArrayBuffer;
    /** Int32: the change feed's signal (store/feed.ts). */
    feed: SharedArrayBuffer;
    /** BigInt64: when the running (or just requested) refresh started, in ms; 0 when none. */
    refresh: SharedArrayBuffer;
    /** Cluster mode: the node's link to PostgreSQL as the main thread sees it (store/pg/cluster-status.ts). */
    cluster: SharedArrayBuffer;
    /** The console's static files, read once by the main thread (console/static.ts). */
    console: ConsoleFiles;
  };
  /** Keyword tables of dbFile, computed once by the main thread. */
  tables: KeywordTables | null;
}

export type WorkerMessage =
  | { type: 'listening'; thread: number; port: number }
  | { type: 'failed'; thread: number; error: string }
  | { type: 'closed'; thread: number }
  | { type: 'swapped'; thread: number; file: string; error?: string }
  | { type: 'refresh'; thread: number; accountId: number };

export type MainMessage = { type: 'start'; input: WorkerInput } | { type: 'shutdown' } | { type: 'swap'; file: string; tables: KeywordTables };

// The thread is created before its input is ready (ServerThreads.spawn): its
// modules load meanwhile, and the input is the first message.
const port = parentPort!;
const input = await new Promise<WorkerInput>((resolve) => {
  const first = (msg: MainMessage) => {
    if (msg.type !== 'start') return;
    port.off('message', first);
    resolve(msg.input);
  };
  port.on('message', first);
});
setLogThread(input.thread);
if (input.config.databaseUrl !== null) setLogNode(input.config.nodeName);
handleStorageCommitErrors();

const clusterStatus = input.config.databaseUrl === null ? null : new ClusterStatus(input.shared.cluster);
const storage = await openStorage(input.config.dataDir, {
  signal: input.shared.feed,
  cluster: clusterStatus && {
    databaseUrl: input.config.databaseUrl!,
    nodeName: input.config.nodeName,
    poolSize: THREAD_POOL_SIZE,
    // Slot 0 is the main thread's (which records no clicks).
    slot: input.thread + 1,
    connected: () => clusterStatus.connected,
  },
});
let database: IpDatabase | null = null;
try {
  database = IpDatabase.open(input.dbFile);
} catch (err) {
  log('error', 'database_unavailable', { error: err });
}

const quality = new QualityState(storage.blacklist, storage.feed, database, input.tables ?? undefined);
// An idle thread still follows the feed (the blacklist, the caches' memory).
const feedTimer = setInterval(() => storage.feed.poll(Date.now()), BLACKLIST_POLL_MS);
feedTimer.unref();

const metrics = new Metrics(input.shared.metrics, input.thread);
const routeCache = new RouteCache(storage.routes, storage.feed);
const clicks = new ClickRecorder(storage.stats);
const visits = new VisitRecorder(storage.experiments);
const clickTimer = setInterval(() => {
  clicks.flush().catch((err) => log('error', 'click_flush_failed', { error: err }));
  visits.flush().catch((err) => log('error', 'visit_flush_failed', { error: err }));
}, FLUSH_MS);
clickTimer.unref();

// The click-id secret: made by the first thread (or process) that finds none, the same for every thread after.
const clickIds = new ClickIds(await storage.secrets.get(CLICK_ID_SECRET, () => randomBytes(32)));

const keyUse = new Map<string, number>();
const router = new Router();
registerAccountEndpoints(router, storage);
registerRouteEndpoints(router, storage, input.config.shortBase);
registerConversionEndpoints(router, storage, clickIds);
registerIpEndpoints(router, () => quality.classifier);
registerBlacklistEndpoints(router, storage.blacklist, () => quality.classifier?.listed ?? new Map());
registerConsoleEndpoints(router, storage, keyUse);
const refreshSince = new BigInt64Array(input.shared.refresh);
registerIpdbEndpoints(router, storage.state, () => database, {
  runningSince: () => Number(Atomics.load(refreshSince, 0)),
  trigger: (accountId, now) => {
    // Claim the slot: one trigger wins and asks the main thread; the rest join.
    const previous = Atomics.compareExchange(refreshSince, 0, 0n, BigInt(now));
    if (previous !== 0n) return { started: false, startedAt: Number(previous) };
    port.postMessage({ type: 'refresh', thread: input.thread, accountId } satisfies WorkerMessage);
    return { started: true, startedAt: now };
  },
}, input.config);

// Cluster-wide with SPLITGUARD_REDIS_URL, this process's tables standing in
// while Redis is away; else the tables alone. The redirect never counts here.
// Redis's modules are loaded only when it is configured.
const tables = localTables(input.shared);
const limits = input.config.redisUrl ? await redisBacked(input.config.redisUrl) : localLimits(tables);
async function redisBacked(url: string) {
  const [{ RedisLink }, { redisLimits }] = await Promise.all([import('./limits/redis-link.js'), import('./limits/redis-limits.js')]);
  return redisLimits(new RedisLink({ url, timeoutMs: input.config.redisTimeoutMs, metrics, reportsNodes: input.thread === 0 }), tables);
}

const inflight = { count: 0 };
const deps: AppDeps = {
  config: input.config,
  keyCache: new KeyCache(storage.keys, storage.feed),
  metrics,
  router,
  accountLimiter: limits.accounts,
  authFailures: limits.authFailures,
  database: () => database,
  tls: input.tls,
  keyUse,
  inflight,
  readiness: clusterStatus && (() => clusterStatus.readiness()),
  redirector: new Redirector(routeCache, () => quality.classifier, clicks, metrics, input.config.trustProxy, visits, clickIds),
  console: {
    config: input.config,
    storage,
    router,
    accountLimiter: limits.accounts,
    loginLimits: {
      addresses: limits.loginAddresses,
      emailAtAddress: limits.loginEmailAtAddress,
      emails: limits.loginEmails,
      work: new PasswordWork(input.shared.passwordWork),
    },
    inflight,
    files: input.shared.console,
  },
};

const flushKeyUse = () => {
  const batch = new Map([...keyUse].map(([h, ms]) => [h, new Date(ms).toISOString()]));
  keyUse.clear();
  return storage.keys.recordUse(batch).catch((err) => log('warn', 'key_use_flush_failed', { error: err }));
};
const flushTimer = setInterval(flushKeyUse, 30_000);
flushTimer.unref();

const app = buildApp(deps);
let listenSocket: us_listen_socket | null = null;
app.listen(input.config.host, input.config.port, (token) => {
  if (!token) {
    port.postMessage({ type: 'failed', thread: input.thread, error: `could not listen on ${input.config.host}:${input.config.port}` } satisfies WorkerMessage);
    return;
  }
  listenSocket = token;
  port.postMessage({ type: 'listening', thread: input.thread, port: uws.us_socket_local_port(token) } satisfies WorkerMessage);
});

// Graceful stop: no new connections, let in-flight answers finish, write
// what is pending, close everything, tell the main thread.
// A swap: map the new file, rebuild the classifier around the shared keyword
// tables, switch. Redirects are synchronous, so none is half-way through the
// old database when this runs; the old mapping goes when its last view is
// collected.
function swap(file: string, tables: KeywordTables): void {
  const next = IpDatabase.open(file);
  quality.setDatabase(next, tables);
  const old = database;
  database = next;
  old?.close();
  metrics.inc(Metric.swaps);
}

port.on('message', async (msg: MainMessage) => {
  if (msg.type === 'swap') {
    try {
      swap(msg.file, msg.tables);
      port.postMessage({ type: 'swapped', thread: input.thread, file: msg.file } satisfies WorkerMessage);
    } catch (err) {
      log('error', 'ipdb_swap_failed', { file: msg.file, error: err });
      port.postMessage({ type: 'swapped', thread: input.thread, file: msg.file, error: (err as Error).message } satisfies WorkerMessage);
    }
    return;
  }
  if (msg.type !== 'shutdown') return;
  if (listenSocket) uws.us_listen_socket_close(listenSocket);
  listenSocket = null;
  const deadline = Date.now() + 10_000;
  while (deps.inflight.count > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  clearInterval(flushTimer);
  clearInterval(feedTimer);
  clearInterval(clickTimer);
  await clicks.flush().catch((err) => log('error', 'click_flush_failed', { error: err }));
  await visits.flush().catch((err) => log('error', 'visit_flush_failed', { error: err }));
  await flushKeyUse();
  // close() exists in this uWS build (it ends every open connection) but not in its typings.
  (app as unknown as { close(): void }).close();
  await storage.close();
  await limits.close();
  port.postMessage({ type: 'closed', thread: input.thread } satisfies WorkerMessage);
  port.close();
});
