#!/usr/bin/env node
// HTTP fuzzer: sends N requests over raw TLS sockets (node:tls, every byte as
// built) to the real server (`splitguard serve`, a fresh data directory, the
// contract's rate limit of 60 per minute), from http-fuzz-cases.js:
// malformed request lines and headers, oversized headers and bodies, invalid
// UTF-8, deep and huge JSON, wrong types at every field of every endpoint,
// duplicate and prototype-poisoning keys, other accounts' routes. Each case
// goes out in one of four client shapes, drawn per slot from --seed:
//   * single (the rest): one case on its own connection, its answer judged;
//   * pipelined (--pipelined, default 0.1 of the cases): 2-8 cases in one
//     write on one connection, the answers read in order and each judged
//     against its case. Allowed besides: a case that may be refused by
//     closing or ignoring it (malformed input) ends the exchange there; after
//     an answered malformed case the rest may go unanswered; a 400 with
//     `Connection: close` ends the connection, and so does every HEAD
//     answer; and answers lost when
//     uWebSockets.js 20.30 closes the connection in the middle of a read
//     (see lostToUwsClose below), counted apart per category. A case that
//     declares a body it does not send goes last;
//   * unread (--unread, default 0.03): 50-400 copies of one case in one
//     write (at most 4 MiB), never read; after 0-300 ms the connection is
//     reset (RST), closed, or half-closed (FIN, then read until the server
//     closes); counted, not judged;
//   * aborted (--aborted, default 0.05): the case written and the connection
//     reset after 0-20 ms without reading, or its body cut in the middle (the
//     head and half the body written; half the bytes when it has no body),
//     then reset; counted, not judged.
// Meanwhile:
//   * a canary (its own thread) sends GET /healthz and GET /r/<code> every
//     100 ms on fresh connections: every one must succeed, within a bound;
//   * slow-loris clients hold connections open, sending a header byte per
//     second (and TCP clients that never finish the TLS handshake);
//   * rate-limit probes check that 429 comes exactly where the limits put it
//     (the account limit mid-run; the failed-authentication limit first).
// Every answer is judged against its case (status, error code, field,
// WWW-Authenticate, Allow, the error body's shape); a malformed request may
// also be refused by uWebSockets.js closing or ignoring it. At the end the
// server must be alive, have logged no unhandled error, have sent no 500,
// and stop cleanly on SIGTERM. The server's RSS is sampled every second.
//
//   node test/stress/http-fuzz.js [--requests 100000] [--concurrency 48]
//     [--threads 2] [--loris 200] [--seed 1] [--json FILE] [--accounts N]
//     [--canary-max-ms 2000] [--pipelined 0.1] [--unread 0.03] [--aborted 0.05]
//
// Builds nothing: run `npx tsc -p tsconfig.build.json` first. Exit 0 when
// nothing was violated; 1 otherwise (the report says what).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { GENERATORS, NEEDS, rng, WEIGHTS, http } from './http-fuzz-cases.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin', 'splitguard.js');
const USAGE =
  'usage: node test/stress/http-fuzz.js [--requests N] [--concurrency N] [--threads N] [--loris N] [--seed N] [--json FILE] [--accounts N] [--canary-max-ms MS] [--pipelined FRACTION] [--unread FRACTION] [--aborted FRACTION]';

let opts;
try {
  opts = parseArgs({
    options: {
      requests: { type: 'string', default: '100000' },
      concurrency: { type: 'string', default: '48' },
      threads: { type: 'string', default: '2' },
      loris: { type: 'string', default: '200' },
      seed: { type: 'string', default: '1' },
      json: { type: 'string' },
      accounts: { type: 'string' },
      'canary-max-ms': { type: 'string', default: '2000' },
      pipelined: { type: 'string', default: '0.1' },
      unread: { type: 'string', default: '0.03' },
      aborted: { type: 'string', default: '0.05' },
    },
    strict: true,
  }).values;
} catch (err) {
  console.error(`${err.message}\n${USAGE}`);
  process.exit(2);
}
const REQUESTS = Number(opts.requests);
const CONCURRENCY = Number(opts.concurrency);
const THREADS = Number(opts.threads);
const LORIS = Number(opts.loris);
const CANARY_MAX_MS = Number(opts['canary-max-ms']);
/** Shares of the cases sent pipelined, pipelined and never read, and aborted (the rest: one per connection). */
const SHARE = {};
for (const name of ['pipelined', 'unread', 'aborted']) {
  SHARE[name] = Number(opts[name]);
  if (!(SHARE[name] >= 0 && SHARE[name] <= 1)) {
    console.error(`Expected a fraction from 0 to 1 for --${name} but received ${opts[name]}\n${USAGE}`);
    process.exit(2);
  }
}
if (SHARE.pipelined + SHARE.unread + SHARE.aborted > 1) {
  console.error(`Expected --pipelined, --unread and --aborted to add up to at most 1 but received ${opts.pipelined} + ${opts.unread} + ${opts.aborted}\n${USAGE}`);
  process.exit(2);
}
/** Requests per account per rolling minute the fuzzer allows itself (the server's limit is 60). */
const BUDGET = 50;
const ACCOUNTS = Number(opts.accounts ?? Math.max(100, Math.min(1500, Math.ceil(REQUESTS / 15))));
const ADMINS = Math.max(4, Math.ceil(ACCOUNTS / 25));

if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) {
  console.error('dist/ is missing: build it first with `npx tsc -p tsconfig.build.json`');
  process.exit(2);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (text) => process.stderr.write(`[http-fuzz ${new Date().toISOString().slice(11, 19)}] ${text}\n`);

// --- the server ------------------------------------------------------------

const { freshDataDir } = await import('../../bench/lib.js');
const dataDir = await freshDataDir('splitguard-http-fuzz-');
log(`seeding ${ACCOUNTS} accounts (2 routes each) and ${ADMINS} admin accounts in ${dataDir}`);
const seeded = JSON.parse(
  execFileSync(process.execPath, [path.join(ROOT, 'test', 'stress', 'http-fuzz-seed.js'), dataDir, String(ACCOUNTS), String(ADMINS), '2'], { encoding: 'utf8', maxBuffer: 64 << 20 }),
);

const env = {};
for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SPLITGUARD_') && k !== 'PORT' && k !== 'HOST') env[k] = v;
Object.assign(env, { SPLITGUARD_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: String(THREADS) });
const server = spawn(process.execPath, [BIN, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
const events = {};
let stderrText = '';
let exitCode;
const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve((exitCode = code ?? signal))));
const ports = await new Promise((resolve, reject) => {
  let pending = '';
  const timer = setTimeout(() => reject(new Error('the server did not start within 60 s')), 60_000);
  server.stdout.setEncoding('utf8').on('data', (chunk) => {
    pending += chunk;
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        events['(not JSON)'] = (events['(not JSON)'] ?? 0) + 1;
        continue;
      }
      events[entry.event] = (events[entry.event] ?? 0) + 1;
      if (entry.level === 'error' && (events[`${entry.event}:example`] ?? 0) === 0) events[`${entry.event}:example`] = line.slice(0, 600);
      if (entry.event === 'listening') {
        clearTimeout(timer);
        resolve(entry.ports);
      }
    }
  });
  server.stderr.setEncoding('utf8').on('data', (chunk) => {
    if (stderrText.length < 1 << 20) stderrText += chunk;
  });
  void exited.then((code) => reject(new Error(`the server exited (${code}) before listening\n${stderrText}`)));
});
const ca = readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
const bootstrap = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8'));
log(`server pid ${server.pid}, ports ${ports.join(', ')}`);

function rssKiB(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
  } catch {
    return null;
  }
}

// --- raw requests ----------------------------------------------------------

/**
 * One response from `raw` starting at `at`, skipping 1xx interim answers; a
 * HEAD answer has no body. Returns { answer, end } (end: where the next
 * response starts), or null while incomplete.
 */
function parseAt(raw, at, head) {
  for (;;) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0) return null;
    const lines = raw.slice(at, end).split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0])?.[1] ?? 0);
    if (status >= 100 && status < 200) {
      at = end + 4;
      continue;
    }
    const headers = {};
    const names = [];
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      const name = (i < 0 ? l : l.slice(0, i)).toLowerCase();
      names.push(name);
      headers[name] = i < 0 ? '' : l.slice(i + 1).trim();
    }
    const length = head ? 0 : Number(headers['content-length'] ?? 0);
    if (raw.length - (end + 4) < length) return null;
    const body = Buffer.from(raw.slice(end + 4, end + 4 + length), 'latin1').toString('utf8');
    return { answer: { status, headers, names, body, statusLine: lines[0] }, end: end + 4 + length };
  }
}
const parse = (raw, head) => parseAt(raw, 0, head)?.answer ?? null;

function send(bytes, { head = false, localAddress, giveUpMs = 10_000 }) {
  const started = performance.now();
  return new Promise((resolve) => {
    let raw = '';
    let done = false;
    let socket;
    const finish = (outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const answer = parse(raw, head);
      resolve(answer ? { outcome: 'answered', ms: performance.now() - started, ...answer } : { outcome, ms: performance.now() - started, raw: raw.slice(0, 300) });
    };
    const timer = setTimeout(() => finish('silent'), giveUpMs);
    socket = tls.connect({ host: '127.0.0.1', port: ports[next++ % ports.length], ca, servername: 'localhost', localAddress }, () => {
      socket.write(bytes);
    });
    socket.on('data', (d) => {
      raw += d.toString('latin1');
      if (parse(raw, head)) finish('answered');
    });
    socket.on('error', (err) => {
      countConnectError(err);
      finish('closed');
    });
    socket.on('close', () => finish('closed'));
  });
}
let next = 0;
const connectErrors = {};
function countConnectError(err) {
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ECONNREFUSED') connectErrors[err.code] = (connectErrors[err.code] ?? 0) + 1;
}

/**
 * Writes `cases` in one write on one connection and reads the answers in
 * order. Gives up on the next answer after `giveUpMs[i]` without progress.
 * Resolves with the answers that arrived whole and how the exchange ended:
 * 'complete', 'closed' (by the server, or an error), 'silent' (given up), or
 * 'connection: close' (an answer said so; nothing after it is read);
 * `connected`: whether the TLS handshake completed.
 */
function sendPipeline(cases, { localAddress, giveUpMs }) {
  const started = performance.now();
  return new Promise((resolve) => {
    let raw = '';
    let at = 0;
    let done = false;
    let timer;
    let connected = false;
    const answers = [];
    const finish = (ending) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      // Bytes after the last expected answer: a body where none belongs (HEAD) or a response to nothing.
      resolve({ answers, ending, connected, ms: performance.now() - started, extra: ending === 'complete' ? raw.slice(at, at + 300) : '', rest: raw.slice(at, at + 300) });
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish('silent'), giveUpMs[answers.length]);
    };
    arm();
    const socket = tls.connect({ host: '127.0.0.1', port: ports[next++ % ports.length], ca, servername: 'localhost', localAddress }, () => {
      connected = true;
      socket.write(Buffer.concat(cases.map((c) => c.bytes)));
    });
    socket.on('data', (d) => {
      raw += d.toString('latin1');
      for (;;) {
        const got = parseAt(raw, at, cases[answers.length].head);
        if (!got) return;
        at = got.end;
        answers.push({ outcome: 'answered', ms: performance.now() - started, ...got.answer });
        if (answers.length === cases.length) return finish('complete');
        if ((got.answer.headers.connection ?? '').toLowerCase() === 'close') return finish('connection: close');
        arm();
      }
    });
    socket.on('error', (err) => {
      countConnectError(err);
      finish('closed');
    });
    socket.on('close', () => finish('closed'));
  });
}

/**
 * A TLS connection over a TCP socket of our own, so that it can be reset
 * (net.Socket#resetAndDestroy sends RST). Resolves { tcp, socket }, or null
 * when the connection or the handshake failed.
 */
function connectRaw(localAddress) {
  return new Promise((resolve) => {
    const tcp = net.connect({ host: '127.0.0.1', port: ports[next++ % ports.length], localAddress });
    tcp.on('error', countConnectError);
    tcp.once('close', () => resolve(null));
    const socket = tls.connect({ socket: tcp, ca, servername: 'localhost' }, () => resolve({ tcp, socket }));
    socket.on('error', () => {
      tcp.destroy();
      resolve(null);
    });
  });
}

const closed = (tcp) => (tcp.destroyed && tcp.closed ? Promise.resolve() : new Promise((resolve) => tcp.once('close', resolve)));

// Requests without a valid key come from their own loopback address each
// (127.1.0.1 onwards): the failed-authentication limit is per address, and
// these must not add up on one. Keyed requests come from 127.0.0.1.
let unauthCounter = 0;
const unauthAddress = () => {
  const i = (unauthCounter++ % 65_000) + 1;
  return `127.1.${i >> 8}.${i & 255}`;
};

// --- accounts and their budgets --------------------------------------------

class Pool {
  constructor(accounts) {
    this.accounts = accounts.map((a) => ({ ...a, sent: [] }));
    this.at = 0;
  }
  /** An account with room in its rolling minute, or null. */
  available(now = Date.now()) {
    for (let n = 0; n < this.accounts.length; n++) {
      const a = this.accounts[(this.at + n) % this.accounts.length];
      while (a.sent.length && now - a.sent[0] > 61_000) a.sent.shift();
      if (a.sent.length < BUDGET && !(a.blockedUntil > now)) {
        this.at = (this.at + n + 1) % this.accounts.length;
        return a;
      }
    }
    return null;
  }
  charge(a) {
    a.sent.push(Date.now());
  }
  /**
   * Takes an account out of the pool for a burst that may use up all of its
   * server-side minute (an unread pipeline: up to 400 requests); release()
   * puts it back a minute after the burst's connection is gone.
   */
  block(a) {
    a.blockedUntil = Infinity;
  }
  release(a) {
    a.blockedUntil = Date.now() + 65_000;
  }
}
// The canary's account and the rate-limit probe's stay out of the pools.
const [canaryAccount, probeAccount, ...plainAccounts] = seeded.plain;
const plain = new Pool(plainAccounts);
const admins = new Pool(seeded.admins);
const anyKey = () => plainAccounts[Math.floor(Math.random() * plainAccounts.length)].key;

// --- judging ---------------------------------------------------------------

const counts = {}; // category -> outcome -> n
const byLabel = {}; // raw categories: case label -> outcome -> n
const violations = [];
const examples = {}; // category -> outcome -> label (first seen)
const silentClose = []; // ms until the server closed a silently refused connection
let silentNeverClosed = 0;
let total = 0;

function record(cat, outcome, label) {
  counts[cat] ??= {};
  counts[cat][outcome] = (counts[cat][outcome] ?? 0) + 1;
  examples[cat] ??= {};
  examples[cat][outcome] ??= label;
}

function judge(c, a) {
  const e = c.expect;
  if (a.outcome === 'closed') return e.close ? null : 'the connection was closed without an answer';
  if (a.outcome === 'silent') return e.silent ? null : `no answer within ${c.giveUpMs ?? 10_000} ms`;
  if (a.status >= 500) return `answered ${a.status}`;
  if (!e.status.includes(a.status)) return `answered ${a.status}, expected ${e.status.join('/')}`;
  const isJson = /^application\/json/.test(a.headers['content-type'] ?? '');
  let json;
  if (isJson && !c.head) {
    try {
      json = JSON.parse(a.body);
    } catch {
      return 'the JSON body does not parse';
    }
  }
  a.json = json;
  if (a.status >= 400 && json !== undefined) {
    const keys = Object.keys(json).sort().join(',');
    if (keys !== 'code,error,field' || typeof json.error !== 'string' || typeof json.code !== 'string' || !(json.field === null || typeof json.field === 'string')) {
      return `error body is not {error, code, field}: ${a.body.slice(0, 200)}`;
    }
  }
  if (e.code !== undefined && json?.code !== e.code) return `code ${json?.code}, expected ${e.code}`;
  if (e.field !== undefined && json?.field !== e.field) return `field ${JSON.stringify(json?.field)}, expected ${JSON.stringify(e.field)}`;
  for (const [name, re] of Object.entries(e.headers ?? {})) if (!re.test(a.headers[name] ?? '')) return `header ${name}: ${a.headers[name]}`;
  if (e.allow) {
    const got = (a.headers.allow ?? '').split(/,\s*/).sort().join(',');
    if (got !== [...e.allow].sort().join(',')) return `Allow: ${a.headers.allow}, expected ${e.allow.join(', ')}`;
  }
  if (c.who !== 'none' && a.status !== 401 && /^\/v1\//.test(c.path ?? '') && !('ratelimit-limit' in a.headers)) return 'no RateLimit-Limit header';
  return e.check ? e.check(a) : null;
}

function outcomeOf(a) {
  if (a.outcome !== 'answered') return a.outcome === 'silent' ? 'no answer (ignored)' : 'closed, no answer';
  return a.status >= 400 && a.json?.code ? `${a.status} ${a.json.code}` : String(a.status);
}

// --- the fuzz loop ---------------------------------------------------------

const r = rng(Number(opts.seed));
const categories = Object.keys(WEIGHTS);
const weightSum = categories.reduce((s, k) => s + WEIGHTS[k], 0);
function pickCategory() {
  let x = r.next() * weightSum;
  for (const k of categories) if ((x -= WEIGHTS[k]) < 0) return k;
  return categories[0];
}

/**
 * The next case from the generators, its account charged. A case `accept`
 * refuses is drawn again (nothing charged for it).
 */
async function nextCase(accept = () => true) {
  for (let tries = 0; ; tries++) {
    const cat = pickCategory();
    const needs = NEEDS[cat];
    let acct = null;
    let admin = null;
    while (needs !== 'none') {
      acct = plain.available();
      admin = admins.available();
      if (acct && admin) break;
      await sleep(200);
    }
    const other = plainAccounts[r.int(0, plainAccounts.length - 1)];
    const ctx = { acct, admin, other: other.id === acct?.id ? plainAccounts[(plainAccounts.indexOf(other) + 1) % plainAccounts.length] : other, revoked: seeded.revoked, anyKey: anyKey() };
    const c = GENERATORS[cat](r, ctx);
    if (!accept(c) && tries < 100) continue;
    c.category = cat;
    c.who ??= needs === 'none' ? 'none' : 'plain';
    c.pool = c.who === 'plain' ? plain : c.who === 'admin' ? admins : null;
    c.account = c.who === 'plain' ? acct : c.who === 'admin' ? admin : null;
    c.pool?.charge(c.account);
    c.path = /^[A-Z]+ (\S+)/.exec(c.bytes.subarray(0, 300).toString('latin1'))?.[1];
    return c;
  }
}

const allowsNoAnswer = (c) => Boolean(c.expect.close || c.expect.silent);

/**
 * Whether the server refuses the request for its framing (src/http/framing.ts,
 * read here from the case's bytes): Transfer-Encoding with Content-Length, a
 * Transfer-Encoding other than one "chunked", a Content-Length that is not one
 * decimal number given once. Such a request is answered 400 only when nothing
 * follows it; otherwise uWS closes the connection before running what follows.
 */
function refusedForFraming(bytes) {
  const end = bytes.indexOf('\r\n\r\n');
  const lines = bytes.subarray(0, end < 0 ? bytes.length : end).toString('latin1').split('\r\n').slice(1);
  const values = (name) => lines.filter((l) => l.slice(0, l.indexOf(':')).toLowerCase() === name).map((l) => l.slice(l.indexOf(':') + 1).trim());
  const te = values('transfer-encoding');
  const cl = values('content-length');
  if (te.length && cl.length) return true;
  if (te.length) return te.length !== 1 || te[0].toLowerCase() !== 'chunked';
  return cl.length > 0 && (!/^[0-9]{1,15}$/.test(cl[0]) || cl.some((v) => v !== cl[0]));
}

/** Whether the case's handler may answer after the call returns (reads a body, or writes to storage). */
function answersLater(c) {
  const [, method, target] = /^([A-Z]+) (\S+)/.exec(c.bytes.subarray(0, 300).toString('latin1')) ?? [];
  return ['POST', 'PUT', 'DELETE'].includes(method) && /^\/(v1|console\/api)(\/|\?|$)/.test(target);
}

/**
 * The answers uWebSockets.js 20.30 loses. When it closes a connection while
 * parsing a read (a malformed request, which it refuses by closing; our
 * framing refusal, which relies on that close so that nothing behind a
 * smuggling-shaped request runs; or a request that arrives while the
 * previous one's answer is still pending, as with every handler that answers
 * asynchronously), the answers it already holds for earlier requests of that
 * read are in its cork buffer and are dropped with the connection. Later uWS
 * cores flush them before closing; this one cannot be upgraded here.
 *
 * So when a pipeline's connection is closed with answers missing from
 * `first` on, the loss is uWS's only if, at or after `first`, a request makes
 * it close: returns that request's index and why, or null (a violation).
 * The answers of cases first..at-1 count as lost; the rest were not run.
 */
function lostToUwsClose(cases, first) {
  for (let at = first; at < cases.length; at++) {
    if (allowsNoAnswer(cases[at])) return { at, why: 'malformed request' };
    if (refusedForFraming(cases[at].bytes)) return { at, why: 'framing refused' };
    if (at > 0 && answersLater(cases[at - 1])) return { at, why: 'behind an asynchronous answer' };
  }
  return null;
}

const bump = (o, k, n = 1) => (o[k] = (o[k] ?? 0) + n);

const shapes = {
  single: { cases: 0, judged: 0, outcomes: {}, violations: 0 },
  pipelined: {
    connections: 0, cases: 0, judged: 0, sizes: {}, outcomes: {}, violations: 0,
    /** How each connection ended. */
    endings: {},
    /** Cases left unjudged by the allowances, by reason. */
    unjudged: {},
  },
  unread: { connections: 0, cases: 0, copies: 0, bytes: 0, endings: {}, byCategory: {}, connectFailed: 0, halfClose: { answersRead: 0, closedByServerMs: [], notClosedWithin10s: 0 } },
  aborted: { cases: 0, modes: {}, byCategory: {}, connectFailed: 0, closedByServerFirst: 0 },
};
/** Pipelines whose missing answers lostToUwsClose() explains: the answers lost, by category and by what closed. */
const lostToClose = { pipelines: 0, answers: 0, byCategory: {}, byTrigger: {}, notRunBehind: 0 };

function violation(c, problem, got, where) {
  record(c.category, 'VIOLATION', c.label);
  shapes[where.shape].violations++;
  if (violations.length < 50) {
    violations.push({
      category: c.category, case: c.label, problem, got, ...where,
      // The exact bytes (latin1, one character per byte), enough to replay the case.
      bytes: c.bytes.subarray(0, 2000).toString('latin1'), byteLength: c.bytes.length,
    });
  }
}

function judgeAndRecord(c, a, where) {
  const problem = judge(c, a);
  const outcome = outcomeOf(a);
  record(c.category, outcome, c.label);
  shapes[where.shape].judged++;
  bump(shapes[where.shape].outcomes, outcome);
  if (where.shape === 'single' && (c.category === 'malformed_http' || c.category === 'oversized_headers')) {
    byLabel[c.label] ??= {};
    bump(byLabel[c.label], outcome);
  }
  if (problem) violation(c, problem, a.outcome === 'answered' ? `${a.statusLine} ${a.body.slice(0, 200)}` : `${a.outcome} ${a.raw ?? ''}`, where);
}

async function single(slot) {
  const c = await nextCase();
  shapes.single.cases++;
  // One in 50 of the malformed requests waits for the server to close the
  // connection itself, to measure how long uWebSockets.js holds it.
  const waitClose = c.expect.silent && r.chance(0.02);
  const a = await send(c.bytes, { head: c.head, localAddress: c.who === 'none' ? unauthAddress() : '127.0.0.1', giveUpMs: waitClose ? 30_000 : c.giveUpMs });
  if (waitClose && a.ms > c.giveUpMs && a.outcome !== 'answered') {
    // Ignored: what the fuzzer would have called silent, closed by the server later (or never).
    if (a.outcome === 'closed') silentClose.push(Math.round(a.ms));
    else silentNeverClosed++;
    a.outcome = 'silent';
  }
  judgeAndRecord(c, a, { shape: 'single', slot });
}

async function pipelined(slot, { size }) {
  // A case that declares a body it does not send would take what follows as that body: only last.
  const cases = [];
  for (let i = 0; i < size; i++) cases.push(await nextCase((c) => i === size - 1 || !c.open));
  const S = shapes.pipelined;
  S.connections++;
  S.cases += size;
  bump(S.sizes, size);
  // A keyless case counts a failed authentication against the connection's
  // address: such a pipeline has an address of its own (at most 8 failures on it).
  const localAddress = cases.some((c) => c.who === 'none') ? unauthAddress() : '127.0.0.1';
  // Once a case may be ignored, the answers after it are waited for no longer than it is.
  const giveUpMs = [];
  let lenientMs = Infinity;
  for (const c of cases) {
    giveUpMs.push(Math.min(c.giveUpMs ?? 10_000, lenientMs));
    if (allowsNoAnswer(c)) lenientMs = Math.min(lenientMs, c.giveUpMs ?? 10_000);
  }
  const res = await sendPipeline(cases, { localAddress, giveUpMs });
  // A violation names every case of its pipeline, with the start of its bytes: what follows a case can decide its fate.
  const where = { shape: 'pipelined', slot, pipeline: cases.map((c) => c.label), pipelineBytes: cases.map((c) => ({ length: c.bytes.length, start: c.bytes.subarray(0, 400).toString('latin1') })) };
  let malformedBefore = false;
  let ending = 'complete';
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i];
    const at = { ...where, position: i };
    if (i < res.answers.length) {
      judgeAndRecord(c, res.answers[i], at);
      malformedBefore ||= allowsNoAnswer(c);
      continue;
    }
    const left = cases.length - i;
    if (res.ending === 'connection: close') {
      const prev = res.answers[i - 1];
      if (prev.status === 400) {
        ending = 'ended by 400 Connection: close';
        bump(S.unjudged, 'not run after a 400 with Connection: close', left);
      } else if (cases[i - 1].head) {
        // Every HEAD answer closes its connection (issue 14, finding 9).
        ending = 'ended by HEAD Connection: close';
        bump(S.unjudged, 'not read after a HEAD answer (Connection: close)', left);
      } else {
        ending = 'violation';
        violation(cases[i - 1], `answered ${prev.status} with Connection: close, ${left} pipelined requests behind it`, `${prev.statusLine} ${prev.body.slice(0, 200)}`, { ...where, position: i - 1 });
        bump(S.unjudged, 'not reached (after a violation)', left);
      }
      break;
    }
    const lost = { outcome: res.ending === 'silent' ? 'silent' : 'closed', ms: res.ms, raw: res.rest };
    const how = res.ending === 'silent' ? 'unanswered' : 'closed';
    if (allowsNoAnswer(c)) {
      judgeAndRecord(c, lost, at);
      ending = `${how} at a malformed request`;
      if (left > 1) bump(S.unjudged, `${how} after a malformed request`, left - 1);
      break;
    }
    // Ignored (not closed) after an answered malformed request: its bytes may have left the parser waiting.
    if (res.ending === 'silent' && malformedBefore) {
      ending = 'unanswered after a malformed request';
      bump(S.unjudged, 'unanswered after a malformed request', left);
      break;
    }
    const closer = res.ending === 'closed' && res.connected ? lostToUwsClose(cases, i) : null;
    if (closer) {
      ending = `answers lost to uWS's close (${closer.why})`;
      lostToClose.pipelines++;
      lostToClose.answers += closer.at - i;
      for (const x of cases.slice(i, closer.at)) bump(lostToClose.byCategory, x.category);
      bump(lostToClose.byTrigger, closer.why);
      lostToClose.notRunBehind += cases.length - closer.at;
      if (closer.at > i) bump(S.unjudged, "answer lost to uWS's close", closer.at - i);
      bump(S.unjudged, "not run (at or behind the request uWS closed at)", cases.length - closer.at);
      break;
    }
    judgeAndRecord(c, lost, at); // a violation: this case needs an answer
    ending = 'violation';
    if (left > 1) bump(S.unjudged, 'not reached (after a violation)', left - 1);
    break;
  }
  if (ending === 'complete' && res.extra) {
    ending = 'violation';
    violation(cases.at(-1), 'bytes after the last answer', res.extra, { ...where, position: cases.length - 1 });
  }
  bump(S.endings, ending);
}

/** At most this much in one unread write: the few cases over 10 KiB get fewer than 50 copies. */
const UNREAD_MAX_BYTES = 4 << 20;

async function unread(slot, { copies: drawn, holdMs, ending }) {
  // Never an admin account: they are few, and a burst takes its account out of the pool for a minute.
  const c = await nextCase((x) => x.who !== 'admin');
  const S = shapes.unread;
  const copies = Math.max(1, Math.min(drawn, Math.floor(UNREAD_MAX_BYTES / c.bytes.length)));
  // The burst may use up the account's whole minute on the server: out of the pool until a minute after it.
  c.pool?.block(c.account);
  S.cases++;
  bump(S.byCategory, c.category);
  try {
    const conn = await connectRaw(c.who === 'none' ? unauthAddress() : '127.0.0.1');
    if (!conn) {
      S.connectFailed++;
      return;
    }
    const { tcp, socket } = conn;
    S.connections++;
    S.copies += copies;
    S.bytes += copies * c.bytes.length;
    bump(S.endings, ending);
    socket.pause();
    socket.write(Buffer.concat(Array(copies).fill(c.bytes)));
    await sleep(holdMs);
    if (ending === 'rst') {
      tcp.resetAndDestroy();
    } else if (ending === 'close') {
      socket.destroy();
    } else {
      // Half-close: close_notify and FIN, then read whatever the server still sends until it closes.
      const t0 = performance.now();
      let text = '';
      socket.on('data', (d) => {
        if (text.length < 8 << 20) text += d.toString('latin1');
      });
      let gaveUp = false;
      const timer = setTimeout(() => {
        gaveUp = true;
        tcp.destroy();
      }, 10_000);
      socket.end();
      socket.resume();
      await closed(tcp);
      clearTimeout(timer);
      S.halfClose.answersRead += text.match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0;
      if (gaveUp) S.halfClose.notClosedWithin10s++;
      else S.halfClose.closedByServerMs.push(Math.round(performance.now() - t0));
    }
    await closed(tcp);
  } finally {
    c.pool?.release(c.account);
  }
}

async function aborted(slot, { mode, delayMs }) {
  const c = await nextCase();
  const S = shapes.aborted;
  S.cases++;
  bump(S.byCategory, c.category);
  const conn = await connectRaw(c.who === 'none' ? unauthAddress() : '127.0.0.1');
  if (!conn) {
    S.connectFailed++;
    return;
  }
  bump(S.modes, mode);
  const { tcp, socket } = conn;
  socket.pause();
  let bytes = c.bytes;
  if (mode === 'cut') {
    // The head and half the body; half the bytes of a request without a body.
    const head = bytes.indexOf('\r\n\r\n');
    const bodyAt = head < 0 ? bytes.length : head + 4;
    bytes = bytes.subarray(0, bodyAt < bytes.length ? bodyAt + Math.floor((bytes.length - bodyAt) / 2) : Math.max(1, Math.floor(bytes.length / 2)));
  }
  socket.write(bytes);
  await sleep(delayMs);
  if (tcp.destroyed) S.closedByServerFirst++;
  else tcp.resetAndDestroy();
  await closed(tcp);
}

// Shapes are drawn from a stream of their own, one slot at a time in the
// order slots are issued, so a seed always puts the same shapes in the same
// slots with the same sizes, copies, delays and endings (the cases' own draws
// follow the order in which the workers come back, as they always did).
const shapeRng = rng((Number(opts.seed) ^ 0x5f3759df) >>> 0 || 1);
const GROUP_MIN = 2;
const GROUP_MAX = 8;
const GROUP_MEAN = (GROUP_MIN + GROUP_MAX) / 2;
// A slot holds one case, or a pipeline of GROUP_MEAN on average: the chance
// of a pipeline slot that makes SHARE.pipelined of the cases pipelined.
const PIPELINE_SLOT = SHARE.pipelined / (GROUP_MEAN - SHARE.pipelined * (GROUP_MEAN - 1));
function planSlot(remaining) {
  // The same number of draws every slot.
  const x = shapeRng.next();
  const y = shapeRng.next();
  const size = Math.min(remaining, shapeRng.int(GROUP_MIN, GROUP_MAX));
  const copies = shapeRng.int(50, 400);
  const holdMs = shapeRng.int(0, 300);
  const ending = shapeRng.pick(['rst', 'close', 'half-close']);
  const mode = shapeRng.pick(['rst', 'cut']);
  const delayMs = shapeRng.int(0, 20);
  if (x < PIPELINE_SLOT && size >= GROUP_MIN) return { shape: 'pipelined', cases: size, size };
  const rest = 1 - SHARE.pipelined;
  if (rest > 0 && y < SHARE.unread / rest) return { shape: 'unread', cases: 1, copies, holdMs, ending };
  if (rest > 0 && y < (SHARE.unread + SHARE.aborted) / rest) return { shape: 'aborted', cases: 1, mode, delayMs };
  return { shape: 'single', cases: 1 };
}
const SHAPES = { single, pipelined, unread, aborted };

// --- the canary (its own thread, so the fuzzer's load does not delay its timers)

const canaryCode = canaryAccount.routes[0].code;
const canary = new Worker(
  `
  const { parentPort, workerData } = require('node:worker_threads');
  const https = require('node:https');
  const { ports, ca, code, everyMs } = workerData;
  const results = { healthz: [], redirect: [], failures: [] };
  let i = 0;
  const one = (kind, path, want) => {
    const started = performance.now();
    const req = https.request({ host: '127.0.0.1', port: ports[i++ % ports.length], path, ca, servername: 'localhost', agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => {
        const ms = performance.now() - started;
        if (res.statusCode !== want) results.failures.push({ kind, at: new Date().toISOString(), problem: 'status ' + res.statusCode });
        else results[kind].push(ms);
      });
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', (err) => results.failures.push({ kind, at: new Date().toISOString(), problem: err.message }));
    req.end();
  };
  const timer = setInterval(() => {
    one('healthz', '/healthz', 200);
    one('redirect', '/r/' + code + '?canary=1', 302);
  }, everyMs);
  parentPort.on('message', () => {
    clearInterval(timer);
    setTimeout(() => parentPort.postMessage(results), 5500);
  });
  `,
  { eval: true, workerData: { ports, ca, code: canaryCode, everyMs: 100 } },
);

// --- slow loris ------------------------------------------------------------

const loris = { opened: 0, closedByServer: 0, lifetimes: [], answered: 0, tlsAlerts: 0, kinds: {} };
let lorisRunning = true;
function lorisOne(n) {
  if (!lorisRunning) return;
  const kind = n % 10 === 0 ? 'tcp, no TLS handshake' : n % 10 === 1 ? 'TLS, idle' : 'TLS, a header byte a second';
  loris.kinds[kind] = (loris.kinds[kind] ?? 0) + 1;
  loris.opened++;
  const started = Date.now();
  const text = `GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'a'.repeat(4000)}\r\n\r\n`;
  let sent = 0;
  let interval;
  const port = ports[n % ports.length];
  const localAddress = `127.2.${(n >> 8) & 255}.${(n & 255) || 1}`;
  const socket = kind.startsWith('tcp')
    ? net.connect({ host: '127.0.0.1', port, localAddress }, () => {
        interval = setInterval(() => socket.write(Buffer.from([0x16])), 1000);
      })
    : tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost', localAddress }, () => {
        if (kind.endsWith('second')) interval = setInterval(() => socket.write(text[sent++ % text.length]), 1000);
      });
  // Raw TCP clients get the server's TLS alert when it gives up on them;
  // a TLS client getting application data would be an answer.
  socket.on('data', () => (kind.startsWith('tcp') ? loris.tlsAlerts++ : loris.answered++));
  socket.on('error', () => {});
  socket.on('close', () => {
    clearInterval(interval);
    if (lorisRunning) {
      loris.closedByServer++;
      loris.lifetimes.push(Date.now() - started);
      setTimeout(() => lorisOne(n + LORIS), 100);
    }
  });
  lorisSockets.add(socket);
  socket.on('close', () => lorisSockets.delete(socket));
}
const lorisSockets = new Set();

// --- rate-limit probes -------------------------------------------------------

async function authFailureProbe() {
  // 35 bad keys from one address: 30 × 401, then 429s with Retry-After; a
  // valid key from that address is still served (the canary's account,
  // whose API budget nothing else uses).
  const address = '127.3.0.1';
  const statuses = [];
  let retryAfter;
  for (let i = 0; i < 35; i++) {
    const a = await send(http('GET', '/v1/account', { headers: [['Authorization', `Bearer sg_probe_${i}`]] }), { localAddress: address });
    statuses.push(a.status);
    retryAfter = a.headers?.['retry-after'];
  }
  const good = await send(http('GET', '/v1/account', { key: canaryAccount.key }), { localAddress: address });
  const ok = statuses.slice(0, 30).every((s) => s === 401) && statuses.slice(30).every((s) => s === 429) && Number(retryAfter) >= 1 && good.status === 200;
  return { ok, first30: [...new Set(statuses.slice(0, 30))], next5: [...new Set(statuses.slice(30))], validKeyAfter: good.status, retryAfter };
}

async function accountLimitProbe() {
  // 70 requests in a burst on one account, spread over the threads: exactly 60 pass.
  const answers = await Promise.all(Array.from({ length: 70 }, () => send(http('GET', '/v1/account', { key: probeAccount.key }), {})));
  const passed = answers.filter((a) => a.status === 200).length;
  const limited = answers.filter((a) => a.status === 429);
  const okLimited = limited.every((a) => a.headers['ratelimit-remaining'] === '0' && Number(a.headers['retry-after']) >= 1 && /"code":"rate_limited"/.test(a.body));
  return { ok: passed === 60 && limited.length === 10 && okLimited, passed, limited: limited.length, other: answers.length - passed - limited.length };
}

async function refreshTriggerProbe() {
  // The hourly trigger: 202, then 429 refresh_too_soon with Retry-After.
  const acct = seeded.admins[0];
  const first = await send(http('POST', '/v1/ip/update', { key: acct.key }), {});
  const second = await send(http('POST', '/v1/ip/update', { key: acct.key }), {});
  return { ok: first.status === 202 && second.status === 429 && /refresh_too_soon/.test(second.body) && Number(second.headers['retry-after']) >= 1, first: first.status, second: second.status };
}

// --- run ---------------------------------------------------------------------

const rssBefore = rssKiB(server.pid);
const rss = { maxKiB: rssBefore ?? 0, maxAtSecond: 0, samples: 0 };
const cpuBefore = process.cpuUsage();
const started = performance.now();
const rssSampler = setInterval(() => {
  const kib = rssKiB(server.pid);
  if (kib === null) return;
  rss.samples++;
  if (kib > rss.maxKiB) {
    rss.maxKiB = kib;
    rss.maxAtSecond = Math.round((performance.now() - started) / 1000);
  }
}, 1000);
const probes = { authFailures: await authFailureProbe() };
log(`auth-failure probe: ${JSON.stringify(probes.authFailures)}`);
for (let n = 0; n < LORIS; n++) lorisOne(n);
probes.refreshTrigger = await refreshTriggerProbe();

let issued = 0;
let slots = 0;
let midProbe = null;
const progressEvery = Math.max(1000, Math.round(REQUESTS / 20));
let progressed = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (issued < REQUESTS) {
      const plan = planSlot(REQUESTS - issued);
      const slot = slots++;
      issued += plan.cases;
      if (issued >= REQUESTS / 2 && !midProbe) midProbe = accountLimitProbe();
      await SHAPES[plan.shape](slot, plan);
      total += plan.cases;
      if (Math.floor(total / progressEvery) > progressed) {
        progressed = Math.floor(total / progressEvery);
        log(`${total} / ${REQUESTS} (${Math.round(total / ((performance.now() - started) / 1000))} req/s), ${violations.length} violations, loris ${lorisSockets.size} open`);
      }
    }
  }),
);
probes.accountLimit = await (midProbe ?? accountLimitProbe());
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
lorisRunning = false;
for (const s of lorisSockets) s.destroy();
canary.postMessage('stop');
const canaryResults = await new Promise((resolve) => canary.once('message', resolve));
await canary.terminate();

// --- after: the server is alive, clean, and stops cleanly -------------------

const alive = exitCode === undefined;
const rssAfter = rssKiB(server.pid);
clearInterval(rssSampler);
rss.maxKiB = Math.max(rss.maxKiB, rssAfter ?? 0);
const metrics = await send(http('GET', '/metrics'), {});
const m500 = Number(/splitguard_api_responses_total\{status="500"\} (\d+)/.exec(metrics.body ?? '')?.[1] ?? NaN);
const apiByStatus = Object.fromEntries([...(metrics.body ?? '').matchAll(/splitguard_api_responses_total\{status="(\w+)"\} (\d+)/g)].map((m) => [m[1], Number(m[2])]));
const health = await send(http('GET', '/healthz'), {});
const stopStarted = Date.now();
server.kill('SIGTERM');
const killer = setTimeout(() => server.kill('SIGKILL'), 30_000);
const code = await exited;
clearTimeout(killer);
const stopMs = Date.now() - stopStarted;

const q = (xs, p) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))] * 10) / 10;
};
const canaryStats = (xs) => ({ n: xs.length, p50: q(xs, 0.5), p99: q(xs, 0.99), max: q(xs, 1) });
const report = {
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
  options: { requests: REQUESTS, concurrency: CONCURRENCY, threads: THREADS, loris: LORIS, seed: Number(opts.seed), accounts: ACCOUNTS, admins: ADMINS, ...SHARE },
  seconds: Math.round(seconds),
  requestsPerSecond: Math.round(total / seconds),
  fuzzerCpuSeconds: Math.round((cpu.user + cpu.system) / 1e5) / 10,
  total,
  violations: violations.length ? counts && Object.values(counts).reduce((s, o) => s + (o.VIOLATION ?? 0), 0) : 0,
  violationExamples: violations,
  counts,
  examples,
  malformedByCase: byLabel,
  shapes: {
    ...shapes,
    unread: {
      ...shapes.unread,
      halfClose: {
        answersRead: shapes.unread.halfClose.answersRead,
        closedByServer: shapes.unread.halfClose.closedByServerMs.length,
        closedByServerMs: { p50: q(shapes.unread.halfClose.closedByServerMs, 0.5), max: q(shapes.unread.halfClose.closedByServerMs, 1) },
        notClosedWithin10s: shapes.unread.halfClose.notClosedWithin10s,
      },
    },
  },
  lostToUwsClose: lostToClose,
  probes,
  canary: {
    healthz: canaryStats(canaryResults.healthz),
    redirect: canaryStats(canaryResults.redirect),
    failures: canaryResults.failures.length,
    failureExamples: canaryResults.failures.slice(0, 10),
    maxAllowedMs: CANARY_MAX_MS,
  },
  loris: {
    connections: loris.opened,
    kinds: loris.kinds,
    closedByServer: loris.closedByServer,
    lifetimeMs: { p50: q(loris.lifetimes, 0.5), max: q(loris.lifetimes, 1) },
    answered: loris.answered,
    tlsAlertsToTcpClients: loris.tlsAlerts,
  },
  silentlyRefused: { sampled: silentClose.length + silentNeverClosed, notClosedWithin30s: silentNeverClosed, closedAfterMs: { min: q(silentClose, 0), p50: q(silentClose, 0.5), max: q(silentClose, 1) } },
  connectErrors,
  server: {
    aliveAtEnd: alive,
    healthzAtEnd: health.status,
    rssKiB: { before: rssBefore, after: rssAfter, max: rss.maxKiB, maxAtSecond: rss.maxAtSecond, samples: rss.samples },
    api500: m500,
    apiResponsesByStatus: apiByStatus,
    logEvents: events,
    exitCode: code,
    stopMs,
  },
};

const failures = [];
if (report.violations > 0) failures.push(`${report.violations} answers violated their case`);
if (!alive) failures.push('the server died');
if (health.status !== 200) failures.push(`/healthz answered ${health.status} at the end`);
if (m500 !== 0) failures.push(`the server sent ${m500} × 500`);
if (events.unhandled_error || events.thread_exited || events.thread_failed) failures.push('the server logged unhandled errors or lost a thread');
if (code !== 0) failures.push(`the server exited ${code} on SIGTERM`);
if (report.canary.failures > 0) failures.push(`${report.canary.failures} canary requests failed`);
if (Math.max(report.canary.healthz.max ?? Infinity, report.canary.redirect.max ?? Infinity) > CANARY_MAX_MS) failures.push(`canary latency above ${CANARY_MAX_MS} ms`);
if (!probes.authFailures.ok) failures.push('the failed-authentication limit did not answer 429 exactly after 30 failures');
if (!probes.accountLimit.ok) failures.push('the account limit did not pass exactly 60 of 70');
if (!probes.refreshTrigger.ok) failures.push('the refresh trigger did not answer 202 then 429');
if (loris.answered > 0) failures.push('a slow-loris connection got an answer');
if (silentNeverClosed > 0) failures.push(`${silentNeverClosed} ignored requests kept their connection open for 30 s`);
report.failures = failures;

if (opts.json) writeFileSync(opts.json, `${JSON.stringify(report, null, 2)}\n`);
const lines = [`${total} requests in ${report.seconds} s (${report.requestsPerSecond}/s), seed ${report.options.seed}, ${report.violations} violations`];
for (const cat of categories) {
  const o = counts[cat] ?? {};
  lines.push(`  ${cat.padEnd(20)} ${Object.entries(o).map(([k, v]) => `${k}: ${v}`).join(', ')}`);
}
const list = (o) => Object.entries(o).map(([k, v]) => `${k}: ${v}`).join(', ');
const { single: S1, pipelined: SP, unread: SU, aborted: SA } = report.shapes;
lines.push(`single: ${S1.cases} cases, ${S1.violations} violations`);
lines.push(
  `pipelined: ${SP.cases} cases on ${SP.connections} connections (sizes ${list(SP.sizes)}), ${SP.judged} judged, ${SP.violations} violations; endings ${list(SP.endings)}; unjudged ${list(SP.unjudged)}`,
);
const LC = report.lostToUwsClose;
lines.push(
  `answers lost to uWS's close (pipelined, not violations): ${LC.answers} in ${LC.pipelines} pipelines (${list(LC.byTrigger)}); by category ${list(LC.byCategory)}; ${LC.notRunBehind} not run behind`,
);
lines.push(
  `unread: ${SU.cases} cases, ${SU.connections} connections, ${SU.copies} copies, ${Math.round(SU.bytes / 1024)} KiB; endings ${list(SU.endings)}; half-close ${JSON.stringify(SU.halfClose)}; connect failed ${SU.connectFailed}`,
);
lines.push(`aborted: ${SA.cases} cases; ${list(SA.modes)}; closed by the server first ${SA.closedByServerFirst}; connect failed ${SA.connectFailed}`);
lines.push(`rss KiB: before ${rssBefore}, after ${rssAfter}, max ${rss.maxKiB} (at ${rss.maxAtSecond} s)`);
lines.push(`canary: healthz ${JSON.stringify(report.canary.healthz)}, redirect ${JSON.stringify(report.canary.redirect)}, failures ${report.canary.failures}`);
lines.push(`loris: ${JSON.stringify(report.loris)}`);
lines.push(`probes: ${JSON.stringify(probes)}`);
lines.push(`server: ${JSON.stringify({ ...report.server, logEvents: undefined })}`);
for (const v of violations.slice(0, 10)) {
  const at = v.shape === 'pipelined' ? `, position ${v.position} of [${v.pipeline.join(' | ')}]` : '';
  lines.push(`VIOLATION ${v.category}: ${v.case}: ${v.problem} (${v.got.slice(0, 160)}) [${v.shape}, slot ${v.slot}${at}] bytes ${JSON.stringify(v.bytes.slice(0, 300))}`);
}
lines.push(failures.length ? `FAILED: ${failures.join('; ')}` : 'OK');
console.log(lines.join('\n'));
rmSync(dataDir, { recursive: true, force: true });
process.exit(failures.length ? 1 : 0);
