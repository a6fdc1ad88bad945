// Shared benchmark helpers: statistics, machine facts, result files.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function summary(xs) {
  return { median: round(median(xs)), min: round(Math.min(...xs)), max: round(Math.max(...xs)), samples: xs.map((x) => round(x)) };
}

export function round(x, digits = 2) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    date: new Date().toISOString(),
  };
}

/** A seeded xorshift32 PRNG: benchmarks and tests see the same addresses every run. */
export function xorshift(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

export function writeResult(name, result) {
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ name, machine: machine(), ...result }, null, 2)}\n`);
  return file;
}

export function table(headers, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

// ---- processes, CPU and wrk -------------------------------------------------

const TICKS = 100; // USER_HZ on Linux

/** User + system CPU seconds of a process, all its threads included. */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

export const canPin = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true']);
    return os.cpus().length >= 2;
  } catch {
    return false;
  }
})();

/** Spawns `node args` pinned to `cpu`, resolves once it prints a JSON line with event "listening". */
export function startPinned(cpu, args, env = {}) {
  const cmd = canPin ? 'taskset' : process.execPath;
  const argv = canPin ? ['-c', String(cpu), process.execPath, ...args] : args;
  const child = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line from ${args.join(' ')}:\n${out}`)), 30_000);
    child.stdout.on('data', (d) => {
      out += d;
      for (const line of out.split('\n')) {
        if (line.includes('"listening"')) {
          clearTimeout(timer);
          const { ports } = JSON.parse(line);
          resolve({ child, pid: child.pid, ports, output: () => out });
          return;
        }
      }
    });
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
}

export async function stopProcess(p) {
  if (p.child.exitCode !== null) return;
  const done = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  await done;
}

export function haveWrk() {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    return err.status === 1; // wrk --version exits 1 after printing
  }
}

/**
 * Runs wrk (pinned to `cpu`) against url and returns requests/s, latency
 * percentiles (ms), errors and wrk's own CPU. Extra wrk args e.g. headers.
 */
export function runWrk({ url, seconds, connections, threads = 1, cpu = 1, headers = [], script, timeout }) {
  const args = ['-t', String(threads), '-c', String(connections), '-d', `${seconds}s`, '--latency'];
  if (timeout) args.push('--timeout', timeout);
  for (const h of headers) args.push('-H', h);
  if (script) args.push('-s', script);
  args.push(url);
  const cmd = canPin ? 'taskset' : 'wrk';
  const argv = canPin ? ['-c', String(cpu), 'wrk', ...args] : args;
  return parseWrk(execFileSync(cmd, argv, { encoding: 'utf8', maxBuffer: 1 << 24 }));
}

function toMs(text) {
  const m = /^([0-9.]+)(us|ms|s)$/.exec(text.trim());
  if (!m) return NaN;
  const v = Number(m[1]);
  return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
}

export function parseWrk(text) {
  const rps = Number(/Requests\/sec:\s+([0-9.]+)/.exec(text)?.[1]);
  const total = Number(/([0-9]+) requests in/.exec(text)?.[1]);
  const pct = (p) => toMs(new RegExp(`\\s${p}%\\s+([0-9.]+(?:us|ms|s))`).exec(text)?.[1] ?? '');
  const non2xx = Number(/Non-2xx or 3xx responses:\s+([0-9]+)/.exec(text)?.[1] ?? 0);
  const sock = /Socket errors: connect ([0-9]+), read ([0-9]+), write ([0-9]+), timeout ([0-9]+)/.exec(text);
  const socketErrors = sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  return { rps, requests: total, p50: pct(50), p99: pct(99), non2xx, socketErrors, raw: text };
}

/**
 * The IP database a first start installs (dist/ipdb/current.js
 * ensureCurrentDatabase: the embedded ASN package with the shipped feed
 * snapshots and hosting list), cached across benchmark runs. The key covers
 * the package version, the builder's code, the feed snapshots and the
 * built-in lists, so a benchmark never measures a stale file and never
 * rebuilds inside a timed start-up.
 */
export async function cachedDatabase() {
  const { embeddedSource } = await import('../dist/ipdb/embedded.js');
  const { ensureCurrentDatabase } = await import('../dist/ipdb/current.js');
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const key = createHash('sha256');
  for (const dir of ['dist/ipdb', 'dist/ipdb/feeds', 'dist/quality', 'feeds/snapshots', 'src/quality/lists']) {
    for (const name of readdirSync(path.join(root, dir)).sort()) {
      const file = path.join(root, dir, name);
      if (statSync(file).isFile()) key.update(`${dir}/${name}`).update(readFileSync(file));
    }
  }
  const file = path.join(os.tmpdir(), `splitguard-bench-${embeddedSource().version}-${key.digest('hex').slice(0, 12)}.trie`);
  if (!existsSync(file)) {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'splitguard-bench-build-'));
    try {
      ensureCurrentDatabase(scratch);
      renameSync(path.join(scratch, 'ipdb', 'current.trie'), file);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  return file;
}

/** A fresh data directory holding a copy of the cached database. */
export async function freshDataDir(prefix) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  mkdirSync(path.join(dir, 'ipdb'), { recursive: true });
  copyFileSync(await cachedDatabase(), path.join(dir, 'ipdb', 'current.trie'));
  return dir;
}

/**
 * Interleaved pairs (A B A B ...): each arm is {proc, url, headers, script?,
 * connections?} (an arm's own connections in place of the run's); every run
 * reports requests/s, p50/p99 and the server's CPU microseconds per request
 * (from /proc, all threads). Runs with errors fail the benchmark; `timeout`
 * is wrk's per-request timeout (its default is 2 s).
 */
export function runPairs(arms, { pairs, seconds, connections, warmup = 2, allowNon2xx = false, timeout }) {
  const measure = (arm, secs) => {
    const before = cpuSeconds(arm.proc.pid);
    const r = runWrk({ url: arm.url, seconds: secs, connections: arm.connections ?? connections, headers: arm.headers ?? [], script: arm.script, timeout });
    const cpu = cpuSeconds(arm.proc.pid) - before;
    if ((!allowNon2xx && r.non2xx > 0) || r.socketErrors > 0) {
      throw new Error(`errors during the run: ${r.non2xx} non-2xx/3xx, ${r.socketErrors} socket errors\n${r.raw}`);
    }
    arm.requests = (arm.requests ?? 0) + r.requests;
    return { rps: round(r.rps), p50: r.p50, p99: r.p99, requests: r.requests, cpuUsPerRequest: round((cpu * 1e6) / r.requests) };
  };
  for (const arm of Object.values(arms)) measure(arm, warmup);
  const runs = Object.fromEntries(Object.keys(arms).map((k) => [k, []]));
  for (let p = 0; p < pairs; p++) for (const [name, arm] of Object.entries(arms)) runs[name].push(measure(arm, seconds));
  const stats = Object.fromEntries(
    Object.keys(arms).map((n) => {
      const s = (f) => summary(runs[n].map((r) => r[f]));
      return [n, { rps: s('rps'), p50ms: s('p50'), p99ms: s('p99'), cpuUsPerRequest: s('cpuUsPerRequest') }];
    }),
  );
  /** Median over pairs of a/b for a field. */
  const ratio = (a, b, field) => summary(runs[a].map((r, i) => r[field] / runs[b][i][field]));
  return { runs, stats, ratio };
}

export function armsTable(stats) {
  return table(
    ['arm', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req'],
    Object.entries(stats).map(([n, a]) => [n, a.rps.median, a.p50ms.median, a.p99ms.median, a.cpuUsPerRequest.median]),
  );
}

/**
 * `splitguard serve` with one thread, pinned to CPU 0, on a fresh data
 * directory holding the cached database; its API key and TLS files, and a
 * close() that stops it and removes the directory.
 */
export async function startSplitguard(prefix, env = {}) {
  const dataDir = await freshDataDir(prefix);
  const serverEnv = { SPLITGUARD_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: '1', ...env };
  // BENCH_PROFILE_DIR: a V8 CPU profile of every splitguard thread, written there when the server stops.
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  const proc = await startPinned(0, [...profile, path.join(path.dirname(fileURLToPath(import.meta.url)), '../bin/splitguard.js'), 'serve'], serverEnv);
  const certFile = path.join(dataDir, 'tls/cert.pem');
  return {
    proc,
    dataDir,
    env: serverEnv,
    key: JSON.parse(readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')).api_key,
    certFile,
    keyFile: path.join(dataDir, 'tls/key.pem'),
    ca: readFileSync(certFile),
    close: async () => {
      await stopProcess(proc);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
