// The web console's HTTP glue (the only console module that knows uWS):
//
//   GET  /console, /console/<page>      the single-page app (index.html)
//   GET  /console/app.js, app.css, ...  its static files
//   /console/api/session/login          POST {"email","password"} → session cookie + the session
//   /console/api/session                GET  the session (user, account, CSRF token)
//   /console/api/session/logout         POST ends the session
//   /console/api/session/logout-everywhere  POST ends every session of the user → {"ended": n}
//   /console/api/session/password       POST {"current_password","new_password"} → a new session, every other ended
//   /console/api/keys, /accounts        the console's own endpoints (api.ts)
//   /console/api/v1/...                 the /v1 handlers themselves, run with the session's
//                                       account instead of an API key
//
// Every API request but login needs a live session cookie (401
// session_invalid); every one that is not a GET must carry the session's
// CSRF token in X-CSRF-Token and, if the browser sends an Origin, come from
// this host (403 csrf_failed). Errors use the /v1 body {"error","code","field"}.
// A console user's own admin flag (not the account's) decides the admin pages
// and endpoints; see http/dispatch.ts.
import { accountView } from '../api/account.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { contentTypeError, isJsonType, parseJson, readBody } from '../http/body.js';
import { type Exchange, openExchange, type Headers, send, sendJson, watchAbort, publicError } from '../http/respond.js';
import { readRequest, type RequestBasics, requestAddress } from '../http/request.js';
import { admission } from '../http/api-endpoint.js';
import { type Answer, dispatch, settleLater } from '../http/dispatch.js';
import type { ApiReply, EndpointTable } from '../http/endpoint-table.js';
import type { Endpoints } from '../http/framing.js';
import type { HttpRequest, HttpResponse } from '../http/uws.js';
import { log } from '../log.js';
import type { RateLimit } from '../limits/limits.js';
import type { Account, ConsoleSession, User } from '../store/db.js';
import type { Storage } from '../store/storage.js';
import { changePassword, credentials, login, type LoginLimits, passwordChange } from './login.js';
import { CLEAR_COOKIES, csrfMatches, hasSessionCookie, sessionCookies, sessionIdsOf, Sessions } from './sessions.js';
import { type ConsoleFiles, SECURITY_HEADERS, staticFiles } from './static.js';

export interface ConsoleDeps {
  config: Config;
  storage: Storage;
  /** The endpoint table (the /v1 endpoints and the console's own, console/api.ts). */
  endpointTable: EndpointTable;
  /** Sign-in limits and the bound on password hashing, shared by every thread. */
  loginLimits: LoginLimits;
  /** The API's per-account limiter: the console's /v1 calls have a budget of their own in it (CONSOLE_RATE_FACTOR). */
  accountLimiter: RateLimit;
  inflight: { count: number };
  /** The static files, shared by every thread (static.ts). */
  files: ConsoleFiles;
}

interface Call extends RequestBasics {
  ip: Uint8Array;
  cookie: string;
  csrf: string;
  origin: string;
  host: string;
}

const API = '/console/api';
/** The console's /v1 calls and changes per account per minute, as a multiple of the API's limit (SPLITGUARD_RATE_LIMIT_PER_MIN). */
const CONSOLE_RATE_FACTOR = 10;

const sameOrigin = (call: Call) => {
  if (call.origin === '') return true;
  try {
    const o = new URL(call.origin);
    return o.protocol === 'https:' && o.host === call.host;
  } catch {
    return false;
  }
};

const methodNotAllowed = (path: string, allowed: string) => new AppError('method_not_allowed', `${path} allows ${allowed}`, null, { headers: { Allow: allowed } });

/** /console/api/...: sign-in, the session, and the endpoints dispatched with the session's account. */
class ConsoleApi {
  readonly #deps: ConsoleDeps;
  readonly #sessions: Sessions;
  readonly #answer: Answer;

  constructor(deps: ConsoleDeps) {
    this.#deps = deps;
    this.#sessions = new Sessions(deps.storage.sessions, deps.config.sessionIdleMinutes);
    this.#answer = { reply: (exchange, out, headers) => this.reply(exchange, out.status, out.body, { ...headers, ...out.headers }), fail: (exchange, err, headers) => this.fail(exchange, err, headers) };
  }

  reply(exchange: Exchange, status: number, body: unknown, headers: Headers = {}): void {
    sendJson(exchange, status, body, { ...SECURITY_HEADERS, ...headers });
  }

  fail(exchange: Exchange, err: unknown, headers: Headers = {}): void {
    const e = publicError(err);
    this.reply(exchange, e.status, e.body(), e.headers ? { ...headers, ...e.headers } : headers);
  }

  /** Answers one request; throws an AppError the caller sends. */
  handle(exchange: Exchange, call: Call): void {
    const rest = call.path.slice(API.length);
    const changes = call.method !== 'GET';
    if (changes && !sameOrigin(call)) throw new AppError('csrf_failed', 'the Origin header names another site', 'Origin');
    if (rest === '/session/login') return this.#login(exchange, call);
    const { inflight } = this.#deps;
    inflight.count++;
    watchAbort(exchange);
    // The body is read from now on: uWS hands it only to a reader attached
    // before the handler returns, and the session lookup may wait for a
    // storage write (its periodic touch). Judged by dispatch, or dropped with
    // the request when the session is refused.
    const body = changes && call.method !== 'HEAD' ? readBody(exchange, call.contentLength) : undefined;
    body?.catch(() => {});
    this.#withSession(exchange, call, rest, body)
      .catch((err: unknown) => this.fail(exchange, err))
      .finally(() => inflight.count--);
  }

  /** Answers a request that needs a live session (everything but the sign-in); `body` is its body being read, for a method that may carry one. */
  async #withSession(exchange: Exchange, call: Call, rest: string, body: Promise<Buffer> | undefined): Promise<void> {
    // Nothing is answered and no handler runs while a body still arrives:
    // uWS hands every further piece to the reader even after an answer, and
    // the reader can then no longer close the connection of a body sent in
    // too many pieces (http/body.ts; an answered response must not be
    // touched again), nor undo what a handler did meanwhile. A body that
    // failed is the answer (413, or nothing more when the reader answered).
    const received = body === undefined ? undefined : await body;
    const { storage } = this.#deps;
    const live = await this.#sessions.findAny(sessionIdsOf(call.cookie));
    const user = live ? storage.users.get(live.session.email) : undefined;
    const account = user ? storage.accounts.get(user.accountId) : undefined;
    if (!live || !user || !account) {
      this.fail(exchange, new AppError('session_invalid'), hasSessionCookie(call.cookie) ? { 'Set-Cookie': CLEAR_COOKIES } : {});
      return;
    }
    if (call.method !== 'GET' && !csrfMatches(live.session, call.csrf)) {
      throw new AppError('csrf_failed', "X-CSRF-Token is missing or is not this session's token", 'X-CSRF-Token');
    }
    if (rest === '/session/password') {
      if (call.method !== 'POST') throw methodNotAllowed(call.path, 'POST');
      if (!isJsonType(call.contentType)) throw contentTypeError();
      const change = passwordChange(parseJson(received ?? Buffer.alloc(0)));
      const changed = await changePassword(storage.users, this.#deps.loginLimits, call.ip, user.email, change);
      if (!changed) throw new AppError('session_invalid');
      // The browser that changed it goes on in a new session (a new id and CSRF token).
      const { id, session } = await this.#sessions.create({ email: user.email, passwordHash: changed.passwordHash });
      log('info', 'console_password_changed', { email: user.email, sessions_ended: changed.sessionsEnded });
      this.reply(exchange, 200, { ...this.#me(user, account, session), sessions_ended: changed.sessionsEnded }, { 'Set-Cookie': sessionCookies(id) });
      return;
    }
    if (rest === '/session' || rest === '/session/logout' || rest === '/session/logout-everywhere') {
      const allowed = rest === '/session' ? 'GET' : 'POST';
      if (call.method !== allowed) throw methodNotAllowed(call.path, allowed);
      if (rest === '/session') {
        this.reply(exchange, 200, this.#me(user, account, live.session));
      } else if (rest === '/session/logout') {
        await this.#sessions.delete(live.key);
        this.reply(exchange, 204, null, { 'Set-Cookie': CLEAR_COOKIES });
      } else {
        const ended = await this.#sessions.endAll(user.email);
        log('info', 'console_logout_everywhere', { email: user.email, ended });
        this.reply(exchange, 200, { ended }, { 'Set-Cookie': CLEAR_COOKIES });
      }
      return;
    }
    // /console/api/v1/... runs the /v1 handler itself; the console's own
    // endpoints are registered under their /console/api/... paths.
    const path = rest.startsWith('/v1/') ? rest : call.path;
    // The /v1 calls and the console's own changes (keys, users), counted
    // apart from the account's API keys (a route's page polls its detail
    // every second, and an integration using its minute must not lock its
    // people out), under the account's id negated; admitted as the API's
    // requests are (no RateLimit-* headers on the console's answers).
    const admitted = path !== call.path || call.method !== 'GET'
      ? admission(this.#deps.accountLimiter.hit(-account.id, this.#deps.config.rateLimitPerMin * CONSOLE_RATE_FACTOR, Date.now()), {})
      : undefined;
    dispatch(this.#deps.endpointTable, exchange, call, path, { account, admin: user.admin }, this.#answer, {}, this.#deps.inflight, admitted, body);
  }

  #login(exchange: Exchange, call: Call): void {
    if (call.method !== 'POST') throw methodNotAllowed(call.path, 'POST');
    const { storage, loginLimits } = this.#deps;
    this.#withBody(exchange, call, async (body) => {
      const user = await login(storage.users, loginLimits, call.ip, credentials(body));
      const account = storage.accounts.get(user.accountId);
      if (!account) throw new AppError('login_failed', 'the login has no account');
      const { id, session } = await this.#sessions.create(user);
      log('info', 'console_login', { email: user.email });
      return { status: 200, body: this.#me(user, account, session), headers: { 'Set-Cookie': sessionCookies(id) } };
    });
  }

  /** Runs `work` after the sign-in's JSON body has arrived. */
  #withBody(exchange: Exchange, call: Call, work: (body: unknown) => Promise<ApiReply>): void {
    // Unlike dispatch, no Content-Type is refused too: a sign-in always has a body.
    if (!isJsonType(call.contentType)) throw contentTypeError();
    settleLater(readBody(exchange, call.contentLength).then((buf) => work(parseJson(buf))), exchange, this.#answer, {}, this.#deps.inflight);
  }

  #me(user: User, account: Account, session: ConsoleSession) {
    return {
      email: user.email,
      admin: user.admin,
      account: accountView(account),
      csrf_token: session.csrf,
      expires_at: new Date(this.#sessions.expiresAt(session)).toISOString(),
      idle_minutes: this.#deps.config.sessionIdleMinutes,
    };
  }
}

/**
 * The console's pages and files, for GET and HEAD: a path without a dot is
 * the single-page app, which routes on the client. Any other method is 405
 * with the same security headers (every answer under /console carries them).
 */
function pageHandler(shared: ConsoleFiles): (res: HttpResponse, req: HttpRequest) => void {
  const { index, files } = staticFiles(shared);
  return (res, req) => {
    const method = req.getMethod();
    const exchange = openExchange(res, method === 'head');
    if (method !== 'get' && method !== 'head') {
      send(exchange, 405, { ...SECURITY_HEADERS, Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }, 'method not allowed\n');
      return;
    }
    const url = req.getUrl();
    const file = files.get(url) ?? (url.includes('.') ? undefined : index);
    if (!file) {
      send(exchange, 404, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }, 'not found\n');
      return;
    }
    send(exchange, 200, { ...SECURITY_HEADERS, 'Content-Type': file.type, 'Cache-Control': 'no-cache' }, file.body);
  };
}

export function registerConsole(endpoints: Endpoints, deps: ConsoleDeps): void {
  const consoleApi = new ConsoleApi(deps);
  const api = (res: HttpResponse, req: HttpRequest) => {
    const exchange = openExchange(res, req.getMethod() === 'head');
    const call: Call = {
      ...readRequest(req),
      ip: requestAddress(res, req, deps.config.trustProxy),
      cookie: req.getHeader('cookie'),
      csrf: req.getHeader('x-csrf-token'),
      origin: req.getHeader('origin'),
      host: req.getHeader('host'),
    };
    try {
      consoleApi.handle(exchange, call);
    } catch (err) {
      consoleApi.fail(exchange, err);
    }
  };
  const page = pageHandler(deps.files);
  endpoints.any('/console', page);
  endpoints.any('/console/*', page);
  // Method-specific registrations: uWS prefers them over any(), and the
  // longer static prefix over /console/*.
  endpoints.get(`${API}/*`, api);
  endpoints.post(`${API}/*`, api);
  endpoints.put(`${API}/*`, api);
  endpoints.del(`${API}/*`, api);
  endpoints.any(`${API}/*`, api);
}
