// A source that serves a valid but far too small file (the first 10,000
// IPv4 and 50,000 IPv6 lines of the package: it resolves the well-known
// addresses): the build succeeds, the check against the current database
// refuses it (under half its ranges), the refresh fails naming the check, and
// the database that was serving keeps serving.
import { afterAll, beforeAll, it } from 'vitest';
import { expectFailedRefreshKeepsServing } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { type SourceServer, startSourceServer } from '../../helpers/sources.js';

let sources: SourceServer;
let server: TestServer;
beforeAll(async () => {
  sources = await startSourceServer();
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: sources.location('tooSmall') } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

it('refuses a database with under half the current ranges and keeps the current one serving', async () => {
  await expectFailedRefreshKeepsServing(server, sources.location('tooSmall'), /the new database was refused: it has [0-9]+ v4 ranges, under 50% of the serving database's [0-9]+/);
});
