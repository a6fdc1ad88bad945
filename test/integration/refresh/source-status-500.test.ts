// A source that answers 500 Internal Server Error: the refresh fails,
// GET /v1/ip/database records the source as failed with "HTTP 500", and the
// database that was serving keeps serving.
import { afterAll, beforeAll, it } from 'vitest';
import { expectFailedRefreshKeepsServing } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { type SourceServer, startSourceServer } from '../../helpers/sources.js';

let sources: SourceServer;
let server: TestServer;
beforeAll(async () => {
  sources = await startSourceServer();
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: sources.location('status500') } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

it('records HTTP 500 for the source and keeps the current database serving', async () => {
  await expectFailedRefreshKeepsServing(server, sources.location('status500'), /HTTP 500/);
});
