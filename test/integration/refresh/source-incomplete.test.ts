// A source that serves a valid file missing the well-known addresses
// (the first 1000 lines of each package file: 8.8.8.8 is line 5321): the
// build succeeds, the check refuses a database that does not resolve them,
// the refresh fails naming the address, and the database that was serving
// keeps serving.
import { afterAll, beforeAll, it } from 'vitest';
import { expectFailedRefreshKeepsServing } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { type SourceServer, startSourceServer } from '../../helpers/sources.js';

let sources: SourceServer;
let server: TestServer;
beforeAll(async () => {
  sources = await startSourceServer();
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: sources.location('incomplete') } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

it('refuses a database that misses a well-known address and keeps the current one serving', async () => {
  await expectFailedRefreshKeepsServing(server, sources.location('incomplete'), /the new database was refused: it does not resolve 8\.8\.8\.8/);
});
