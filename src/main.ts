// The process entry for `splitguard serve`: configuration, data directory,
// database, storage, TLS, then SPLITGUARD_THREADS server threads on one port.
// The only module that makes threads listen and the only one that handles
// signals. The main thread serves nothing itself: it coordinates database
// refreshes (schedule, API triggers, refreshes made by the CLI) and swaps,
// and runs the connection guard over the threads' connections.
import type { Config } from './config.js';
import { prepareConnectionLimits, startConnectionGuard } from './http/connection-guard.js';
import { cleanRefreshLeftovers } from './ipdb/refresh.js';
import { log } from './log.js';
import { Metrics } from './metrics.js';
import { DatabaseSwapper } from './serve/database-swapper.js';
import { RefreshScheduler } from './serve/refresh-scheduler.js';
import { allocateSharedMemory } from './serve/shared-memory.js';
import { assertPortFree, bootstrapOnce, prepareDatabaseFile, prepareTls } from './serve/startup.js';
import { ServerThreads } from './serve/threads.js';
import { prepareDataDir } from './store/db.js';
import { ClusterNode, ClusterStatus } from './store/pg/node.js';
import { openStorage } from './store/storage.js';

/** Connections to PostgreSQL the main thread's storage may hold (bootstrap, refresh state). */
const MAIN_POOL_SIZE = 2;

export interface RunningServer {
  ports: number[];
  stop(): Promise<void>;
}

export async function serve(config: Config, options: { announce?: (text: string) => void } = {}): Promise<RunningServer> {
  const started = performance.now();
  prepareDataDir(config.dataDir);
  // Before anything opens descriptors: the soft open-file limit up to the hard one.
  const connectionLimits = prepareConnectionLimits(config);
  await assertPortFree(config.host, config.port);
  cleanRefreshLeftovers(config.dataDir);
  const currentFile = prepareDatabaseFile(config);
  const shared = allocateSharedMemory(config);
  const clusterStatus = new ClusterStatus(shared.cluster);
  const storage = openStorage(config.dataDir, {
    signal: shared.feed,
    cluster: config.databaseUrl === null ? null : { databaseUrl: config.databaseUrl, nodeName: config.nodeName, poolSize: MAIN_POOL_SIZE, connected: () => clusterStatus.connected },
  });
  // Cluster mode: the schema migrated and the replica caught up before
  // anything reads it; the first node of a new cluster bootstraps it (under
  // the migration lock, so that nodes starting together bootstrap once).
  let node: ClusterNode | null = null;
  if (storage.cluster) {
    node = new ClusterNode(storage, shared.cluster, {
      ipdb: () => ({ version: null, sha256: null }),
      redis: () => 'unknown',
      ready: () => clusterStatus.readiness().ready,
    });
    try {
      await node.start(() => bootstrapOnce(storage, config.dataDir, options.announce));
    } catch (err) {
      await node.stop();
      await storage.close();
      throw err;
    }
  } else {
    await bootstrapOnce(storage, config.dataDir, options.announce);
  }
  const tls = prepareTls(config);

  const metrics = new Metrics(shared.metrics, config.threads);
  // A damaged current.trie leaves the threads without a database: they keep
  // serving, redirects fail open, /healthz says 503, and a repair starts below.
  const database = new DatabaseSwapper(currentFile, config.dataDir, storage);
  database.publishInitial();
  const refresh = new RefreshScheduler(config, storage.state, metrics, shared.refresh, (result) => database.swapToCurrent(result.tables));
  const threads = new ServerThreads();

  let stopping: Promise<void> | null = null;
  let guard: { stop(): void } | null = null;
  // Every caller gets the same promise, resolved when everything is closed.
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      refresh.halt();
      database.stop();
      guard?.stop();
      log('info', 'shutting_down', {});
      const cleanThreads = await threads.stop();
      await refresh.close();
      await node?.stop();
      await storage.close();
      log('info', 'stopped', { cleanThreads });
    })());

  const inputs = Array.from({ length: config.threads }, (_, thread) => ({ thread, config, dbFile: database.serving?.path ?? '', tls, shared, tables: database.tables }));
  try {
    await threads.start(inputs, {
      onRefreshRequest: (accountId) => void refresh.run(`api (account ${accountId})`),
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
  await refresh.start();
  guard = startConnectionGuard(threads.ports, connectionLimits.limits, metrics);
  log('info', 'listening', { host: config.host, ports: threads.ports, threads: config.threads, url: config.baseUrl, startupMs: Math.round(performance.now() - started) });
  // Serving without a database: repair it now from the configured sources
  // (the installed package last) instead of waiting for the schedule.
  if (database.serving === null) void refresh.run('repair');
  return { ports: threads.ports, stop };
}
