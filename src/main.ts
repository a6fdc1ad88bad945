// The process entry for `splitguard serve`: configuration, data directory,
// database, storage, TLS, then SPLITGUARD_THREADS server threads on one port.
// The only module that makes threads listen; the only one that handles signals.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { bootstrap } from './bootstrap.js';
import type { Config } from './config.js';
import { ensureCurrentDatabase } from './ipdb/current.js';
import { log } from './log.js';
import { Metrics } from './metrics.js';
import { SharedRateLimiter } from './http/rate-limit.js';
import { RouteCache } from './redirect/route-cache.js';
import { openStores } from './store/db.js';
import { ensureTls } from './tls/self-signed.js';
import type { WorkerInput, WorkerMessage } from './server.worker.js';

const WORKER_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'server.worker.js');

export interface RunningServer {
  ports: number[];
  stop(): Promise<void>;
}

export async function serve(config: Config, options: { announce?: (text: string) => void } = {}): Promise<RunningServer> {
  mkdirSync(config.dataDir, { recursive: true });
  const started = performance.now();
  const { file: dbFile, built } = ensureCurrentDatabase(config.dataDir);
  if (built) log('info', 'database_built', { file: dbFile, v4Ranges: built.v4Ranges, v6Ranges: built.v6Ranges, size: built.size });

  const stores = openStores(config.dataDir);
  const secrets = bootstrap(stores, config.dataDir);
  await stores.root.close();
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

  const shared = {
    accounts: SharedRateLimiter.allocate(1 << 16),
    authFailures: SharedRateLimiter.allocate(1 << 14),
    metrics: Metrics.allocate(config.threads),
    routes: RouteCache.allocate(),
  };
  const workers: Worker[] = [];
  const ports: number[] = [];
  const closed = new Set<number>();
  const exited = new Set<Worker>();
  let stopping: Promise<void> | null = null;

  const allListening = new Promise<void>((resolve, reject) => {
    let ready = 0;
    for (let thread = 0; thread < config.threads; thread++) {
      const input: WorkerInput = { thread, config, dbFile, tls, shared };
      const w = new Worker(WORKER_FILE, { workerData: input });
      workers.push(w);
      w.on('message', (m: WorkerMessage) => {
        if (m.type === 'listening') {
          ports[m.thread] = m.port;
          if (++ready === config.threads) resolve();
        } else if (m.type === 'failed') {
          reject(new Error(m.error));
        } else if (m.type === 'closed') {
          closed.add(m.thread);
        }
      });
      w.on('error', (err) => {
        log('error', 'thread_failed', { thread, error: err });
        if (!stopping) reject(err);
      });
      w.on('exit', (code) => {
        exited.add(w);
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
  log('info', 'listening', { host: config.host, ports, threads: config.threads, url: config.baseUrl, startupMs: Math.round(performance.now() - started) });

  // Every caller gets the same promise, resolved when all threads are gone.
  // A thread that has already exited is not waited for.
  function stop(): Promise<void> {
    stopping ??= stopThreads();
    return stopping;
  }
  async function stopThreads(): Promise<void> {
    log('info', 'shutting_down', {});
    await Promise.all(
      workers.map(
        (w) =>
          exited.has(w)
            ? undefined
            : new Promise<void>((resolve) => {
                const timer = setTimeout(() => void w.terminate().then(() => resolve()), 15_000);
                w.once('exit', () => {
                  clearTimeout(timer);
                  resolve();
                });
                w.postMessage({ type: 'shutdown' });
              }),
      ),
    );
    log('info', 'stopped', { cleanThreads: closed.size });
  }
  return { ports, stop };
}
