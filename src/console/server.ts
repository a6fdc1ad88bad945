// The web console's HTTP glue (the only console module that knows uWS):
//
//   GET  /console, /console/<page>      the single-page app (index.html)
//   GET  /console/app.js, app.css, ...  its static files
//   /console/api/session/login          POST {"email","password"} → session cookie + the session
//   /console/api/session                GET  the session (user, account, CSRF token)
//   /console/api/session/logout         POST ends the session
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
import { parseJson, readBody } from '../http/body.js';
import { type Exchange, exchange, type Headers, send, sendJson, watchAbort, publicError } from '../http/respond.js';
import { readRequest, type RequestBasics, requestAddress } from '../http/request.js';
import { type Answer, dispatch } from '../http/dispatch.js';
import type { ApiReply, Router } from '../http/router.js';
import type { Routes } from '../http/framing.js';
import type { HttpRequest, HttpResponse } from '../http/uws.js';
import { log } from '../log.js';
import type { Account, ConsoleSession, Stores, User } from '../store/db.js';
import { credentials, login, type LoginLimits } from './login.js';
import { CLEAR_COOKIE, COOKIE, csrfMatches, readCookie, sessionCookie, Sessions } from './sessions.js';
import { loadStatic, SECURITY_HEADERS } from './static.js';

export interface ConsoleDeps {
  config: Config;
  stores: Stores;
  /** The endpoint table (the /v1 endpoints and the console's own, console/api.ts). */
  router: Router;
  /** Sign-in limits and the bound on password hashing, shared by every thread. */
  loginLimits: LoginLimits;
  inflight: { count: number };
}

interface Call extends RequestBasics {
  ip: Uint8Array;
  cookie: string;
  csrf: string;
  origin: string;
  host: string;
}

const API = '/console/api';

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
    this.#sessions = new Sessions(deps.stores, deps.config.sessionIdleMinutes);
    this.#answer = { reply: (x, out, headers) => this.reply(x, out.status, out.body, { ...headers, ...out.headers }), fail: (x, err, headers) => this.fail(x, err, headers) };
  }

  reply(x: Exchange, status: number, body: unknown, headers: Headers = {}): void {
    sendJson(x, status, body, { ...SECURITY_HEADERS, ...headers });
  }

  fail(x: Exchange, err: unknown, headers: Headers = {}): void {
    const e = publicError(err);
    this.reply(x, e.status, e.body(), e.headers ? { ...headers, ...e.headers } : headers);
  }

  /** Answers one request; throws an AppError the caller sends. */
  handle(x: Exchange, call: Call): void {
    const rest = call.path.slice(API.length);
    const changes = call.method !== 'GET';
    if (changes && !sameOrigin(call)) throw new AppError('csrf_failed', 'the Origin header names another site', 'Origin');
    if (rest === '/session/login') return this.#login(x, call);

    const live = this.#sessions.find(readCookie(call.cookie, COOKIE));
    const user = live ? this.#deps.stores.users.get(live.session.email) : undefined;
    const account = user ? this.#deps.stores.accounts.get(user.accountId) : undefined;
    if (!live || !user || !account) {
      this.fail(x, new AppError('session_invalid'), call.cookie.includes(`${COOKIE}=`) ? { 'Set-Cookie': CLEAR_COOKIE } : {});
      return;
    }
    if (changes && !csrfMatches(live.session, call.csrf)) {
      throw new AppError('csrf_failed', "X-CSRF-Token is missing or is not this session's token", 'X-CSRF-Token');
    }
    if (rest === '/session' || rest === '/session/logout') {
      const allowed = rest === '/session' ? 'GET' : 'POST';
      if (call.method !== allowed) throw methodNotAllowed(call.path, allowed);
      if (allowed === 'GET') {
        this.reply(x, 200, this.#me(user, account, live.session));
      } else {
        this.#sessions.delete(live.key);
        this.reply(x, 204, null, { 'Set-Cookie': CLEAR_COOKIE });
      }
      return;
    }
    // /console/api/v1/... runs the /v1 handler itself; the console's own
    // endpoints are registered under their /console/api/... paths.
    const path = rest.startsWith('/v1/') ? rest : call.path;
    dispatch(this.#deps.router, x, call, path, { account, admin: user.admin }, this.#answer, {}, this.#deps.inflight);
  }

  #login(x: Exchange, call: Call): void {
    if (call.method !== 'POST') throw methodNotAllowed(call.path, 'POST');
    const { stores, loginLimits } = this.#deps;
    this.#withBody(x, call, async (body) => {
      const user = await login(stores, loginLimits, call.ip, credentials(body));
      const account = stores.accounts.get(user.accountId);
      if (!account) throw new AppError('login_failed', 'the login has no account');
      const { id, session } = this.#sessions.create(user.email);
      log('info', 'console_login', { email: user.email });
      return { status: 200, body: this.#me(user, account, session), headers: { 'Set-Cookie': sessionCookie(id) } };
    });
  }

  /** Runs `work` after the sign-in's JSON body has arrived. */
  #withBody(x: Exchange, call: Call, work: (body: unknown) => Promise<ApiReply>): void {
    if (!/^application\/json\s*(;|$)/i.test(call.contentType)) {
      throw new AppError('invalid_parameter', 'Content-Type must be application/json', 'Content-Type');
    }
    const { inflight } = this.#deps;
    inflight.count++;
    watchAbort(x);
    readBody(x, call.contentLength)
      .then((buf) => work(parseJson(buf)))
      .then((out) => this.#answer.reply(x, out, {}), (err) => this.fail(x, err))
      .finally(() => inflight.count--);
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

/** The single-page app and its static files: a path without a dot is the app, which routes on the client. */
function pageHandler(): (res: HttpResponse, req: HttpRequest) => void {
  const { index, files } = loadStatic();
  return (res, req) => {
    const x = exchange(res, req.getMethod() === 'head');
    const url = req.getUrl();
    const file = files.get(url) ?? (url.includes('.') ? undefined : index);
    if (!file) {
      send(x, 404, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }, 'not found\n');
      return;
    }
    send(x, 200, { ...SECURITY_HEADERS, 'Content-Type': file.type, 'Cache-Control': 'no-cache' }, file.body);
  };
}

export function registerConsole(app: Routes, deps: ConsoleDeps): void {
  const consoleApi = new ConsoleApi(deps);
  const api = (res: HttpResponse, req: HttpRequest) => {
    const x = exchange(res, req.getMethod() === 'head');
    const call: Call = {
      ...readRequest(req),
      ip: requestAddress(res, req, deps.config.trustProxy),
      cookie: req.getHeader('cookie'),
      csrf: req.getHeader('x-csrf-token'),
      origin: req.getHeader('origin'),
      host: req.getHeader('host'),
    };
    try {
      consoleApi.handle(x, call);
    } catch (err) {
      consoleApi.fail(x, err);
    }
  };
  const page = pageHandler();
  app.get('/console', page);
  app.get('/console/*', page);
  // Method-specific registrations: uWS prefers them over any(), and the
  // longer static prefix over /console/*.
  app.get(`${API}/*`, api);
  app.post(`${API}/*`, api);
  app.put(`${API}/*`, api);
  app.del(`${API}/*`, api);
  app.any(`${API}/*`, api);
}
