// Shared helpers of the long reliability runs (crash.js, soak.js): the real
// server as a child process (`bin/splitguard.js serve`, PORT=0 so every
// thread has its own port), an HTTPS client that keeps connections alive and
// trusts only the server's certificate, the CLI, a check that the LMDB store
// opens and reads end to end, and memory samples from /proc.
//
// Plain JavaScript so that `node test/stress/<script>.js` runs without a
// build step of its own; the server itself runs from dist/ (build it first:
// `npx tsc -p tsconfig.build.json`). The CI versions in
// test/integration/reliability/ run these scripts with short parameters.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin', 'splitguard.js');
export const STORE_CHECK = path.join(ROOT, 'test', 'stress', 'store-check.js');

export function requireBuild() {
  if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) {
    console.error('dist/ is missing: build it first with `npx tsc -p tsconfig.build.json`');
    process.exit(2);
  }
}

/** util.parseArgs with every option a string; numbers are converted by the caller. */
export function options(spec, usage) {
  try {
    return parseArgs({ options: Object.fromEntries(Object.keys(spec).map((k) => [k, { type: spec[k] === 'flag' ? 'boolean' : 'string' }])), strict: true }).values;
  } catch (err) {
    console.error(`${err.message}\n\n${usage}`);
    process.exit(2);
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A data directory: the one given (which the caller owns), or a fresh one with a cached IP database. */
export async function dataDirFor(given, prefix) {
  if (given) return { dir: path.resolve(given), owned: false };
  const { freshDataDir } = await import('../../bench/lib.js');
  return { dir: await freshDataDir(prefix), owned: true };
}

/** The child environment: ours minus everything splitguard reads, plus `env`. */
export function serverEnv(dataDir, env = {}) {
  const out = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SPLITGUARD_') && k !== 'PORT' && k !== 'HOST') out[k] = v;
  Object.assign(out, { SPLITGUARD_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' }, env);
  for (const [k, v] of Object.entries(out)) if (v === undefined) delete out[k];
  return out;
}

/**
 * Starts `splitguard serve` and resolves once it logs "listening". The
 * result: child, pid, ports (one per thread), ca (PEM), key (the bootstrap
 * account's API key), output(), logs() (parsed JSON lines), exited (exit
 * code, or the signal's name).
 */
export function startServer({ dataDir, threads = 2, env = {}, timeoutMs = 60_000 }) {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: serverEnv(dataDir, { SPLITGUARD_THREADS: String(threads), ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  // A script that fails half-way must not leave a server behind.
  const orphan = () => child.kill('SIGKILL');
  process.once('exit', orphan);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  void exited.then(() => process.off('exit', orphan));
  const output = () => `--- stdout ---\n${stdout}--- stderr ---\n${stderr}`;
  const logs = () =>
    stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return { unparsed: l };
      }
    });
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no "listening" within ${timeoutMs} ms\n${output()}`));
    }, timeoutMs);
    let pending = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
      pending += d;
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (!line.includes('"listening"')) continue;
        clearTimeout(timer);
        const { ports } = JSON.parse(line);
        let boot = { api_key: null };
        try {
          boot = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8'));
        } catch {
          // removed by the operator (or lost): callers bring their own key
        }
        resolve({
          child, pid: child.pid, ports, exited, output, logs,
          ca: readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8'),
          key: boot.api_key,
          /** SIGKILL: the whole process, every thread, no chance to flush anything. */
          kill9: () => {
            child.kill('SIGKILL');
            return exited;
          },
          stop: (timeout = 30_000) => {
            if (child.exitCode !== null || child.signalCode !== null) return exited;
            child.kill('SIGTERM');
            const t = setTimeout(() => child.kill('SIGKILL'), timeout);
            return exited.finally(() => clearTimeout(t));
          },
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening\n${output()}`));
    });
  });
}

/**
 * HTTPS to the server's threads over kept-alive connections, round robin
 * over the ports unless a port is given. Never rejects for an HTTP status:
 * a transport failure (reset, refused, timeout) rejects.
 */
export class Client {
  constructor(server, { maxSockets = 16, timeoutMs = 15_000 } = {}) {
    this.ports = server.ports;
    this.key = server.key;
    this.timeoutMs = timeoutMs;
    this.agents = server.ports.map(() => new https.Agent({ keepAlive: true, maxSockets, ca: server.ca }));
    this.next = 0;
  }

  request({ method = 'GET', path: urlPath, json, key = this.key, headers = {}, thread }) {
    const t = thread ?? this.next++ % this.ports.length;
    const h = { ...headers };
    if (key) h.Authorization = `Bearer ${key}`;
    const body = json === undefined ? undefined : Buffer.from(JSON.stringify(json));
    if (body) {
      h['Content-Type'] = 'application/json';
      h['Content-Length'] = String(body.length);
    }
    return new Promise((resolve, reject) => {
      const req = https.request(
        { host: '127.0.0.1', port: this.ports[t], method, path: urlPath, headers: h, agent: this.agents[t], timeout: this.timeoutMs },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed;
            if (/json/.test(res.headers['content-type'] ?? '')) {
              try {
                parsed = JSON.parse(text);
              } catch {
                parsed = undefined;
              }
            }
            resolve({ status: res.statusCode, headers: res.headers, body: text, json: parsed });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer to ${method} ${urlPath} within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  close() {
    for (const a of this.agents) a.destroy();
  }
}

/** Runs the splitguard command on a data directory; resolves with { code, stdout, stderr }. */
export function runCli(args, dataDir, env = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env: serverEnv(dataDir, env), encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** `splitguard account create`; returns { account_id, api_key, ... }. */
export async function createAccount(dataDir, name, quota) {
  const r = await runCli(['account', 'create', '--name', name, '--quota', String(quota)], dataDir);
  if (r.code !== 0) throw new Error(`account create exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * Opens the data directory's LMDB store in a separate process (the same code
 * the server uses: dist/store/db.js, which also runs the migrations) and
 * reads every record of every database. Resolves with { ok, counts, error }.
 */
export function checkStore(dataDir) {
  return new Promise((resolve) => {
    execFile(process.execPath, [STORE_CHECK, dataDir], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) {
        resolve({ ok: false, counts: null, error: `${stderr || err.message}`.trim() });
        return;
      }
      resolve({ ok: true, counts: JSON.parse(stdout), error: null });
    });
  });
}

/** VmRSS, RssAnon, RssFile and Threads of a process from /proc/<pid>/status (KiB), or null once it is gone. */
export function memory(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { rssKiB: field('VmRSS'), anonKiB: field('RssAnon'), fileKiB: field('RssFile'), threads: field('Threads') };
}

export function loadAverage() {
  return os.loadavg().map((x) => Math.round(x * 100) / 100);
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const round = (x, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
