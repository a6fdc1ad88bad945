// GET /healthz (no key) is 200 with the serving database's version on every
// thread. GET /metrics (loopback) is Prometheus text whose
// splitguard_api_responses_total counts by status sum the requests answered
// by BOTH threads, whichever thread renders it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { embeddedPackageVersion } from '../../helpers/ipdb-cache.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ threads: 2 });
});
afterAll(async () => {
  await server?.close();
});

/** The value of one sample, e.g. sample(text, 'splitguard_api_responses_total{status="200"}'). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (!line) throw new Error(`no sample ${series} in:\n${text}`);
  return Number(line.slice(series.length + 1));
}
const responses = (text: string, status: string) => sample(text, `splitguard_api_responses_total{status="${status}"}`);

it('answers /healthz without a key on every thread, naming the database version', async () => {
  for (const port of server.ports) {
    const r = await call(port, server.ca, 'GET', '/healthz');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.json).toEqual({ status: 'ok', database: { version: embeddedPackageVersion(), built_at: expect.any(String) } });
    expect(new Date(r.json.database.built_at).toISOString()).toBe(r.json.database.built_at);
  }
});

it('sums API responses over both threads in /metrics', async () => {
  const [p0, p1] = server.ports;
  const before = (await call(p0, server.ca, 'GET', '/metrics')).body;

  for (let i = 0; i < 3; i++) expect((await call(p0, server.ca, 'GET', '/v1/account', server.apiKey)).status).toBe(200);
  for (let i = 0; i < 2; i++) expect((await call(p1, server.ca, 'GET', '/v1/account', server.apiKey)).status).toBe(200);
  expect((await call(p1, server.ca, 'GET', '/v1/missing', server.apiKey)).status).toBe(404);
  expect((await call(p0, server.ca, 'GET', '/v1/account', 'sg_not_a_key')).status).toBe(401);
  expect((await call(p1, server.ca, 'DELETE', '/v1/account', server.apiKey)).status).toBe(405);

  for (const port of server.ports) {
    const r = await call(port, server.ca, 'GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(r.body).toContain('# TYPE splitguard_api_responses_total counter');
    expect(responses(r.body, '200') - responses(before, '200')).toBe(5);
    expect(responses(r.body, '404') - responses(before, '404')).toBe(1);
    expect(responses(r.body, '401') - responses(before, '401')).toBe(1);
    expect(responses(r.body, '405') - responses(before, '405')).toBe(1);
    expect(responses(r.body, '429')).toBe(0);
    expect(sample(r.body, 'splitguard_auth_failures_total') - sample(before, 'splitguard_auth_failures_total')).toBe(1);
    expect(sample(r.body, 'splitguard_database_ranges{family="ipv4"}')).toBeGreaterThan(100_000);
    expect(sample(r.body, 'splitguard_database_ranges{family="ipv6"}')).toBeGreaterThan(10_000);
  }
});
