// A source that declares the whole file's Content-Length, sends half of it
// and closes the connection: the refresh fails naming the early close, and the
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
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: sources.location('truncated') } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

it('records the truncated download for the source and keeps the current database serving', async () => {
  await expectFailedRefreshKeepsServing(server, sources.location('truncated'), /the connection closed after [0-9]+ bytes|truncated: received [0-9]+ of [0-9]+ bytes/);
});
