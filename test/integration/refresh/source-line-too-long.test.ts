// A source whose one line is 140,000,000 commas (about 140 KB gzipped, under
// every size cap): the line is counted malformed without being split, the
// refresh fails naming it, and the server keeps serving. Before, splitting it
// was a V8 fatal error that ended the whole process, every server thread with
// it, and the next scheduled refresh did it again (the files review of
// 2026-11-27).
import { afterAll, beforeAll, it } from 'vitest';
import { expectFailedRefreshKeepsServing } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { type SourceServer, startSourceServer } from '../../helpers/sources.js';

let sources: SourceServer;
let server: TestServer;
beforeAll(async () => {
  sources = await startSourceServer();
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: sources.location('longLine') } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

it('refuses the line without splitting it and keeps the current database serving', async () => {
  await expectFailedRefreshKeepsServing(server, sources.location('longLine'), /a line of 140000000 characters \(at most 4096\)/);
}, 120_000);
