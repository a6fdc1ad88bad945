// The process entry for `splitguard serve`: configuration, data directory,
// database, storage, TLS, then SPLITGUARD_THREADS server threads on one port.
// The only module that makes threads listen and the only one that handles
// signals. The main thread serves nothing itself: it coordinates database
// refreshes (schedule, API triggers, refreshes made by the CLI) and swaps,
// and runs the connection guard over the threads' connections.
import path from 'node:path';
import { removeDeadWrites } from './durable-file.js';
import type { Config } from './config.js';
import { prepareConnectionLimits, startConnectionGuard } from './http/connection-guard.js';
import { cleanRefreshLeftovers } from './ipdb/refresh.js';
import { log, setLogNode } from './log.js';
import { Metric, Metrics } from './metrics.js';
import { DatabaseSwapper } from './serve/database-swapper.js';
import type { FileLimit } from './serve/file-limit.js';
import { RefreshScheduler } from './serve/refresh-scheduler.js';
import { allocateSharedMemory, type SharedMemory } from './serve/shared-memory.js';
import { assertPortFree, bootstrapOnce, prepareDatabaseFile, prepareTls } from './serve/startup.js';
import { ServerThreads } from './serve/threads.js';
import { prepareDataDir } from './store/db.js';
import { PublishedDatabase, REFRESH_REQUEST, RefreshLeader, type RefreshRequest } from './store/pg/ipdb.js';
import { ClusterStatus } from './store/pg/cluster-status.js';
import { ClusterNode } from './store/pg/node.js';
import { openStorage, type Storage } from './store/storage.js';

/** Connections to PostgreSQL the main thread's storage may hold (bootstrap, refresh state). */
const MAIN_POOL_SIZE = 2;

export interface RunningServer {
  ports: number[];
  stop(): Promise<void>;
}

export async function serve(
  config: Config,
  options: {
    /** The open-file limit, raised before anything opened descriptors (serve/file-limit.ts); null when unknown. */
    fileLimit: FileLimit | null;
    announce?: (text: string) => void;
    threads?: ServerThreads;
  },
): Promise<RunningServer> {
  const started = performance.now();
  if (config.databaseUrl !== null) setLogNode(config.nodeName);
  prepareDataDir(config.dataDir);
  const guardLimits = prepareConnectionLimits(config, options.fileLimit);
  await assertPortFree(config.host, config.port);
  const threads = options.threads ?? new ServerThreads().spawn(config.threads);
  cleanRefreshLeftovers(config.dataDir);
  removeDeadWrites(['', 'ipdb', path.join('ipdb', 'feeds'), 'tls'].map((d) => path.join(config.dataDir, d)));
  const currentFile = prepareDatabaseFile(config);
  const shared = allocateSharedMemory(config);
  // Set once the storage is open (cluster mode): what this node serves, for its heartbeat.
  let published: PublishedDatabase | null = null;
  const metrics = new Metrics(shared.metrics, config.threads);
  const redis = () => redisStatus(metrics, config.threads);
  const { storage, node } = await openNodeStorage(config, shared, () => published?.serving() ?? { version: null, sha256: null }, redis, options.announce);
  const tls = prepareTls(config);

  // A damaged current.trie leaves the threads without a database: they keep
  // serving, redirects fail open, /healthz says 503, and a repair starts below.
  const database = new DatabaseSwapper(currentFile, config.dataDir, storage);
  database.publishInitial();
  // Cluster mode: one refresh leader; every node installs what it publishes.
  const leader = config.databaseUrl === null ? null : new RefreshLeader(config.databaseUrl, config.nodeName);
  if (storage.cluster) published = new PublishedDatabase(storage, currentFile, () => database.swapToCurrent(null));
  const refresh = new RefreshScheduler(
    config,
    storage.state,
    metrics,
    shared.refresh,
    async (result) => {
      published?.installedLocally();
      await database.swapToCurrent(result.tables);
    },
    leader ? () => leader.isLeader : undefined,
  );
  const refreshRequested = refreshTriggers(config, storage, shared, refresh, leader);

  let stopping: Promise<void> | null = null;
  let guard: { stop(): void } | null = null;
  // Every caller gets the same promise, resolved when everything is closed.
  const stop = (): Promise<void> => (stopping ??= closeInOrder({ refresh, leader, database, guard: () => guard, threads, node, storage }));

  const inputs = Array.from({ length: config.threads }, (_, thread) => ({ thread, config, dbFile: database.serving?.path ?? '', tls, shared, tables: database.tables }));
  try {
    await threads.start(inputs, {
      onRefreshRequest: refreshRequested,
      onCrash: (thread, code) => {
        log('error', 'thread_exited', { thread, code });
        process.exitCode = 1;
        void stop();
      },
    });
  } catch (err) {
    // A thread that could not start (port taken, ...) must not leave the
    // others running: stop them, so that the process exits with the error.
    await stop();
    throw err;
  }
  database.attach(threads, () => refresh.busy || stopping !== null);
  await startRefreshing(refresh, leader, published);
  guard = startConnectionGuard(threads.ports, guardLimits, metrics);
  log('info', 'listening', { host: config.host, ports: threads.ports, threads: config.threads, url: config.baseUrl, startupMs: Math.round(performance.now() - started) });
  // Serving without a database: repair it now from the configured sources
  // (the installed package last) instead of waiting for the schedule.
  if (database.serving === null) void refresh.run('repair');
  return { ports: threads.ports, stop };
}

/** What `cluster status` shows of Redis: the server threads hold the links (limits/redis-link.ts). */
function redisStatus(metrics: Metrics, threads: number): string {
  const up = metrics.total(Metric.redisConnected);
  return up >= threads ? 'connected' : up > 0 ? `connected on ${up} of ${threads} threads` : 'unreachable';
}

/**
 * Shuts the server down: no refresh starts and none is published, the
 * connection guard stops, the threads finish what they are answering, then
 * the refresh, the cluster membership and the storage close.
 */
async function closeInOrder(parts: {
  refresh: RefreshScheduler;
  leader: RefreshLeader | null;
  database: DatabaseSwapper;
  /** Read when its turn comes: a start still under way may set it meanwhile. */
  guard: () => { stop(): void } | null;
  threads: ServerThreads;
  node: ClusterNode | null;
  storage: Storage;
}): Promise<void> {
  parts.refresh.halt();
  await parts.leader?.stop();
  parts.database.stop();
  parts.guard()?.stop();
  log('info', 'shutting_down', {});
  const cleanThreads = await parts.threads.stop();
  await parts.refresh.close();
  await parts.node?.stop();
  await parts.storage.close();
  log('info', 'stopped', { cleanThreads });
}

/**
 * The node's storage: LMDB alone on a single node; in cluster mode the
 * schema migrated and the replica caught up before anything reads it, and
 * the first node of a new cluster bootstraps it (under the migration lock,
 * so that nodes starting together bootstrap once).
 */
async function openNodeStorage(
  config: Config,
  shared: SharedMemory,
  ipdb: () => { version: string | null; sha256: string | null },
  redis: () => string,
  announce?: (text: string) => void,
): Promise<{ storage: Storage; node: ClusterNode | null }> {
  const clusterStatus = new ClusterStatus(shared.cluster);
  const storage = await openStorage(config.dataDir, {
    signal: shared.feed,
    cluster: config.databaseUrl === null ? null : { databaseUrl: config.databaseUrl, nodeName: config.nodeName, poolSize: MAIN_POOL_SIZE, connected: () => clusterStatus.connected },
  });
  if (!storage.cluster) {
    await bootstrapOnce(storage, config.dataDir, announce);
    return { storage, node: null };
  }
  const node = new ClusterNode(storage, shared.cluster, { ipdb, redis, ready: () => clusterStatus.readiness().ready });
  try {
    await node.start(() => bootstrapOnce(storage, config.dataDir, announce));
  } catch (err) {
    await node.stop();
    await storage.close();
    throw err;
  }
  return { storage, node };
}

/**
 * What to do with a refresh trigger this node's API took (the account's
 * allowance is spent): run it here on a single node or the leader, else ask
 * the leader through the replicated state, which the leader follows.
 */
function refreshTriggers(config: Config, storage: Storage, shared: SharedMemory, refresh: RefreshScheduler, leader: RefreshLeader | null): (accountId: number) => void {
  let requestSeen = storage.state.get<RefreshRequest>(REFRESH_REQUEST)?.at ?? 0;
  if (leader) {
    storage.feed.on(['state'], (keys) => {
      if (keys !== null && !keys.has(REFRESH_REQUEST)) return;
      const request = storage.state.get<RefreshRequest>(REFRESH_REQUEST);
      if (!request || request.at <= requestSeen) return;
      requestSeen = request.at;
      if (leader.isLeader) void refresh.run(request.trigger);
    });
  }
  return (accountId) => {
    const trigger = `api (account ${accountId})`;
    if (!leader || leader.isLeader) {
      void refresh.run(trigger);
      return;
    }
    Atomics.store(new BigInt64Array(shared.refresh), 0, 0n);
    const request: RefreshRequest = { at: Date.now(), trigger: `${trigger} via ${config.nodeName}` };
    storage.state.put(REFRESH_REQUEST, request).catch((err: unknown) => log('error', 'ipdb_refresh_request_failed', { error: err }));
  };
}

/** The refresh schedule: at once on a single node; in a cluster, whenever this node is elected leader. */
async function startRefreshing(refresh: RefreshScheduler, leader: RefreshLeader | null, published: PublishedDatabase | null): Promise<void> {
  if (!leader) {
    await refresh.start();
    return;
  }
  // Elected later (the leader died): the schedule's first due time is set then.
  leader.onElected = () => void refresh.start().catch((err: unknown) => log('error', 'ipdb_schedule_failed', { error: err }));
  await leader.start();
  // What the cluster serves, if this node has another file (it was away, or is new).
  void published?.follow();
}
