// Clients that send a request and vanish: the whole request then gone
// before reading a byte of the answer, or gone part-way through the head or
// (for requests with one) the body, by a TCP reset or a plain close. Ten of
// each at once on each thread, for every endpoint family. The server must
// stay up, a well-behaved client (the canary) must be answered within
// CANARY_BOUND_MS all the while (the bound is justified in
// racing-requests.test.ts), nothing a request cut short asked for may happen
// (no route is created, no sign-in is counted as a failure), and no request
// may stay in flight: a graceful stop afterwards must not wait for one.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertCanary, type CanaryReport, type Ending, endpointFamilies, type Family, sendAndDrop, startCanary } from '../../helpers/attack.js';
import { runCliJson } from '../../helpers/cli.js';
import { signInRequest } from '../../helpers/console-session.js';
import { api, createRoute, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let families: Family[];
beforeAll(async () => {
  server = await startServer({ threads: 2, env: NO_RATE_LIMIT });
  families = await endpointFamilies(server);
});
afterAll(() => server?.close());

const EACH = 10;
const ENDINGS: Ending[] = ['rst', 'fin'];
const CANARY_BOUND_MS = 2000;

/** Where a request is cut: a name and the bytes sent. */
function cuts(family: Family): [string, string][] {
  const out: [string, string][] = [['mid-head', family.request.slice(0, Math.floor(family.headEnd / 2))]];
  if (family.request.length > family.headEnd) out.push(['mid-body', family.request.slice(0, family.headEnd + Math.floor((family.request.length - family.headEnd) / 2))]);
  return out;
}

/** EACH connections per thread and ending, at once, each sending `bytes` and then gone after `holdMs`. */
function vanish(bytes: string, holdMs: number, localAddress?: string): Promise<void[]> {
  return Promise.all(
    ENDINGS.flatMap((ending) => server.ports.flatMap((port) => Array.from({ length: EACH }, () => sendAndDrop(port, bytes, ending, holdMs, localAddress)))),
  );
}

const routeTotal = async () => (await api(server, 'GET', '/v1/routes')).json.pagination.total as number;

it('serves everyone else, and does nothing a cut request asked for, while clients vanish mid-request', async () => {
  const route = await createRoute(server);
  let report: CanaryReport;
  const canary = startCanary(server, [{ path: '/healthz', status: 200 }, { path: `/r/${route.code}`, status: 302 }], CANARY_BOUND_MS);
  try {
    // Cut requests first: none of them may create a route.
    const before = await routeTotal();
    for (const family of families) for (const [, bytes] of cuts(family)) await vanish(bytes, 50);
    expect(await routeTotal()).toBe(before);
    // Whole requests, gone before the answer is read (some before it is written).
    for (const family of families) await vanish(family.request, 0);
    for (const family of families) await vanish(family.request, 20);
  } finally {
    report = await canary.stop();
  }
  assertCanary(report, 'clients vanishing mid-request');
  expect(server.process.exitCode).toBeNull();
  expect(server.output()).not.toMatch(/forbidden|terminate called|unhandled_error|thread_failed/);
});

it('counts no sign-in cut mid-body as a failure', async () => {
  await runCliJson(['user', 'create', '--email', 'owner@x.y', '--password', 'the-right-one', '--account', String(server.accountId)], server.dataDir);
  const from = '127.0.7.1';
  const login = JSON.stringify({ email: 'owner@x.y', password: 'a-wrong-one' });
  const request = `POST /console/api/session/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${login.length}\r\n\r\n${login}`;
  // 40 cut attempts: past both the per-email-at-address (5) and the per-address (20) limits, had they counted.
  await vanish(request.slice(0, request.length - 5), 50, from);
  const res = await signInRequest(server, 'owner@x.y', 'the-right-one', { localAddress: from });
  expect(res.status, res.body).toBe(200);
});

it('stops gracefully at once: no cut request is left in flight', async () => {
  const started = performance.now();
  expect(await server.stop()).toBe(0);
  // A request left in flight makes the stop wait its full 10 s.
  expect(performance.now() - started).toBeLessThan(3000);
  expect(server.output()).not.toMatch(/forbidden|terminate called|unhandled_error|thread_failed/);
});
