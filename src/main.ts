// The process entry for `splitguard serve`: configuration, data directory,
// database, storage, TLS, then SPLITGUARD_THREADS server threads on one port.
// The only module that makes threads listen and the only one that handles
// signals. The main thread serves nothing itself: it coordinates database
// refreshes (schedule, API triggers, refreshes made by the CLI) and swaps,
// and runs the connection guard over the threads' connections.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { Worker } from 'node:worker_threads';
import { bootstrap } from './bootstrap.js';
import { AppError } from './errors.js';
import type { Config } from './config.js';
import { ensureCurrentDatabase } from './ipdb/current.js';
import { IpDatabase } from './ipdb/database.js';
import { DEFAULT_SOURCES, limitsFor } from './ipdb/fetch.js';
import { cleanRefreshLeftovers, databaseGeneration, nextDue, nextRefreshAt, Refresher, storeNextDue } from './ipdb/refresh.js';
import { publish, release, removeServingFiles, type ServingCopy } from './ipdb/serving.js';
import { log } from './log.js';
import { M, Metrics } from './metrics.js';
import { type GuardRunner, prepareConnectionLimits, startConnectionGuard } from './http/connection-guard.js';
import { FailureLimiter } from './http/failure-limiter.js';
import { SharedRateLimiter } from './http/rate-limit.js';
import { PasswordWork } from './console/password-work.js';
import type { KeywordTables } from './quality/classifier.js';
import { keywordTablesFor } from './quality/keyword-cache.js';
import { builtInLists } from './quality/lists.js';
import { RouteCache } from './redirect/route-cache.js';
import { openStores, prepareDataDir } from './store/db.js';
import { ensureTls } from './tls/self-signed.js';
import type { MainMessage, WorkerInput, WorkerMessage } from './server.worker.js';

const WORKER_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'server.worker.js');
/** How often the main thread looks for a database installed by another process (the CLI). */
const GENERATION_POLL_MS = 1000;

export interface RunningServer {
  ports: number[];
  stop(): Promise<void>;
}

/** The keyword tables of a database file (cached on disk), shared with every thread. */
function tablesFor(file: string, dataDir: string): KeywordTables {
  const db = IpDatabase.open(file);
  try {
    return keywordTablesFor(db, builtInLists(), path.join(dataDir, 'ipdb'));
  } finally {
    db.close();
  }
}

/**
 * The threads listen with SO_REUSEPORT so that they can share the port, which
 * would also let a second splitguard (or anything else with that option)
 * share it silently. A plain bind first fails if anyone is listening there.
 */
function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new AppError('port_in_use', `${host}:${port}`) : new Error(`cannot listen on ${host}:${port}: ${err.message}`)),
    );
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/**
 * The young generation of each server thread's heap. V8's default lets it
 * grow to several MB during start-up, resident in every thread; a redirect
 * allocates a few hundred bytes, so a small one only means more scavenges of
 * almost nothing. Measured (A/B, 5 interleaved pairs of 8 s redirect load):
 * the second thread adds 12.9-13.6 MB of RSS instead of 15.3, at the same CPU
 * per redirect (ratio 0.99, range 0.80-1.16) and requests/s (1.04).
 */
const SERVER_THREAD_YOUNG_GENERATION_MB = 3;

export async function serve(config: Config, options: { announce?: (text: string) => void } = {}): Promise<RunningServer> {
  prepareDataDir(config.dataDir);
  const started = performance.now();
  // Before anything opens descriptors: the soft open-file limit up to the hard one.
  const connectionLimits = prepareConnectionLimits(config);
  await assertPortFree(config.host, config.port);
  cleanRefreshLeftovers(config.dataDir);
  const { file: currentFile, built, replacedVersion } = ensureCurrentDatabase(config.dataDir);
  if (built) {
    // An undefined field is left out of the line.
    const replacedFormatVersion = replacedVersion ?? undefined;
    log('info', 'database_built', { file: currentFile, v4Ranges: built.v4Ranges, v6Ranges: built.v6Ranges, size: built.size, replacedFormatVersion });
  }

  const stores = openStores(config.dataDir);
  const secrets = bootstrap(stores, config.dataDir);
  if (secrets) {
    log('info', 'bootstrap', { admin_email: secrets.admin_email, account_id: secrets.account_id, file: path.join(config.dataDir, 'bootstrap.json') });
    options.announce?.(
      `splitguard first start: admin login ${secrets.admin_email} / ${secrets.admin_password}\n` +
        `API key for account ${secrets.account_id}: ${secrets.api_key}\n` +
        `(shown once; also in ${path.join(config.dataDir, 'bootstrap.json')}, mode 0600)`,
    );
  }
  const tls = ensureTls(config.dataDir, { cert: config.tlsCert, key: config.tlsKey }, [config.baseUrl, config.shortBase]);
  if (tls.generated) log('info', 'tls_self_signed', { cert: tls.certFile });

  // The database the threads start with: a sealed serving copy (serving.ts)
  // and its keyword tables. A damaged current.trie leaves the threads without
  // a database: they keep serving, redirects fail open, /healthz says 503.
  let serving: ServingCopy | null = null;
  let tables: KeywordTables | null = null;
  try {
    serving = publish(currentFile);
    tables = tablesFor(serving.path, config.dataDir);
  } catch (err) {
    release(serving);
    serving = null;
    log('error', 'database_unavailable', { file: currentFile, error: err });
  }
  removeServingFiles(config.dataDir);

  const shared = {
    accounts: SharedRateLimiter.allocate(1 << 16),
    // Failure tables hold 8 keys a set: 32,768 client addresses for the API,
    // 8,192 each for console sign-ins by address and by email at an address.
    authFailures: FailureLimiter.allocate(1 << 12),
    loginAddresses: FailureLimiter.allocate(1 << 10),
    loginEmailAtAddress: FailureLimiter.allocate(1 << 10),
    loginEmails: FailureLimiter.allocate(1 << 8),
    passwordWork: PasswordWork.allocate(),
    // One region per server thread plus one for this thread.
    metrics: Metrics.allocate(config.threads + 1),
    routes: RouteCache.allocate(),
    auth: new SharedArrayBuffer(4),
    refresh: new SharedArrayBuffer(8),
  };
  stores.authSignal = new Int32Array(shared.auth);
  const metrics = new Metrics(shared.metrics, config.threads);
  const refreshSince = new BigInt64Array(shared.refresh);
  const workers: Worker[] = [];
  const ports: number[] = [];
  const closed = new Set<number>();
  const swapWaiters = new Map<number, (m: WorkerMessage) => void>();
  const exited = new Set<Worker>();
  let stopping: Promise<void> | null = null;
  let guard: GuardRunner | null = null;

  // --- refresh and swap ---------------------------------------------------
  let generation = databaseGeneration(stores);
  let swapping: Promise<void> = Promise.resolve();

  /** Moves every thread to a new serving copy, then lets the old one go. */
  const swapAll = (copy: ServingCopy, t: KeywordTables) => {
    swapping = swapping.then(async () => {
      const acks = workers.map(
        (w, thread) =>
          new Promise<WorkerMessage>((resolve) => {
            swapWaiters.set(thread, resolve);
            w.postMessage({ type: 'swap', file: copy.path, tables: t } satisfies MainMessage);
          }),
      );
      const results = await Promise.all(acks);
      const failed = results.filter((r) => r.type === 'swapped' && r.error);
      // Every thread has mapped the new copy or kept the old mapping: no one
      // opens the old copy again.
      release(serving);
      serving = copy;
      log(failed.length ? 'error' : 'info', 'ipdb_swapped', { threads: results.length, failed: failed.length });
    });
    return swapping;
  };

  const refresher = new Refresher({
    dataDir: config.dataDir,
    stores,
    sources: config.ipdbSources ?? DEFAULT_SOURCES,
    limits: limitsFor(config.ipdbFetchTimeoutMs),
    onInstalled: async (result) => {
      generation = databaseGeneration(stores);
      await swapAll(publish(currentFile), result.tables);
    },
  });

  const startRefresh = (trigger: string) => {
    const run = refresher.start(trigger);
    // An API trigger already claimed the slot with its own time; keep it.
    Atomics.compareExchange(refreshSince, 0, 0n, BigInt(refresher.runningSince));
    void run
      .then((record) => {
        metrics.inc(record.outcome === 'updated' ? M.refreshUpdated : record.outcome === 'unchanged' ? M.refreshUnchanged : M.refreshFailed);
      })
      .catch((err) => {
        metrics.inc(M.refreshFailed);
        log('error', 'ipdb_refresh_crashed', { error: err });
      })
      .finally(async () => {
        Atomics.store(refreshSince, 0, 0n);
        await storeNextDue(stores, nextDue(Date.now(), config.ipdbRefreshHours));
        arm();
      });
    return run;
  };

  // The daily schedule; the due time lives in LMDB so a restart keeps it.
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    if (stopping) return;
    const due = nextRefreshAt(stores) ?? 0;
    const wait = Math.max(0, Math.min(due - Date.now(), 2 ** 31 - 1));
    timer = setTimeout(() => {
      if ((nextRefreshAt(stores) ?? 0) <= Date.now()) void startRefresh('schedule');
      else arm();
    }, wait);
    timer.unref();
  };
  if (nextRefreshAt(stores) === null) await storeNextDue(stores, nextDue(Date.now(), config.ipdbRefreshHours));

  // A database installed by another process (`splitguard ipdb refresh`).
  const poll = setInterval(() => {
    if (refresher.runningSince !== 0 || stopping) return;
    const g = databaseGeneration(stores);
    if (g === generation) return;
    generation = g;
    try {
      const copy = publish(currentFile);
      void swapAll(copy, tablesFor(copy.path, config.dataDir));
    } catch (err) {
      log('error', 'ipdb_swap_failed', { error: err });
    }
  }, GENERATION_POLL_MS);
  poll.unref();

  // --- threads --------------------------------------------------------------
  const allListening = new Promise<void>((resolve, reject) => {
    let ready = 0;
    for (let thread = 0; thread < config.threads; thread++) {
      const input: WorkerInput = { thread, config, dbFile: serving?.path ?? '', tls, shared, tables };
      const w = new Worker(WORKER_FILE, { workerData: input, resourceLimits: { maxYoungGenerationSizeMb: SERVER_THREAD_YOUNG_GENERATION_MB } });
      workers.push(w);
      w.on('message', (m: WorkerMessage) => {
        if (m.type === 'listening') {
          ports[m.thread] = m.port;
          if (++ready === config.threads) resolve();
        } else if (m.type === 'failed') {
          reject(new Error(m.error));
        } else if (m.type === 'closed') {
          closed.add(m.thread);
        } else if (m.type === 'swapped') {
          swapWaiters.get(m.thread)?.(m);
          swapWaiters.delete(m.thread);
        } else if (m.type === 'refresh') {
          void startRefresh(`api (account ${m.accountId})`);
        }
      });
      w.on('error', (err) => {
        log('error', 'thread_failed', { thread, error: err });
        if (!stopping) reject(err);
      });
      w.on('exit', (code) => {
        exited.add(w);
        swapWaiters.get(thread)?.({ type: 'swapped', thread, file: '', error: 'thread exited' });
        if (!stopping && code !== 0) {
          log('error', 'thread_exited', { thread, code });
          process.exitCode = 1;
          void stop();
        }
      });
    }
  });
  try {
    await allListening;
  } catch (err) {
    // A thread that could not start (port taken, ...) must not leave the
    // others running: stop them, so that the process exits with the error.
    await stop();
    throw err;
  }
  arm();
  guard = startConnectionGuard(ports, connectionLimits.limits, metrics);
  log('info', 'listening', { host: config.host, ports, threads: config.threads, url: config.baseUrl, startupMs: Math.round(performance.now() - started) });
  // Serving without a database (current.trie damaged): repair it now, from
  // the configured sources (the installed package last), instead of waiting
  // for the schedule. Until then redirects fail open.
  if (serving === null) void startRefresh('repair');

  // Every caller gets the same promise, resolved when everything is closed.
  function stop(): Promise<void> {
    stopping ??= stopAll();
    return stopping;
  }
  async function stopAll(): Promise<void> {
    clearTimeout(timer);
    clearInterval(poll);
    guard?.stop();
    log('info', 'shutting_down', {});
    await Promise.all(
      workers.map((w) => {
        // A thread that has already exited would never send 'exit' again.
        if (exited.has(w)) return undefined;
        return new Promise<void>((resolve) => {
          const kill = setTimeout(() => void w.terminate().then(() => resolve()), 15_000);
          w.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          w.postMessage({ type: 'shutdown' } satisfies MainMessage);
        });
      }),
    );
    await refresher.close();
    await stores.root.close();
    log('info', 'stopped', { cleanThreads: closed.size });
  }
  return { ports, stop };
}
