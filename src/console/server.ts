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

export function registerConsole(app: Routes, deps: ConsoleDeps): void {
  const { config, stores } = deps;
  const sessions = new Sessions(stores, config.sessionIdleMinutes);
  const { index, files } = loadStatic();

  const reply = (x: Exchange, status: number, body: unknown, headers: Headers = {}) => {
    sendJson(x, status, body, { ...SECURITY_HEADERS, ...headers });
  };
  const fail = (x: Exchange, err: unknown, headers: Headers = {}) => {
    const e = publicError(err);
    reply(x, e.status, e.body(), e.headers ? { ...headers, ...e.headers } : headers);
  };

  const answer: Answer = { reply: (x, out, headers) => reply(x, out.status, out.body, { ...headers, ...out.headers }), fail };

  /** Runs `work` after the sign-in's JSON body has arrived. */
  const withBody = (x: Exchange, call: Call, work: (body: unknown) => Promise<ApiReply>) => {
    if (!/^application\/json\s*(;|$)/i.test(call.contentType)) {
      throw new AppError('invalid_parameter', 'Content-Type must be application/json', 'Content-Type');
    }
    deps.inflight.count++;
    watchAbort(x);
    readBody(x, call.contentLength)
      .then((buf) => work(parseJson(buf)))
      .then((out) => answer.reply(x, out, {}), (err) => fail(x, err))
      .finally(() => deps.inflight.count--);
  };

  const me = (user: User, account: Account, session: ConsoleSession) => ({
    email: user.email,
    admin: user.admin,
    account: accountView(account),
    csrf_token: session.csrf,
    expires_at: new Date(sessions.expiresAt(session)).toISOString(),
    idle_minutes: config.sessionIdleMinutes,
  });

  const sameOrigin = (call: Call) => {
    if (call.origin === '') return true;
    try {
      const o = new URL(call.origin);
      return o.protocol === 'https:' && o.host === call.host;
    } catch {
      return false;
    }
  };

  const handle = (x: Exchange, call: Call) => {
    const rest = call.path.slice(API.length);
    const changes = call.method !== 'GET';
    if (changes && !sameOrigin(call)) throw new AppError('csrf_failed', 'the Origin header names another site', 'Origin');

    if (rest === '/session/login') {
      if (call.method !== 'POST') throw Object.assign(new AppError('method_not_allowed', `${call.path} allows POST`), { headers: { Allow: 'POST' } });
      withBody(x, call, async (body) => {
        const user = await login(stores, deps.loginLimits, call.ip, credentials(body));
        const account = stores.accounts.get(user.accountId);
        if (!account) throw new AppError('login_failed', 'the login has no account');
        const { id, session } = sessions.create(user.email);
        log('info', 'console_login', { email: user.email });
        return { status: 200, body: me(user, account, session), headers: { 'Set-Cookie': sessionCookie(id) } };
      });
      return;
    }

    const live = sessions.find(readCookie(call.cookie, COOKIE));
    const user = live ? stores.users.get(live.session.email) : undefined;
    const account = user ? stores.accounts.get(user.accountId) : undefined;
    if (!live || !user || !account) {
      fail(x, new AppError('session_invalid'), call.cookie.includes(`${COOKIE}=`) ? { 'Set-Cookie': CLEAR_COOKIE } : {});
      return;
    }
    if (changes && !csrfMatches(live.session, call.csrf)) {
      throw new AppError('csrf_failed', "X-CSRF-Token is missing or is not this session's token", 'X-CSRF-Token');
    }

    if (rest === '/session' || rest === '/session/logout') {
      const allowed = rest === '/session' ? 'GET' : 'POST';
      if (call.method !== allowed) throw Object.assign(new AppError('method_not_allowed', `${call.path} allows ${allowed}`), { headers: { Allow: allowed } });
      if (allowed === 'GET') {
        reply(x, 200, me(user, account, live.session));
      } else {
        sessions.delete(live.key);
        reply(x, 204, null, { 'Set-Cookie': CLEAR_COOKIE });
      }
      return;
    }

    // /console/api/v1/... runs the /v1 handler itself; the console's own
    // endpoints are registered under their /console/api/... paths.
    const path = rest.startsWith('/v1/') ? rest : call.path;
    dispatch(deps.router, x, call, path, { account, admin: user.admin }, answer, {}, deps.inflight);
  };

  const api = (res: HttpResponse, req: HttpRequest) => {
    const x = exchange(res, req.getMethod() === 'head');
    const call: Call = {
      ...readRequest(req),
      ip: requestAddress(res, req, config.trustProxy),
      cookie: req.getHeader('cookie'),
      csrf: req.getHeader('x-csrf-token'),
      origin: req.getHeader('origin'),
      host: req.getHeader('host'),
    };
    try {
      handle(x, call);
    } catch (err) {
      fail(x, err);
    }
  };

  const page = (res: HttpResponse, req: HttpRequest) => {
    const x = exchange(res, req.getMethod() === 'head');
    const url = req.getUrl();
    // A page path (no dot in it) is the app itself; it routes on the client.
    const file = files.get(url) ?? (url.includes('.') ? undefined : index);
    if (!file) {
      send(x, 404, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }, 'not found\n');
      return;
    }
    send(x, 200, { ...SECURITY_HEADERS, 'Content-Type': file.type, 'Cache-Control': 'no-cache' }, file.body);
  };

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
