// A source on a port where nothing listens: the connection is refused,
// the refresh fails naming ECONNREFUSED, and the database that was serving
// keeps serving.
import { afterAll, beforeAll, it } from 'vitest';
import { expectFailedRefreshKeepsServing } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { closedPortLocation } from '../../helpers/sources.js';

let location: string;
let server: TestServer;
beforeAll(async () => {
  location = await closedPortLocation();
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: location } });
});
afterAll(async () => {
  await server?.close();
});

it('records the refused connection for the source and keeps the current database serving', async () => {
  await expectFailedRefreshKeepsServing(server, location, /ECONNREFUSED/);
});
