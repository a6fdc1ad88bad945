// Starts the real server, `node bin/splitguard.js serve`, as a child process
// on 127.0.0.1 with PORT=0 (every thread listens on its own random port, so a
// test can address one thread) and a fresh temporary data directory holding a
// copy of the cached IP database.
import { type ChildProcess, spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installTestDatabase, ROOT } from './ipdb-cache.js';

export const BIN = path.join(ROOT, 'bin', 'splitguard.js');

export type Env = Record<string, string | undefined>;

export interface StartOptions {
  /** SPLITGUARD_THREADS (default 1). */
  threads?: number;
  /** Extra environment; a value of undefined removes the variable. */
  env?: Env;
  /** Use this data directory (the caller owns it) instead of a fresh one. */
  dataDir?: string;
  /** How long to wait for the "listening" line (default 30 s). */
  timeoutMs?: number;
  /**
   * A command that runs the server in its place (it must exec it, so that the
   * child's pid stays the server's), e.g. ['prlimit', '--nofile=300:300'].
   */
  wrapper?: string[];
}

export interface Bootstrap {
  admin_email: string;
  admin_password: string;
  account_id: number;
  api_key: string;
}

export interface TestServer {
  /** One port per thread, in thread order. */
  ports: number[];
  dataDir: string;
  /** The bootstrap account's key, from bootstrap.json ('' when the data directory has none). */
  apiKey: string;
  accountId: number;
  /** The server's certificate (PEM), for clients to trust. */
  ca: string;
  process: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  exited: Promise<number | null>;
  /**
   * Sends `signal` (default SIGTERM) unless a signal was already sent through
   * stop() or the process has exited, and resolves with the exit code.
   */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Stops the server if it still runs and removes the data directory if this helper created it. */
  close(): Promise<void>;
  /** Everything the process wrote so far, stdout then stderr. */
  output(): string;
  /** The parsed JSON log lines on stdout so far. */
  logs(): Record<string, unknown>[];
}

const UNCORKED = 'uWS.HttpResponse writes must be made from within a corked callback';

/** A fresh temporary data directory with the test IP database installed. */
export function tempDataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'splitguard-test-'));
  installTestDatabase(dir);
  return dir;
}

/** The environment for a child: the parent's minus anything splitguard reads, plus `env`. */
export function childEnv(dataDir: string, env: Env = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('SPLITGUARD_') || k === 'PORT' || k === 'HOST') continue;
    out[k] = v;
  }
  out.SPLITGUARD_DATA_DIR = dataDir;
  // Tests reach no publisher: the feeds stay as shipped unless a test serves
  // its own copies (SPLITGUARD_FEED_SOURCES=name=http://127.0.0.1:...).
  out.SPLITGUARD_FEED_SOURCES = 'off';
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p));

/**
 * A wrapper (StartOptions.wrapper) that runs its command under an open-file
 * limit of `n`, soft and hard: util-linux's prlimit, else the shell's ulimit.
 */
export function fileLimitWrapper(n: number): string[] {
  return PRLIMIT ? [PRLIMIT, `--nofile=${n}:${n}`] : ['sh', '-c', `ulimit -n ${n} && exec "$0" "$@"`];
}

/**
 * Runs `splitguard serve` on `dataDir` until it ends by itself: for starts
 * that must be refused. One that hangs is killed after 20 s with SIGKILL, so
 * that the test fails instead of waiting: SIGTERM waits for the server's
 * handler, which never runs while its thread is blocked (in a read of a FIFO).
 */
export function serveToExit(dataDir: string, env: Env = {}, wrapper: string[] = [], timeoutMs = 20_000): SpawnSyncReturns<string> {
  const [command, ...args] = [...wrapper, process.execPath, BIN, 'serve'];
  return spawnSync(command, args, { env: childEnv(dataDir, { PORT: '0', HOST: '127.0.0.1', ...env }), encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL' });
}

export function readBootstrap(dataDir: string): Bootstrap {
  return JSON.parse(readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap;
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const owned = options.dataDir === undefined;
  const dataDir = options.dataDir ?? tempDataDir();
  const env = childEnv(dataDir, { PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: String(options.threads ?? 1), ...options.env });
  const [command, ...args] = [...(options.wrapper ?? []), process.execPath, BIN, 'serve'];
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });

  let stdout = '';
  let stderr = '';
  const output = () => `--- stdout ---\n${stdout}--- stderr ---\n${stderr}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let running = true;
  void exited.then(() => {
    running = false;
  });

  const ports = await new Promise<number[]>((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not report "listening" within ${timeoutMs} ms\n${output()}`));
    }, timeoutMs);
    let pending = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        let entry: { event?: string; ports?: number[] };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          continue;
        }
        if (entry.event === 'listening' && Array.isArray(entry.ports)) {
          clearTimeout(timer);
          resolve(entry.ports);
        }
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (code ${code}) before listening\n${output()}`));
    });
  }).catch((err: unknown) => {
    if (owned) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  });

  // A cluster node that found the cluster bootstrapped already has no bootstrap.json (nor a start that could not write it).
  const boot = statSync(path.join(dataDir, 'bootstrap.json'), { throwIfNoEntry: false })?.isFile() ? readBootstrap(dataDir) : { api_key: '', account_id: 0 };
  let signalled = false;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (running && !signalled) {
      signalled = true;
      child.kill(signal);
    }
    return exited;
  };
  return {
    ports,
    dataDir,
    apiKey: boot.api_key,
    accountId: boot.account_id,
    ca: readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8'),
    process: child,
    exited,
    stop,
    async close() {
      if (running) {
        void stop();
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
      if (owned) rmSync(dataDir, { recursive: true, force: true });
      // uWebSockets.js prints this for every write made outside a corked
      // callback: text no log reader expects, and as much of it as a client
      // can make the server write (docs/reliability.md, finding 46).
      if (output().includes(UNCORKED)) throw new Error(`the server wrote outside a corked callback:\n${output().slice(output().indexOf(UNCORKED) - 200, output().indexOf(UNCORKED) + 200)}`);
    },
    output,
    logs: () =>
      stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
