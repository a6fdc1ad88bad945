// /v1 with an API key. Order of checks (contract §3): authentication (a
// failure is counted against the client address, and past the limit
// answered 429 instead of 401), the account's rolling-minute limit, then
// the endpoint table (http/dispatch.ts: endpoint, rights, body, handler). The
// two limits answer at once on a single node and, in a cluster, once Redis
// has (limits/limits.ts); the request is then watched for an abort and
// counted in flight while it waits.
import type { AppDeps } from '../app.js';
import { AppError } from '../errors.js';
import { Metric } from '../metrics.js';
import type { Decision, FailureVerdict, RateVerdict } from '../limits/limits.js';
import type { Authenticated } from '../store/accounts-store.js';
import { type Answer, dispatch, settleLater } from './dispatch.js';
import type { Endpoints } from './framing.js';
import { limitKey } from './client-ip.js';
import { readRequest, type RequestBasics, requestAddress } from './request.js';
import { type Exchange, openExchange, type Headers, publicError, sendJson } from './respond.js';
import type { HttpRequest } from './uws.js';

/** Failed authentications allowed per client address per rolling minute. */
const AUTH_FAILURE_LIMIT = 30;

/** Writes the verdict's RateLimit-* headers into `headers`; throws rate_limited when it refuses. */
function admitNow(v: RateVerdict, headers: Headers): void {
  headers['RateLimit-Limit'] = String(v.limit);
  headers['RateLimit-Remaining'] = String(v.remaining);
  headers['RateLimit-Reset'] = String(v.resetSeconds);
  if (!v.allowed) throw new AppError('rate_limited', `the limit is ${v.limit} requests per minute`, null, { headers: { 'Retry-After': String(v.resetSeconds) } });
}

/**
 * A rate limiter's decision as dispatch takes it: decided now (this
 * process's tables), the headers are written and a refusal is thrown;
 * decided later (Redis), the returned promise does both, and the request is
 * dispatched meanwhile so that its body is read as it arrives.
 */
export function admission(verdict: Decision<RateVerdict>, headers: Headers): Promise<void> | undefined {
  if (verdict instanceof Promise) return verdict.then((v) => admitNow(v, headers));
  admitNow(verdict, headers);
  return undefined;
}

const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]{1,256})$/i;

export const isHead = (req: HttpRequest) => req.getMethod().toLowerCase() === 'head';

/**
 * The refusal of an unauthenticated call: 429 past the address's failure
 * limit, else 401 naming what was wrong with the header. Either carries the
 * RateLimit-* headers of the limit that applies to a call without an account
 * (contract §3: every /v1 answer carries them): the address's failed
 * authentications, AUTH_FAILURE_LIMIT a rolling minute (in a cluster with
 * Redis away, the node's share of it, which is what the verdict applied).
 */
function unauthenticated(call: RequestBasics, wellFormed: boolean, verdict: FailureVerdict): AppError {
  const limit = {
    'RateLimit-Limit': String(verdict.limit),
    'RateLimit-Remaining': String(Math.max(0, verdict.limit - verdict.count)),
    'RateLimit-Reset': String(verdict.retryAfter),
  };
  if (!verdict.allowed) {
    return new AppError('rate_limited', 'too many failed authentications from this address', null, { headers: { ...limit, 'Retry-After': String(verdict.retryAfter) } });
  }
  const why = call.authorization === ''
    ? 'the Authorization header is missing'
    : wellFormed ? 'the API key is not valid' : 'the Authorization header must be "Bearer <API key>"';
  return new AppError('unauthorized', why, 'Authorization', { headers: { ...limit, 'WWW-Authenticate': 'Bearer' } });
}

export function registerApi(endpoints: Endpoints, deps: AppDeps): void {
  const { config, metrics } = deps;

  const reply = (exchange: Exchange, status: number, body: unknown, headers: Headers = {}) => {
    metrics.apiStatus(status);
    sendJson(exchange, status, body, headers);
  };
  const fail = (exchange: Exchange, err: unknown, headers: Headers = {}) => {
    const e = publicError(err);
    reply(exchange, e.status, e.body(), e.headers ? { ...headers, ...e.headers } : headers);
  };

  const answer: Answer = {
    reply: (exchange, out, headers) => reply(exchange, out.status, out.body, out.headers ? Object.assign(headers, out.headers) : headers),
    fail,
  };

  const handleApi = (exchange: Exchange, call: RequestBasics, httpReq: HttpRequest) => {
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
      metrics.inc(Metric.authFailures);
      const verdict = deps.authFailures.hit(limitKey(requestAddress(exchange.res, httpReq, config.trustProxy)), AUTH_FAILURE_LIMIT, now);
      if (verdict instanceof Promise) {
        settleLater(verdict.then((v) => Promise.reject(unauthenticated(call, wellFormed, v))), exchange, answer, {}, deps.inflight);
      } else {
        fail(exchange, unauthenticated(call, wellFormed, verdict));
      }
      return;
    }
    deps.keyUse.set(auth.key.hash, now);

    const caller = { account: auth.account, admin: auth.key.admin };
    const headers: Headers = {};
    let admitted: Promise<void> | undefined;
    try {
      admitted = admission(deps.accountLimiter.hit(auth.account.id, config.rateLimitPerMin, now), headers);
    } catch (err) {
      fail(exchange, err, headers);
      return;
    }
    dispatch(deps.endpointTable, exchange, call, call.path, caller, answer, headers, deps.inflight, admitted);
  };


  endpoints.any('/v1/*', (res, req) => {
    const exchange = openExchange(res, isHead(req));
    try {
      handleApi(exchange, readRequest(req), req);
    } catch (err) {
      fail(exchange, err);
    }
  });
}
