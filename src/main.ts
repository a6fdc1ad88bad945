// The process entry for `splitguard serve`: configuration, data directory,
// database, storage, TLS, then SPLITGUARD_THREADS server threads on one port.
// The only module that makes threads listen and the only one that handles
// signals. The main thread serves nothing itself: it coordinates database
// refreshes (schedule, API triggers, refreshes made by the CLI) and swaps,
// and runs the connection guard over the threads' connections.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { type DataDirLock, lockDataDir } from './data-lock.js';
import { removeDeadWrites } from './durable-file.js';
import type { Config } from './config.js';
import { type GuardLimits, prepareConnectionLimits, startConnectionGuard } from './http/connection-guard.js';
import { cleanRefreshLeftovers } from './ipdb/refresh.js';
import { apiTrigger } from './ipdb/refresh-state.js';
import { log, setLogNode } from './log.js';
import { Metric, Metrics } from './metrics.js';
import { DatabaseSwapper } from './serve/database-swapper.js';
import type { FileLimit } from './serve/file-limit.js';
import { RefreshScheduler } from './serve/refresh-scheduler.js';
import { allocateSharedMemory, type SharedMemory } from './serve/shared-memory.js';
import { assertPortFree, bootstrapOnce, checkTlsFiles, prepareDatabaseFile, prepareTls } from './serve/startup.js';
import type { ServerThreads } from './serve/threads.js';
import type { WorkerInput } from './server.worker.js';
import { prepareDataDir } from './store/db.js';
import { limitsOf } from './store/experiments-store.js';
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
    /** Spawned by the caller, not started; the caller stops them when the start fails (cli/serve.ts). */
    threads: ServerThreads;
  },
): Promise<RunningServer> {
  const started = performance.now();
  const prepared = await prepareNode(config, options);
  // Set once the storage is open: in cluster mode, what this node serves, for its heartbeat.
  let ipdb: NodeDatabase | null = null;
  const { storage, node } = await openNodeStorage(config, prepared, () => ({ version: ipdb?.database.version ?? null, sha256: ipdb?.published?.servingSha() ?? null }), options.announce);
  let shutdown: Shutdown | null = null;
  let refresh: NodeRefresh;
  try {
    const tls = prepareTls(config);
    ipdb = startDatabase(config, prepared.currentFile, storage);
    refresh = planRefresh(config, storage, prepared, ipdb);
    shutdown = new Shutdown({ refresh: refresh.scheduler, leader: ipdb.leader, database: ipdb.database, threads: prepared.threads, node, storage, lock: prepared.lock });
    await startThreads(config, prepared, tls, ipdb.database, refresh, shutdown);
    await startRefreshing(refresh.scheduler, ipdb.leader, ipdb.published);
    shutdown.guard = startConnectionGuard(prepared.threads.ports, prepared.guardLimits, prepared.metrics);
  } catch (err) {
    // What the start made is stopped (in cluster mode the node's heartbeat and
    // its connections would keep the process alive, holding the node's name).
    if (shutdown) await shutdown.stop();
    else {
      await node?.stop();
      await storage.close();
    }
    throw err;
  }
  log('info', 'listening', { host: config.host, ports: prepared.threads.ports, threads: config.threads, url: config.baseUrl, startupMs: Math.round(performance.now() - started) });
  // Set once the server listens (a name lost during the start stops it now).
  if (node) node.onNameLost = shutdown.fail;
  // Serving without a database: repair it now from the configured sources
  // (the installed package last) instead of waiting for the schedule.
  if (ipdb.database.serving === null) void refresh.scheduler.run('repair');
  return { ports: prepared.threads.ports, stop: shutdown.stop };
}

/** What prepareNode leaves for the later steps of a start. */
interface PreparedNode {
  /** The data directory's lock (data-lock.ts), released once everything is closed. */
  lock: DataDirLock;
  /** The connection guard's limits, logged before anything listens; the guard starts last. */
  guardLimits: GuardLimits;
  /** Spawned, not started: they load their modules and wait for their input. */
  threads: ServerThreads;
  /** current.trie, built when it was missing or of an old format. */
  currentFile: string;
  shared: SharedMemory;
  /** The main thread's region of the shared metrics (the one after the threads'). */
  metrics: Metrics;
  /** This process among the cluster's nodes, the same in every thread (WorkerInput.instance, store/pg/node.ts). */
  instance: string;
}

/**
 * Everything before the storage opens, in this order: the log's node name
 * (cluster mode), the data directory and its lock (a second server on it
 * ends here, before it touches anything in it), the connection limits, the port (the
 * start ends here when it is taken), what an interrupted refresh or write left behind,
 * the places of the TLS pair (refused here, before anything is built and
 * before the storage's first-start work), current.trie, and the memory
 * shared with the threads. Nothing it makes needs releasing on failure: the
 * port probe closes its socket and the lock ends with the process (the
 * caller stops the threads it spawned).
 */
async function prepareNode(config: Config, options: { fileLimit: FileLimit | null; threads: ServerThreads }): Promise<PreparedNode> {
  if (config.databaseUrl !== null) setLogNode(config.nodeName);
  prepareDataDir(config.dataDir);
  const lock = lockDataDir(config.dataDir);
  const guardLimits = prepareConnectionLimits(config, options.fileLimit);
  await assertPortFree(config.host, config.port);
  cleanRefreshLeftovers(config.dataDir);
  removeDeadWrites(['', 'ipdb', path.join('ipdb', 'feeds'), 'tls'].map((d) => path.join(config.dataDir, d)));
  checkTlsFiles(config);
  const currentFile = prepareDatabaseFile(config);
  const shared = allocateSharedMemory(config);
  const instance = `${config.nodeName}:${randomBytes(8).toString('hex')}`;
  return { lock, guardLimits, threads: options.threads, currentFile, shared, metrics: new Metrics(shared.metrics, config.threads), instance };
}

/** The database side of a node, made by startDatabase. */
interface NodeDatabase {
  database: DatabaseSwapper;
  /** Cluster mode: the election of the one node that refreshes. */
  leader: RefreshLeader | null;
  /** Cluster mode: the database the leader published, which this node installs. */
  published: PublishedDatabase | null;
}

/**
 * The first serving copy of current.trie and, in cluster mode, the refresh
 * leader's election and the published database. A damaged current.trie
 * leaves the threads without a database: they keep serving, redirects fail
 * open, /healthz says 503, and serve starts a repair once it listens.
 * Nothing of it runs yet: the swapper polls the feed (and with it the
 * published database's listener) once the threads listen, and the leader
 * starts with the schedule; so a failed start has none of it to stop, and
 * closeInOrder stops the swapper and the leader. The serving copy is a
 * memory descriptor, held until a swap replaces it or the process ends.
 */
function startDatabase(config: Config, currentFile: string, storage: Storage): NodeDatabase {
  const database = new DatabaseSwapper(currentFile, config.dataDir, storage);
  database.publishInitial();
  const leader = config.databaseUrl === null ? null : new RefreshLeader(config.databaseUrl, config.nodeName);
  const published = storage.cluster ? new PublishedDatabase(storage, currentFile, () => database.swapToCurrent(null)) : null;
  return { database, leader, published };
}

/** The refresh scheduler and what a thread's refresh request does, made by planRefresh. */
interface NodeRefresh {
  scheduler: RefreshScheduler;
  requested: (accountId: number) => void;
}

/**
 * The refresh scheduler, not started yet (startRefreshing), and the handling
 * of refresh triggers (refreshTriggers). A refreshed file is installed by
 * moving every thread to it; in cluster mode the published database learns
 * that this node has it. May run only on a single node or the leader.
 * closeInOrder halts the scheduler first and closes it once the threads
 * have stopped.
 */
function planRefresh(config: Config, storage: Storage, prepared: PreparedNode, ipdb: NodeDatabase): NodeRefresh {
  const { database, leader, published } = ipdb;
  const scheduler = new RefreshScheduler(
    config,
    storage.state,
    prepared.metrics,
    prepared.shared.refresh,
    async (result) => {
      const swap = () => database.swapToCurrent(result.tables);
      await (published ? published.installedLocally(swap) : swap());
    },
    leader ? () => leader.isLeader : undefined,
  );
  return { scheduler, requested: refreshTriggers(config, storage, prepared.shared, scheduler, leader) };
}

/**
 * Starts the spawned threads, each with its input (the serving copy, the TLS
 * files, the shared memory, the keyword tables), and resolves once every one
 * listens; then the database swapper follows them. From the start on, the
 * threads keep the process alive, and a thread that exits with an error stops
 * the server with exit code 1. A thread that could not start (port taken,
 * ...) must not leave the others running: everything is stopped, so that the
 * process exits with the error.
 */
async function startThreads(
  config: Config,
  prepared: PreparedNode,
  tls: WorkerInput['tls'],
  database: DatabaseSwapper,
  refresh: NodeRefresh,
  shutdown: Shutdown,
): Promise<void> {
  const { threads, shared } = prepared;
  const inputs = Array.from({ length: config.threads }, (_, thread) => ({ thread, config, dbFile: database.serving?.path ?? '', tls, shared, tables: database.tables, instance: prepared.instance }));
  try {
    await threads.start(inputs, {
      onRefreshRequest: refresh.requested,
      onCrash: (thread, code) => {
        log('error', 'thread_exited', { thread, code });
        shutdown.fail();
      },
    });
  } catch (err) {
    await shutdown.stop();
    throw err;
  }
  database.attach(threads, () => refresh.scheduler.busy || shutdown.underway);
}

/**
 * The one stop of a server, for a signal, a crashed thread and a start that
 * failed once its threads were told to start: every caller gets the same
 * promise, resolved when everything is closed (closeInOrder). The connection
 * guard joins last, once the threads listen; a stop already under way then
 * reads it when its turn comes.
 */
class Shutdown {
  guard: { stop(): void } | null = null;
  readonly #parts: ServerParts;
  #stopping: Promise<void> | null = null;

  constructor(parts: ServerParts) {
    this.#parts = parts;
  }

  get underway(): boolean {
    return this.#stopping !== null;
  }

  readonly stop = (): Promise<void> => (this.#stopping ??= closeInOrder({ ...this.#parts, guard: () => this.guard }));

  /** The stop of a server that cannot go on (a thread crashed, its cluster name was taken): exit code 1, kept through a signal during it (cli/main.ts). */
  readonly fail = (): void => {
    process.exitCode = 1;
    void this.stop();
  };
}

/** What `cluster status` shows of Redis: the server threads hold the links (limits/redis-link.ts). */
function redisStatus(metrics: Metrics, threads: number): string {
  const up = metrics.total(Metric.redisConnected);
  return up >= threads ? 'connected' : up > 0 ? `connected on ${up} of ${threads} threads` : 'unreachable';
}

/** What a start made that closeInOrder stops, besides the connection guard. */
interface ServerParts {
  refresh: RefreshScheduler;
  leader: RefreshLeader | null;
  database: DatabaseSwapper;
  threads: ServerThreads;
  node: ClusterNode | null;
  storage: Storage;
  lock: DataDirLock;
}

/**
 * Shuts the server down: no refresh starts and none is published, the
 * connection guard stops, the threads finish what they are answering, then
 * the refresh, the cluster membership and the storage close, and last the
 * data directory's lock is released.
 */
async function closeInOrder(
  parts: ServerParts & {
    /** Read when its turn comes: a start still under way may set it meanwhile. */
    guard: () => { stop(): void } | null;
  },
): Promise<void> {
  parts.refresh.halt();
  await parts.leader?.stop();
  parts.database.stop();
  parts.guard()?.stop();
  log('info', 'shutting_down', {});
  const cleanThreads = await parts.threads.stop();
  await parts.refresh.close();
  await parts.node?.stop();
  await parts.storage.close();
  parts.lock.release();
  log('info', 'stopped', { cleanThreads });
}

/**
 * The node's storage: LMDB alone on a single node; in cluster mode the
 * schema migrated and the replica caught up before anything reads it, and
 * the first node of a new cluster bootstraps it (under the migration lock,
 * so that nodes starting together bootstrap once). When the cluster start
 * fails, it closes the membership and the storage itself; once it returns,
 * closeInOrder closes them.
 */
async function openNodeStorage(
  config: Config,
  prepared: PreparedNode,
  ipdb: () => { version: string | null; sha256: string | null },
  announce?: (text: string) => void,
): Promise<{ storage: Storage; node: ClusterNode | null }> {
  const { shared } = prepared;
  const redis = () => redisStatus(prepared.metrics, config.threads);
  const clusterStatus = new ClusterStatus(shared.cluster);
  const storage = await openStorage(config.dataDir, {
    signal: shared.feed,
    cluster: config.databaseUrl === null ? null : { databaseUrl: config.databaseUrl, nodeName: config.nodeName, poolSize: MAIN_POOL_SIZE, connected: () => clusterStatus.connected },
  });
  if (!storage.cluster) {
    // Gone back to one node with batches a cluster node kept at a stop during an outage: a single node does not send them.
    const kept = storage.keptBatches();
    if (kept > 0) log('warn', 'kept_batches_unsent', { batches: kept, remedy: 'start this node once more in cluster mode while PostgreSQL answers' });
    await bootstrapOnce(storage, config.dataDir, announce);
    return { storage, node: null };
  }
  const node = new ClusterNode(storage, shared.cluster, { ipdb, redis, ready: () => clusterStatus.readiness().ready }, { instance: prepared.instance, dataDir: config.dataDir }, config.changeLogMb * 2 ** 20, limitsOf(config));
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
    const trigger = apiTrigger(accountId);
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
