// Clients that pipeline requests and never read the answers, held open (the
// drop at the end is pipelined-then-dropped.test.ts). One such client per
// endpoint family on each thread, all at once, each writing 1,000 requests a
// second (at 2,500 a second each the server ran at its capacity and, on a
// machine loaded by other jobs, the canary's answers came in 2.0-2.1 s: that
// judges capacity, not the non-reading shape). The server must close every
// one of them (the connection guard's not-reading rule,
// SPLITGUARD_STALL_SECONDS=2 here; or uWS itself when a request arrives
// behind a pending answer), stay up, and
// answer a well-behaved client (the canary) within CANARY_BOUND_MS all the
// while (the bound is justified in racing-requests.test.ts). The redirect's
// GET and HEAD, which once starved the canary, are judged harder in
// pipelined-unread-bodiless.test.ts. Pipelining must
// not slip past a limit either: the answers of a pipeline are counted against
// the account's minute like any others, whether read or not, and pipelines
// racing each other create no more routes than the quota.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertAnswering, assertCanary, type CanaryReport, endpointFamilies, type Family, pipelineAndRead, startCanary, tally } from '../../helpers/attack.js';
import { runCliJson } from '../../helpers/cli.js';
import { call } from '../../helpers/client.js';
import { metric, pipelineWithoutReading, sleep } from '../../helpers/connections.js';
import { api, createRoute, waitUntil } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let families: Family[];
let code: string;
beforeAll(async () => {
  // The contract's rate limit (60 per minute per account) applies.
  server = await startServer({ threads: 2, env: { SPLITGUARD_STALL_SECONDS: '2', SPLITGUARD_RATE_LIMIT_PER_MIN: undefined } });
  families = await endpointFamilies(server);
  code = (await createRoute(server)).code;
});
afterAll(() => server?.close());

const CANARY_BOUND_MS = 2000;
/** The guard looks once a second and acts after 2 s without progress; the rest is margin for a loaded machine. */
const CLOSED_WITHIN_MS = 10_000;
/** Requests per write, one write every 20 ms per client: 1,000 a second each, 26,000 in all, enough to fill the buffers of a client that never reads within a second. */
const PER_WRITE = 20;


/** One client per family and thread, pipelining without reading; resolves once the server has closed them all (or names those still open). */
async function closedByServer(chosen: Family[]): Promise<void> {
  const clients = await Promise.all(chosen.flatMap((f) => server.ports.map((port) => pipelineWithoutReading(port, server.ca, f.request, PER_WRITE, 20))));
  const closed = new Set<number>();
  clients.forEach((c, i) => void c.ended.then(() => closed.add(i)));
  const ended = await Promise.race([Promise.all(clients.map((c) => c.ended)), sleep(CLOSED_WITHIN_MS).then(() => null)]);
  for (const c of clients) c.stop();
  const names = chosen.flatMap((f) => server.ports.map((p) => `${f.name} on ${p}`));
  expect(ended, `still open after ${CLOSED_WITHIN_MS} ms: ${names.filter((_, i) => !closed.has(i)).join(', ')}`).not.toBeNull();
}

it('closes every non-reading pipeliner and serves a well-behaved client meanwhile', async () => {
  let report: CanaryReport;
  const canary = startCanary(server, [{ path: '/healthz', status: 200 }, { path: `/r/${code}`, status: 302 }], CANARY_BOUND_MS);
  try {
    await closedByServer(families);
  } finally {
    report = await canary.stop();
  }
  assertCanary(report, 'non-reading pipeliners of every family');
  expect(server.process.exitCode).toBeNull();
  expect(server.output()).not.toMatch(/forbidden|terminate called|unhandled_error|thread_failed/);
});

it('counts pipelined requests against the account minute, read or not', async () => {
  const account = await runCliJson<{ api_key: string }>(['account', 'create', '--name', 'pipeliner'], server.dataDir);
  const request = `GET /v1/account HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${account.api_key}\r\n\r\n`;
  // Read: exactly the first 60 pass, on one connection.
  const statuses = await pipelineAndRead(server.ports[0], request, 100);
  expect(statuses).toEqual([...Array(60).fill(200), ...Array(40).fill(429)]);

  const other = await runCliJson<{ api_key: string }>(['account', 'create', '--name', 'unread'], server.dataDir);
  const unread = `GET /v1/account HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${other.api_key}\r\n\r\n`;
  const passed = () => metric(server, 'splitguard_api_responses_total{status="200"}');
  const before = await passed();
  // Unread, on both threads at once: 400 requests, of which 60 may pass.
  const clients = await Promise.all(server.ports.flatMap((port) => [pipelineWithoutReading(port, server.ca, unread, 100, 10), pipelineWithoutReading(port, server.ca, unread, 100, 10)]));
  await sleep(500);
  for (const c of clients) c.stop();
  expect(clients.reduce((n, c) => n + c.sent, 0)).toBeGreaterThanOrEqual(400);
  // /metrics itself is no /v1 answer; nothing else runs meanwhile.
  expect((await passed()) - before).toBe(60);
  const after = await call(server.ports[1], server.ca, 'GET', '/v1/account', other.api_key);
  expect(after.status).toBe(429);
});

it('creates no more routes than the quota from racing pipelines', async () => {
  const account = await runCliJson<{ api_key: string }>(['account', 'create', '--name', 'quota', '--quota', '5'], server.dataDir);
  const body = JSON.stringify({ name: 'pipelined', page_a: 'https://a.example/', page_b: 'https://b.example/' });
  const create = `POST /v1/routes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${account.api_key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  // 20 connections of 20 pipelined creates each. uWS runs the first of each;
  // the second arrives while the first's answer is pending, and uWS closes the
  // connection, dropping that answer (docs/reliability.md, "Pipelined, unread
  // and aborted requests"). So 20 creates race, and the store is the judge.
  const answers = (await Promise.all(Array.from({ length: 20 }, (_, i) => pipelineAndRead(server.ports[i % 2], create, 20)))).flat();
  expect(answers.every((s) => s === 201 || s === 403), JSON.stringify(tally(answers))).toBe(true);
  const account_ = () => api(server, 'GET', '/v1/account', undefined, { key: account.api_key });
  await waitUntil(account_, (r) => r.json.routes_created === 5, 5000);
  await sleep(500);
  expect((await account_()).json).toMatchObject({ quota: 5, routes_created: 5, quota_remaining: 0 });
  const list = await api(server, 'GET', '/v1/routes', undefined, { key: account.api_key });
  expect(list.json.pagination.total).toBe(5);
});
