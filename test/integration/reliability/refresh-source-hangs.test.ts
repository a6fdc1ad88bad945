// A database source that accepts the connection and never answers. The
// refresh runs off the serving threads: redirects are answered all along, on
// every thread, without slowing down; the refresh gives up after the silence
// timeout (SPLITGUARD_IPDB_FETCH_TIMEOUT_MS, here 2 s), records the source's
// error, and the database that was serving keeps serving, unchanged.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { databaseStatus, identity, triggerRefresh } from '../../helpers/refresh.js';
import { createRoute, NO_RATE_LIMIT, PAGE_A, RedirectClient } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { type SourceServer, startSourceServer } from '../../helpers/sources.js';

const TIMEOUT_MS = 2000;
let sources: SourceServer;
let server: TestServer;
beforeAll(async () => {
  sources = await startSourceServer();
  server = await startServer({
    threads: 2,
    env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: sources.location('hang'), SPLITGUARD_IPDB_FETCH_TIMEOUT_MS: String(TIMEOUT_MS) },
  });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

it('serves redirects throughout a refresh whose source hangs, and the refresh gives up after its timeout', async () => {
  const route = await createRoute(server, { split_ratio: 1 });
  const before = await databaseStatus(server);
  const visits = new RedirectClient(server);

  const started = performance.now();
  const r = await triggerRefresh(server, server.apiKey);
  expect(r.status).toBe(202);
  expect(r.json.status).toBe('started');

  const latencies: number[] = [];
  let status = await databaseStatus(server);
  while (status.refresh_running || status.last_refresh === null) {
    for (let thread = 0; thread < 2; thread++) {
      const t0 = performance.now();
      const v = await visits.visit(route.code, { thread });
      latencies.push(performance.now() - t0);
      expect(v.status).toBe(302);
      expect(v.location).toBe(PAGE_A);
    }
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 15_000);
    status = await databaseStatus(server);
  }
  const tookMs = performance.now() - started;
  visits.close();

  // Redirects were served during the whole refresh, at their usual speed.
  expect(latencies.length).toBeGreaterThan(20);
  latencies.sort((a, b) => a - b);
  expect(latencies[Math.floor(latencies.length * 0.99)]).toBeLessThan(250);

  // The refresh waited for the silence timeout, then gave up on the source.
  expect(tookMs).toBeGreaterThanOrEqual(TIMEOUT_MS);
  const record = status.last_refresh!;
  expect(record.outcome).toBe('failed');
  expect(record.nodes).toHaveLength(1);
  expect(record.nodes[0]).toMatchObject({ outcome: 'failed' });
  expect(record.nodes[0].error).toMatch(new RegExp(`no data for ${TIMEOUT_MS} ms`));
  expect(sources.requests.filter((q) => q.mode === 'hang').length).toBeGreaterThan(0);
  expect(identity(status)).toEqual(identity(before));
  expect(status.available).toBe(true);
});
