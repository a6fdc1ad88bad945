// A source that answers 200 with random bytes: the parser refuses it (more
// than 1% of its lines malformed), the refresh fails naming that, and the
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
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: sources.location('garbage') } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

it('records the malformed download for the source and keeps the current database serving', async () => {
  await expectFailedRefreshKeepsServing(server, sources.location('garbage'), /asn-ipv4\.csv: [0-9]+ of [0-9]+ lines are malformed/);
});
