// Builds the uWebSockets.js app from its dependencies. It never listens:
// server.worker.ts does, so tests and benchmarks can build the same app.
//
// Order of checks for /v1 (contract §3): authentication (a failure is
// counted against the client address, and past the limit answered 429
// instead of 401), the account's rolling-minute limit, then the endpoint
// table (http/dispatch.ts: route, rights, body, handler).
import type { Config } from './config.js';
import { type ConsoleDeps, registerConsole } from './console/server.js';
import { AppError } from './errors.js';
import type { IpDatabase } from './ipdb/database.js';
import { M, type Metrics } from './metrics.js';
import { inCidrs, LOOPBACK, normalizeAddress } from './http/client-ip.js';
import type { FailureLimiter } from './http/failure-limiter.js';
import type { SharedRateLimiter } from './http/rate-limit.js';
import { endBody, endHead, type Exchange, exchange, HEADER_BYTES, type Headers, JSON_TYPE, publicError, REDIRECT_BODY, send, sendJson, STATUS_LINE } from './http/respond.js';
import { COOKIE, FORWARDED_FOR, readRequest, USER_AGENT, type RequestBasics, requestAddress } from './http/request.js';
import { type Answer, dispatch } from './http/dispatch.js';
import { guardedRoutes } from './http/framing.js';
import type { Router } from './http/router.js';
import { type HttpRequest, type HttpResponse, type TemplatedApp, uws } from './http/uws.js';
import { NOT_FOUND_PAGE, type Redirector } from './redirect/redirect.js';
import type { Authenticated, KeyCache } from './store/accounts-store.js';

/** Failed authentications allowed per client address per rolling minute. */
export const AUTH_FAILURE_LIMIT = 30;

export interface AppDeps {
  config: Config;
  keyCache: KeyCache;
  metrics: Metrics;
  router: Router;
  accountLimiter: SharedRateLimiter;
  /** Failed authentications per exact client address, shared by every thread. */
  authFailures: FailureLimiter;
  /** The database serving now (it can be swapped between requests). */
  database(): IpDatabase | null;
  tls: { certFile: string; keyFile: string };
  /** Key hash → last use (ms), flushed to LMDB in the background. */
  keyUse: Map<string, number>;
  /** Requests whose answer is still being computed; shutdown waits for 0. */
  inflight: { count: number };
  redirector: Redirector;
  /** The web console under /console; absent, the paths answer 404. */
  console?: ConsoleDeps;
}

/**
 * TLS 1.2 suites offered: ECDHE with AEAD only (no CBC, no SHA-1 MACs, no
 * static RSA key exchange), for ECDSA and RSA certificates alike. TLS 1.3
 * suites are all AEAD and set apart by OpenSSL; uSockets refuses TLS < 1.2.
 */
export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

const NOT_FOUND_HEADERS: Headers = { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' };

const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]{1,256})$/i;

export function buildApp(deps: AppDeps): TemplatedApp {
  const { config, metrics } = deps;
  const app = uws.SSLApp({ cert_file_name: deps.tls.certFile, key_file_name: deps.tls.keyFile, ssl_ciphers: TLS12_CIPHERS });
  const routes = guardedRoutes(app);
  const trustProxy = config.trustProxy.length > 0;

  const reply = (x: Exchange, status: number, body: unknown, headers: Headers = {}) => {
    metrics.apiStatus(status);
    sendJson(x, status, body, headers);
  };
  const fail = (x: Exchange, err: unknown, headers: Headers = {}) => {
    const e = publicError(err);
    reply(x, e.status, e.body(), e.headers ? { ...headers, ...e.headers } : headers);
  };

  const answer: Answer = {
    reply: (x, out, headers) => reply(x, out.status, out.body, out.headers ? Object.assign(headers, out.headers) : headers),
    fail,
  };

  const handleApi = (x: Exchange, call: RequestBasics, httpReq: HttpRequest) => {
    const now = Date.now();
    // The memo is keyed by the whole header: a known one skips the parse.
    let auth: Authenticated | null | undefined = deps.keyCache.cached(call.authorization, now);
    let wellFormed = true;
    if (auth === undefined) {
      const bearer = BEARER.exec(call.authorization);
      wellFormed = bearer !== null;
      auth = bearer ? deps.keyCache.authenticate(call.authorization, bearer[1]) : null;
    }
    if (!auth) {
      // Failures are counted per exact client address (read only now: a
      // system call and a copy). A valid key is never refused for them:
      // keys are 256-bit random, so the limit is about load, and callers
      // sharing an address (a NAT, a proxy) must not lock each other out.
      metrics.inc(M.authFailures);
      const verdict = deps.authFailures.hit(requestAddress(x.res, httpReq, config.trustProxy), AUTH_FAILURE_LIMIT, now);
      if (!verdict.allowed) {
        fail(x, new AppError('rate_limited', 'too many failed authentications from this address', null, { headers: { 'Retry-After': String(verdict.retryAfter) } }));
        return;
      }
      const why = call.authorization === ''
        ? 'the Authorization header is missing'
        : wellFormed ? 'the API key is not valid' : 'the Authorization header must be "Bearer <API key>"';
      fail(x, new AppError('unauthorized', why, 'Authorization', { headers: { 'WWW-Authenticate': 'Bearer' } }));
      return;
    }
    deps.keyUse.set(auth.key.hash, now);

    const verdict = deps.accountLimiter.hit(auth.account.id, config.rateLimitPerMin, now);
    const headers: Headers = {
      'RateLimit-Limit': String(verdict.limit),
      'RateLimit-Remaining': String(verdict.remaining),
      'RateLimit-Reset': String(verdict.resetSeconds),
    };
    if (!verdict.allowed) {
      fail(x, new AppError('rate_limited', `the limit is ${verdict.limit} requests per minute`, null, { headers: { 'Retry-After': String(verdict.resetSeconds) } }), headers);
      return;
    }

    dispatch(deps.router, x, call, call.path, { account: auth.account, admin: auth.key.admin }, answer, headers, deps.inflight);
  };

  const isHead = (req: HttpRequest) => req.getMethod().toLowerCase() === 'head';

  routes.any('/v1/*', (res, req) => {
    const x = exchange(res, isHead(req));
    try {
      handleApi(x, readRequest(req), req);
    } catch (err) {
      fail(x, err);
    }
  });

  // The redirect: synchronous from request to response, so the whole answer
  // goes out corked in one write without an explicit cork(). The 302 carries
  // a short constant body so that it ends with tryEnd, which stays pending
  // when the client does not read (then uWS closes the connection at its
  // next pipelined request); a body-less end() would complete whatever the
  // socket's state (endHead in respond.ts). The 404 goes through send().
  const redirect = (res: HttpResponse, req: HttpRequest, count: boolean) => {
    const r = deps.redirector;
    const status = r.visit(
      req.getParameter(0) ?? '',
      res.getRemoteAddress(),
      trustProxy ? req.getHeader(FORWARDED_FOR) : '',
      req.getHeader(COOKIE),
      req.getHeader(USER_AGENT),
      req.getQuery() ?? '',
      count,
    );
    if (status === 302) {
      res.writeStatus(STATUS_LINE[302]).writeHeader(HEADER_BYTES.location, r.location).writeHeader(HEADER_BYTES.cacheControl, HEADER_BYTES.privateNoStore)
        .writeHeader(HEADER_BYTES.hsts, HEADER_BYTES.hstsValue);
      if (r.setCookie !== null) res.writeHeader(HEADER_BYTES.setCookie, r.setCookie);
      if (count) endBody(res.writeHeader(HEADER_BYTES.contentType, HEADER_BYTES.plainText), REDIRECT_BODY);
      else endHead(res);
    } else {
      send(exchange(res, !count), 404, NOT_FOUND_HEADERS, NOT_FOUND_PAGE);
    }
  };
  routes.get('/r/:code', (res, req) => redirect(res, req, true));
  routes.head('/r/:code', (res, req) => redirect(res, req, false));

  routes.get('/healthz', (res) => {
    const x = exchange(res);
    const db = deps.database();
    if (!db) {
      send(x, 503, { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store' }, '{"status":"unavailable"}');
      return;
    }
    sendJson(x, 200, { status: 'ok', database: { version: db.info.version, built_at: db.info.builtAt } });
  });

  routes.get('/metrics', (res) => {
    const x = exchange(res);
    const peer = normalizeAddress(res.getRemoteAddress());
    if (!inCidrs(peer, config.metricsFrom.length ? config.metricsFrom : LOOPBACK)) {
      sendJson(x, 404, new AppError('not_found').body());
      return;
    }
    const db = deps.database();
    const gauges = db
      ? [
          { name: 'splitguard_database_age_seconds', help: 'Seconds since the serving database was built', value: Math.round((Date.now() - Date.parse(db.info.builtAt)) / 1000) },
          { name: 'splitguard_database_ranges', help: 'Ranges in the serving database', value: db.info.ranges.v4, labels: { family: 'ipv4' } },
          { name: 'splitguard_database_ranges', help: 'Ranges in the serving database', value: db.info.ranges.v6, labels: { family: 'ipv6' } },
        ]
      : [];
    send(x, 200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': 'no-store' }, metrics.render(gauges));
  });

  if (deps.console) registerConsole(routes, deps.console);

  routes.any('/*', (res, req) => {
    const x = exchange(res, isHead(req));
    const path = req.getUrl();
    sendJson(x, 404, new AppError('not_found', `no such path: ${path.length > 100 ? `${path.slice(0, 100)}...` : path}`).body());
  });

  return app;
}
