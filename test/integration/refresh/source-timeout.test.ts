// A source that accepts the connection and never answers: with
// SPLITGUARD_IPDB_FETCH_TIMEOUT_MS=1000 the source fails after one second of
// silence, the refresh records the timeout, and the database that was serving
// keeps serving.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectFailedRefreshKeepsServing } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { type SourceServer, startSourceServer } from '../../helpers/sources.js';

let sources: SourceServer;
let server: TestServer;
beforeAll(async () => {
  sources = await startSourceServer();
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: sources.location('hang'), SPLITGUARD_IPDB_FETCH_TIMEOUT_MS: '1000' } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

it('records the silence timeout for the source and keeps the current database serving', async () => {
  const record = await expectFailedRefreshKeepsServing(server, sources.location('hang'), /no data for 1000 ms/);
  // The silence limit decided, not the 10 s connect or 300 s total limits.
  expect(record.nodes[0].ms).toBeGreaterThanOrEqual(1000);
  expect(record.nodes[0].ms).toBeLessThan(5000);
  expect(sources.requests.filter((r) => r.mode === 'hang')).toHaveLength(2);
});
