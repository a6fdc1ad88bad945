// Helpers for the routes API and the redirect: JSON calls with the test
// server's key, route creation, and a redirect client that keeps TLS
// connections alive (thousands of visits through fresh handshakes would
// spend the time budget on TLS, not on the code under test).
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { afterAll, beforeAll } from 'vitest';
import { request, type Response } from './client.js';
import { type StartOptions, startServer, type TestServer } from './server.js';

/** The environment most route tests want: no per-account rate limit in the way. */
export const NO_RATE_LIMIT = { SPLITGUARD_RATE_LIMIT_PER_MIN: '1000000' };
/** Believe X-Forwarded-For from loopback, so a test can choose the client address. */
export const TRUST_LOOPBACK = { SPLITGUARD_TRUST_PROXY: '127.0.0.1/32,::1/128' };

/** Where requests go: a server's threads, or anything in front of servers (the cluster tests' nginx). */
export type Endpoint = Pick<TestServer, 'ports' | 'ca' | 'apiKey'>;

export interface ApiOptions {
  /** The thread to ask (default 0). */
  thread?: number;
  /** Another key than the bootstrap account's. */
  key?: string;
}

/** One /v1 call with a JSON body (or none) and the server's key. */
export function api(server: Endpoint, method: string, path: string, json?: unknown, options: ApiOptions = {}): Promise<Response> {
  return request({
    port: server.ports[options.thread ?? 0],
    ca: server.ca,
    method,
    path,
    key: options.key ?? server.apiKey,
    json,
  });
}

export interface RouteBody {
  id: number;
  name: string;
  page_a: string;
  page_b: string;
  split_ratio: number;
  default_group: 'a' | 'b';
  intercept_level: 'off' | 'low' | 'medium' | 'high';
  code: string;
  short_url: string;
  status: string;
  created_at: string;
  updated_at: string;
}

export interface Stats {
  window: { days: number; from: string; to: string };
  clicks: { total: number; daily: { date: string; clicks: number }[] };
  /** `a` and `b`; `c` to `h` for a route with that many variants. */
  groups: { a: number; b: number } & Record<string, number>;
  intercepted: number;
  rule_hits: { asn_blacklist: number; org_keyword: number; vpn_proxy: number; carrier_whitelist: number; check_failed: number };
}

export const PAGE_A = 'https://a.example.com/landing';
export const PAGE_B = 'https://b.example.com/landing';

/** Creates a route (201 expected) with pages A and B unless overridden. */
export async function createRoute(server: Endpoint, fields: Record<string, unknown> = {}, options: ApiOptions = {}): Promise<RouteBody> {
  const r = await api(server, 'POST', '/v1/routes', { name: 'test route', page_a: PAGE_A, page_b: PAGE_B, ...fields }, options);
  if (r.status !== 201) throw new Error(`creating a route answered ${r.status}: ${r.body}`);
  return r.json as RouteBody;
}

export async function updateRoute(server: Endpoint, id: number, fields: Record<string, unknown>, options: ApiOptions = {}): Promise<RouteBody> {
  const r = await api(server, 'PUT', `/v1/routes/${id}`, fields, options);
  if (r.status !== 200) throw new Error(`updating route ${id} answered ${r.status}: ${r.body}`);
  return r.json as RouteBody;
}

/** The detail's stats (200 expected). */
export async function routeStats(server: Endpoint, id: number, options: ApiOptions = {}): Promise<Stats> {
  const r = await api(server, 'GET', `/v1/routes/${id}`, undefined, options);
  if (r.status !== 200) throw new Error(`reading route ${id} answered ${r.status}: ${r.body}`);
  return r.json.stats as Stats;
}

/** A route's clicks counted per variant by its experiment, summed; -1 while the route cannot be read (a node restarting). */
export async function experimentClicks(server: Endpoint, id: number): Promise<number> {
  const r = await api(server, 'GET', `/v1/routes/${id}`);
  if (r.status !== 200) return -1;
  return (r.json as { experiment: { variants: { clicks: number }[] } }).experiment.variants.reduce((sum, v) => sum + v.clicks, 0);
}

/** Polls until `check` returns true or `timeoutMs` passes; returns the elapsed milliseconds or throws with the last value. */
export async function waitUntil<T>(read: () => T | Promise<T>, check: (v: T) => boolean, timeoutMs: number, stepMs = 50): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  for (;;) {
    const value = await read();
    const ms = performance.now() - start;
    if (check(value)) return { value, ms };
    if (ms > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** A visitor id as the server issues them: 16 random bytes, base64url (22 characters). */
export function visitorId(): string {
  return randomBytes(16).toString('base64url');
}

export interface VisitOptions {
  thread?: number;
  method?: 'GET' | 'HEAD';
  /** The sg_vid value to present. */
  visitor?: string;
  /** A whole Cookie header (instead of `visitor`). */
  cookie?: string;
  /** Sent as X-Forwarded-For. */
  forwardedFor?: string;
  /** The short link's query string, without "?". */
  query?: string;
  /** The User-Agent (default BROWSER_UA: tests visit as people unless they say otherwise; '' sends none). */
  userAgent?: string;
}

/** A desktop Chrome's User-Agent, the visitor tests stand in for. */
export const BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36';

export interface Visit {
  status: number;
  location: string | undefined;
  setCookie: string[];
  headers: IncomingHttpHeaders;
  body: string;
}

/** Which page a 302 went to: 'a', 'b', or throws for anything else. */
export function pageOf(v: Visit, pageA = PAGE_A, pageB = PAGE_B): 'a' | 'b' {
  if (v.status !== 302) throw new Error(`expected 302, got ${v.status}`);
  if (v.location === pageA) return 'a';
  if (v.location === pageB) return 'b';
  throw new Error(`unexpected Location ${v.location}`);
}

/**
 * Visits /r/<code> over keep-alive connections, one agent per thread's port.
 * close() when done, so no socket outlives the test.
 */
export class RedirectClient {
  readonly #server: Endpoint;
  readonly #agents: https.Agent[];

  constructor(server: Endpoint, maxSockets = 16) {
    this.#server = server;
    this.#agents = server.ports.map(() => new https.Agent({ keepAlive: true, maxSockets, ca: server.ca }));
  }

  visit(code: string, options: VisitOptions = {}): Promise<Visit> {
    const thread = options.thread ?? 0;
    const headers: Record<string, string> = {};
    if (options.cookie !== undefined) headers.Cookie = options.cookie;
    else if (options.visitor !== undefined) headers.Cookie = `sg_vid=${options.visitor}`;
    if (options.forwardedFor !== undefined) headers['X-Forwarded-For'] = options.forwardedFor;
    const ua = options.userAgent ?? BROWSER_UA;
    if (ua !== '') headers['User-Agent'] = ua;
    const path = `/r/${code}${options.query === undefined ? '' : `?${options.query}`}`;
    return new Promise<Visit>((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: this.#server.ports[thread],
          method: options.method ?? 'GET',
          path,
          headers,
          agent: this.#agents[thread],
          timeout: 15_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            resolve({
              status: res.statusCode ?? 0,
              location: res.headers.location,
              setCookie: res.headers['set-cookie'] ?? [],
              headers: res.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer for ${path} within the timeout`)));
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    for (const a of this.#agents) a.destroy();
  }
}

/** Runs fn over items with at most `concurrency` in flight; results in input order. */
export async function inParallel<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

/**
 * Keeps a thread busy with short-link lookups that miss its route cache
 * (well-formed codes that do not exist, each new), until stop() is awaited.
 * Each miss reads LMDB, so the thread always holds a recent read
 * transaction: the condition under which a stale snapshot would show.
 */
export function backgroundMisses(server: TestServer, thread: number, connections = 8): { stop(): Promise<number> } {
  const client = new RedirectClient(server, connections);
  let running = true;
  let n = 0;
  const loops = Array.from({ length: connections }, async () => {
    while (running) {
      const code = `Zz${(n++).toString(36).padStart(6, '0')}`;
      const v = await client.visit(code, { thread });
      if (v.status !== 404) throw new Error(`/r/${code} answered ${v.status}`);
    }
  });
  return {
    async stop() {
      running = false;
      try {
        await Promise.all(loops);
      } finally {
        client.close();
      }
      return n;
    },
  };
}

/**
 * A server started in the file's beforeAll with a keep-alive redirect client
 * on it, both closed in its afterAll. Read them in tests, or in hooks
 * registered after this call: vitest runs beforeAll hooks in the order they
 * were registered and afterAll hooks in the reverse order.
 */
export function useRedirectServer(options: StartOptions = {}): { readonly server: TestServer; readonly client: RedirectClient } {
  let server: TestServer | undefined;
  let client: RedirectClient | undefined;
  beforeAll(async () => {
    server = await startServer(options);
    client = new RedirectClient(server);
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the server is not started yet: use it in a test, or in a beforeAll hook registered after useRedirectServer()');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get client() {
      return started(client);
    },
  };
}
