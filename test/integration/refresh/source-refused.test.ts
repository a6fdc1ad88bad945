// A source node on a port where nothing listens: the connection is refused,
// the refresh fails naming ECONNREFUSED, and the database that was serving
// keeps serving.
import { afterAll, beforeAll, it } from 'vitest';
import { expectFailedRefreshKeepsServing, NO_RATE_LIMIT } from '../../helpers/refresh.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { closedPortNode } from '../../helpers/sources.js';

let node: string;
let server: TestServer;
beforeAll(async () => {
  node = await closedPortNode();
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: node } });
});
afterAll(async () => {
  await server?.close();
});

it('records the refused connection for the node and keeps the current database serving', async () => {
  await expectFailedRefreshKeepsServing(server, node, /ECONNREFUSED/);
});
