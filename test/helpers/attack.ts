// Hostile client shapes for the attack suite (test/integration/attack/): raw
// TLS connections that pipeline requests without reading, reset or half-close
// the connection, or hold it open; and the probes that judge the server
// afterwards (still answering, memory back near where it was).
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { Worker } from 'node:worker_threads';
import { request } from './client.js';
import { consoleSession, createConsoleUser } from './console-session.js';
import { parseResponse } from './raw-http.js';
import { createRoute } from './routes.js';
import type { TestServer } from './server.js';

/** How a hostile connection ends: TCP reset, a plain close (TLS close_notify then FIN), or a half-close (FIN, still reading). */
export type Ending = 'rst' | 'fin' | 'half-close';

export interface Family {
  name: string;
  /** One request, byte for byte. */
  request: string;
  /** Where the request's head ends (its body, if any, starts here). */
  headEnd: number;
  /** What a lone request may be answered while no limit is reached. */
  statuses: number[];
}

/**
 * One request of every endpoint family the server answers: static files,
 * console pages and API (sign-in included, and a password change in a
 * live session whose new password is refused before any password is
 * hashed: the session, CSRF and body paths), /v1 with and without a key
 * (large and small answers, a body read, a route created, a conversion
 * recorded: 202 the first time, 200 duplicate after), /healthz,
 * /metrics, the 404 catch-all and the redirect (302, HEAD, unknown code).
 * The /v1 requests use the server's bootstrap key (an admin account).
 */
let familyUsers = 0;

export async function endpointFamilies(server: TestServer): Promise<Family[]> {
  const route = await createRoute(server);
  const auth = `Authorization: Bearer ${server.apiKey}\r\n`;
  const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
  const post = (path: string, json: unknown, extra = '') => {
    const body = JSON.stringify(json);
    return `POST ${path} HTTP/1.1\r\nHost: x\r\n${extra}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };
  const family = (name: string, request: string, statuses: number[]): Family => ({ name, request, headEnd: request.indexOf('\r\n\r\n') + 4, statuses });
  // A click id from a real redirect of a route that appends one.
  const experiment = await createRoute(server, { append_click_id: true, intercept_level: 'off' });
  const visit = await request({ port: server.ports[0], ca: server.ca, path: `/r/${experiment.code}` });
  const clickId = /sg_cid=([A-Za-z0-9_-]+)/.exec(String(visit.headers.location))?.[1];
  if (!clickId) throw new Error(`the redirect appended no click id: ${String(visit.headers.location)}`);
  // A console user of this call's own: a file may ask for the families more than once.
  const email = `attack-${++familyUsers}@example.com`;
  await createConsoleUser(server, email, 'an-attack-password');
  const session = await consoleSession(server, email, 'an-attack-password');
  const inSession = `Cookie: ${session.cookie}\r\nX-CSRF-Token: ${session.csrf}\r\n`;
  return [
    family('static file', get('/console/app.js'), [200]),
    family('console page', get('/console/routes'), [200]),
    family('console api', get('/console/api/session'), [401]),
    family('console sign-in', post('/console/api/session/login', { email: 'nobody@example.com', password: 'not-the-password' }), [401, 429]),
    family('console password change', post('/console/api/session/password', { current_password: 'an-attack-password', new_password: 'short' }, inSession), [400]),
    family('v1 large answer', get('/v1/admin/blacklist?limit=100', auth), [200]),
    family('v1 small answer', get('/v1/account', auth), [200]),
    family('v1 unauthenticated', get('/v1/account'), [401, 429]),
    family('v1 with a body', post('/v1/ip/check', { ips: ['8.8.8.8', '1.1.1.1'] }, auth), [200]),
    family('v1 create', post('/v1/routes', { name: 'attack', page_a: 'https://a.example/', page_b: 'https://b.example/' }, auth), [201]),
    family('v1 conversion', post('/v1/conversions', { click_id: clickId, goal: 'attack' }, auth), [202, 200]),
    family('healthz', get('/healthz'), [200]),
    family('healthz HEAD', `HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n`, [200]),
    family('metrics', get('/metrics'), [200]),
    family('not found', get('/no/such/path'), [404]),
    family('redirect', get(`/r/${route.code}`), [302]),
    family('redirect HEAD', `HEAD /r/${route.code} HTTP/1.1\r\nHost: x\r\n\r\n`, [302]),
    family('redirect unknown', get('/r/ZZZZZZZZ'), [404]),
  ];
}

/** A TLS connection over a TCP socket the caller can reset. */
function connect(port: number, localAddress?: string): Promise<{ tcp: net.Socket; tls: tls.TLSSocket }> {
  return new Promise((resolve, reject) => {
    const tcp = net.connect({ host: '127.0.0.1', port, localAddress });
    tcp.on('error', () => {});
    const socket = tls.connect({ socket: tcp, rejectUnauthorized: false, servername: 'localhost' }, () => resolve({ tcp, tls: socket }));
    socket.on('error', (err) => reject(err));
  });
}

/**
 * Writes `count` copies of `bytes` in one write, reads nothing for `holdMs`,
 * then ends the connection as `ending` says. Resolves once the socket is gone.
 */
export function pipelineAndDrop(port: number, bytes: string, count: number, ending: Ending, holdMs = 150): Promise<void> {
  return sendAndDrop(port, bytes.repeat(count), ending, holdMs);
}

/**
 * Writes `bytes` (a whole request, or a request cut anywhere) in one write,
 * reads nothing for `holdMs`, then ends the connection as `ending` says.
 * Resolves once the socket is gone.
 */
export async function sendAndDrop(port: number, bytes: string, ending: Ending, holdMs = 150, localAddress?: string): Promise<void> {
  const { tcp, tls: socket } = await connect(port, localAddress);
  // The server may close first (uWS does when a request arrives behind one whose answer is pending).
  const gone = new Promise<void>((resolve) => tcp.once('close', () => resolve()));
  socket.pause();
  socket.write(Buffer.from(bytes, 'latin1'));
  await sleep(holdMs);
  if (ending === 'rst') {
    tcp.resetAndDestroy();
  } else if (ending === 'fin') {
    socket.destroy();
  } else {
    // Half-close: FIN on our side, then read whatever the server still sends.
    socket.end();
    socket.resume();
    setTimeout(() => tcp.destroy(), 2000).unref();
  }
  await gone;
}

/** The server answers /healthz 200 on every thread (throws with the server's output otherwise). */
export async function assertAnswering(server: TestServer): Promise<void> {
  for (const port of server.ports) {
    const res = await request({ port, ca: server.ca, path: '/healthz', timeoutMs: 5000 }).catch((err: Error) => ({ status: 0, body: err.message }));
    if (res.status !== 200) throw new Error(`/healthz on port ${port} answered ${res.status} (${res.body})\n${server.output().slice(-2000)}`);
  }
}

/** Resident memory of a process, in MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** How a slow client's connection went. */
export interface Trickled {
  /** 'closed': the server ended the connection; 'answered': a whole response arrived; 'gave-up': `limitMs` passed first. */
  how: 'closed' | 'answered' | 'gave-up';
  /** Milliseconds from the connection's start. */
  ms: number;
  /** Bytes of the request written before the end. */
  sent: number;
  /** What the server sent, latin1. */
  received: string;
}

export interface TrickleOptions {
  /** Bytes written at once before the trickle starts (say, a request's whole head). */
  start?: number;
  /** Bytes per write (default 1). */
  step?: number;
  everyMs: number;
  /** The client gives up (and closes) after this long. */
  limitMs: number;
  localAddress?: string;
}

/**
 * A slow client: writes `bytes` a few at a time (after `start` bytes at once)
 * on one TLS connection, reading whatever comes back, until a whole response
 * arrives, the server closes the connection, or `limitMs` passes.
 */
export async function trickle(port: number, bytes: string, options: TrickleOptions): Promise<Trickled> {
  const started = performance.now();
  const { tcp, tls: socket } = await connect(port, options.localAddress);
  const data = Buffer.from(bytes, 'latin1');
  const step = options.step ?? 1;
  let sent = Math.min(options.start ?? 0, data.length);
  let received = '';
  return new Promise((resolve) => {
    let settled = false;
    const finish = (how: Trickled['how']) => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      clearTimeout(limit);
      tcp.destroy();
      resolve({ how, ms: performance.now() - started, sent, received });
    };
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1');
      if (parseResponse(received)) finish('answered');
    });
    socket.on('close', () => finish('closed'));
    socket.on('error', () => finish('closed'));
    if (sent > 0) socket.write(data.subarray(0, sent));
    const timer = setInterval(() => {
      if (sent >= data.length || socket.destroyed) return;
      socket.write(data.subarray(sent, sent + step));
      sent = Math.min(data.length, sent + step);
    }, options.everyMs);
    const limit = setTimeout(() => finish('gave-up'), options.limitMs);
  });
}

/** One request of a canary, and the status it must get. */
export interface CanaryCall {
  /** GET unless given. */
  method?: string;
  path: string;
  status: number;
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string;
  /** A JSON body. */
  json?: unknown;
}

export interface CanaryReport {
  requests: number;
  /** Requests that failed, got another status, or took longer than the bound, described. */
  failures: string[];
  maxMs: number;
  p50Ms: number;
  /** The slowest request, described. */
  slowest: string;
}

/**
 * A well-behaved client: every `everyMs` it sends the next of `calls`
 * (in turn, on every thread's port in turn) on a new verified TLS connection
 * from its own address, without waiting for the previous one, so that a
 * stalled server shows as slow answers rather than as fewer requests. It runs
 * in a worker thread of its own, so that the attackers' work in the test's
 * thread (hundreds of TLS handshakes) does not delay its timers or its
 * reading of the answers. stop() waits for the requests in flight and
 * reports; an answer slower than `boundMs` is a failure.
 */
export function startCanary(server: TestServer, calls: CanaryCall[], boundMs: number, everyMs = 100, localAddress = '127.0.0.200'): { stop(): Promise<CanaryReport> } {
  const worker = new Worker(CANARY_WORKER, {
    eval: true,
    workerData: { ports: server.ports, ca: server.ca, calls, boundMs, everyMs, localAddress },
  });
  worker.unref();
  const report = new Promise<CanaryReport>((resolve, reject) => {
    worker.once('message', (r: CanaryReport) => resolve(r));
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      try {
        return await report;
      } finally {
        await worker.terminate();
      }
    },
  };
}

const CANARY_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const https = require('node:https');
const { ports, ca, calls, boundMs, everyMs, localAddress } = workerData;
const times = [];
const failures = [];
let slowest = '';
let maxMs = 0;
let n = 0;
const pending = new Set();
const tick = () => {
  const call = calls[n % calls.length];
  const port = ports[Math.floor(n / calls.length) % ports.length];
  n++;
  const what = (call.method || 'GET') + ' ' + call.path + ' on port ' + port;
  const started = performance.now();
  const headers = call.key ? { Authorization: 'Bearer ' + call.key } : {};
  const body = call.json === undefined ? undefined : Buffer.from(JSON.stringify(call.json));
  if (body) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(body.length);
  }
  const done = new Promise((resolve) => {
    const fail = (problem) => {
      failures.push(what + ' ' + problem + ' after ' + Math.round(performance.now() - started) + ' ms');
      resolve();
    };
    const req = https.request(
      { host: '127.0.0.1', port, method: call.method || 'GET', path: call.path, headers, ca, localAddress, agent: false, timeout: Math.max(10000, 2 * boundMs) },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', (e) => fail('failed: ' + e.message));
        res.on('end', () => {
          const ms = performance.now() - started;
          times.push(ms);
          if (ms > maxMs) {
            maxMs = ms;
            slowest = what + ': ' + Math.round(ms) + ' ms';
          }
          if (res.statusCode !== call.status) failures.push(what + ' answered ' + res.statusCode + ', not ' + call.status + ': ' + Buffer.concat(chunks).toString().slice(0, 200));
          else if (ms > boundMs) failures.push(what + ' took ' + Math.round(ms) + ' ms (bound ' + boundMs + ' ms)');
          resolve();
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within the timeout')));
    req.on('error', (e) => fail('failed: ' + e.message));
    req.end(body);
  });
  pending.add(done);
  done.then(() => pending.delete(done));
};
tick();
const timer = setInterval(tick, everyMs);
parentPort.once('message', async () => {
  clearInterval(timer);
  await Promise.all(pending);
  const sorted = times.slice().sort((a, b) => a - b);
  parentPort.postMessage({ requests: n, failures, maxMs, p50Ms: sorted[Math.floor(sorted.length / 2)] || 0, slowest });
});
`;

/** Throws, naming what went wrong, unless the canary saw no failure (an answer within its bound, of the right status, every time). */
export function assertCanary(report: CanaryReport, during: string): void {
  if (report.requests < 2) throw new Error(`the canary ran ${report.requests} request(s) during ${during}: too few to judge`);
  if (report.failures.length > 0) {
    throw new Error(`a well-behaved client was not served during ${during} (${report.failures.length} of ${report.requests}):\n${report.failures.slice(0, 10).join('\n')}`);
  }
}

/** How many answers had each status. */
export function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

/**
 * Writes `count` copies of `bytes` in one write and reads the answers in
 * order until `count` have arrived, the server closes, or `timeoutMs` passes.
 * Resolves with their statuses (fewer than `count` when the server closed:
 * uWS closes a connection when a request arrives while an earlier one's
 * answer is still pending).
 */
export async function pipelineAndRead(port: number, bytes: string, count: number, timeoutMs = 10_000, localAddress?: string): Promise<number[]> {
  const { tcp, tls: socket } = await connect(port, localAddress);
  const statuses: number[] = [];
  let raw = '';
  return new Promise((resolve) => {
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      tcp.destroy();
      resolve(statuses);
    };
    socket.on('data', (d: Buffer) => {
      raw += d.toString('latin1');
      for (let r = parseResponse(raw); r; r = parseResponse(raw)) {
        statuses.push(r.status);
        raw = raw.slice(raw.indexOf('\r\n\r\n') + 4 + r.body.length);
        if (statuses.length === count) return finish();
      }
    });
    socket.on('close', finish);
    socket.on('error', finish);
    const timer = setTimeout(finish, timeoutMs);
    socket.write(Buffer.from(bytes.repeat(count), 'latin1'));
  });
}

/**
 * Sends all of `bytes` but the last `keep` on a new connection (a client
 * slow to finish its request) and resolves once they are written; release()
 * sends the rest and resolves with the answer's status (0 when the server
 * closed without one or nothing came within `timeoutMs`). Releasing many at
 * once makes slow requests race.
 */
export async function heldBack(port: number, bytes: string, keep = 1, localAddress?: string, timeoutMs = 15_000): Promise<{ release(): Promise<number> }> {
  const { tcp, tls: socket } = await connect(port, localAddress);
  const data = Buffer.from(bytes, 'latin1');
  let raw = '';
  let done!: (status: number) => void;
  const answered = new Promise<number>((resolve) => (done = resolve));
  socket.on('data', (d: Buffer) => {
    raw += d.toString('latin1');
    const r = parseResponse(raw);
    if (r) done(r.status);
  });
  socket.on('close', () => done(0));
  socket.on('error', () => done(0));
  await new Promise<void>((resolve) => socket.write(data.subarray(0, data.length - keep), () => resolve()));
  return {
    release() {
      socket.write(data.subarray(data.length - keep));
      const timer = setTimeout(() => done(0), timeoutMs);
      return answered.finally(() => {
        clearTimeout(timer);
        tcp.destroy();
      });
    },
  };
}
