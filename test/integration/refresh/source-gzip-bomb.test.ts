// A source that answers with a gzip bomb (0.6 MB that inflates to 600 MiB):
// the parser stops at its 512 MiB decompression cap, the refresh fails naming
// the cap, and the database that was serving keeps serving.
import { afterAll, beforeAll, it } from 'vitest';
import { expectFailedRefreshKeepsServing } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { type SourceServer, startSourceServer } from '../../helpers/sources.js';

let sources: SourceServer;
let server: TestServer;
beforeAll(async () => {
  sources = await startSourceServer();
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: sources.location('gzipBomb') } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

it('records the decompression cap for the source and keeps the current database serving', async () => {
  await expectFailedRefreshKeepsServing(server, sources.location('gzipBomb'), /decompresses to more than 536870912 bytes/);
});
