// The console's JSON API without a browser: sign in with email and password,
// then call /console/api/... with the session cookie and CSRF token, as the
// console's own script does. For tests of rights and limits, where a real
// Chromium adds nothing; the console's pages are tested in test/browser/.
import { runCliJson } from './cli.js';
import { request, type Response } from './client.js';
import { afterAll, beforeAll } from 'vitest';
import { type Env, startServer, type StartOptions, type TestServer } from './server.js';

export interface ConsoleSession {
  cookie: string;
  csrf: string;
  call(method: string, path: string, json?: unknown): Promise<Response>;
}

/** The Cookie header a browser sends after `res` set the session (both of its cookies), or ''. */
export function sessionCookieOf(res: Response): string {
  return (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
}

/** POST /console/api/session/login; the raw answer, for tests of the sign-in itself. */
export function signInRequest(server: TestServer, email: string, password: string, options: { localAddress?: string; thread?: number } = {}): Promise<Response> {
  return request({
    port: server.ports[options.thread ?? 0],
    ca: server.ca,
    method: 'POST',
    path: '/console/api/session/login',
    json: { email, password },
    localAddress: options.localAddress,
    timeoutMs: 30_000,
  });
}

/**
 * A signed-in session (throws unless the sign-in answers 200). `waitMs`: a
 * 401 is tried again until then (a cluster node whose replica has not yet
 * received a user made elsewhere); each try that succeeds is one session.
 */
export async function consoleSession(server: TestServer, email: string, password: string, options: { waitMs?: number } = {}): Promise<ConsoleSession> {
  let res = await signInRequest(server, email, password);
  for (const until = Date.now() + (options.waitMs ?? 0); res.status === 401 && Date.now() < until; ) {
    await new Promise((r) => setTimeout(r, 50));
    res = await signInRequest(server, email, password);
  }
  if (res.status !== 200) throw new Error(`sign-in as ${email} answered ${res.status}: ${res.body}`);
  const cookie = sessionCookieOf(res);
  const csrf = String(res.json.csrf_token);
  return {
    cookie,
    csrf,
    call: (method, path, json) =>
      request({
        port: server.ports[0],
        ca: server.ca,
        method,
        path: `/console/api${path}`,
        json,
        headers: { Cookie: cookie, 'X-CSRF-Token': csrf },
      }),
  };
}

/** A console login in the server's bootstrap account, made as an operator makes one (`splitguard user create`); `env`: a cluster node's. */
export async function createConsoleUser(server: TestServer, email: string, password: string, env: Env = {}): Promise<void> {
  await runCliJson(['user', 'create', '--email', email, '--password', password, '--account', String(server.accountId)], server.dataDir, env);
}

/**
 * A server started in the file's beforeAll with one console login made in
 * its account, closed in its afterAll. Read `server` in tests, or in hooks
 * registered after this call (vitest runs beforeAll hooks in the order they
 * were registered).
 */
export function useServerWithLogin(email: string, password: string, options: StartOptions = {}): { readonly server: TestServer } {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startServer(options);
    await createConsoleUser(server, email, password);
  });
  afterAll(() => server?.close());
  return {
    get server() {
      if (server === undefined) throw new Error('the server is not started yet: use it in a test, or in a beforeAll hook registered after useServerWithLogin()');
      return server;
    },
  };
}
