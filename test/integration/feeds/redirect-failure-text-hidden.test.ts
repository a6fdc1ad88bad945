// A download that fails after a redirect names the failure in words the
// publisher chose (the redirect's host name in ENOTFOUND, a certificate's
// names): the whole failure is quoted, so a tenant's GET /v1/ip/database
// reads “…” where an admin's reads it. Before, the error's own text went
// out unquoted, the host name with it, to every tenant.
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listenLoopback, type Loopback } from '../../helpers/loopback.js';
import { databaseStatus, newAccount, refreshNow } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let publisher: Loopback;
let server: TestServer;
beforeAll(async () => {
  publisher = await listenLoopback(http.createServer((_req, res) => res.writeHead(302, { Location: 'http://publisher-secret-3f9a.invalid/list' }).end()));
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: 'package:', SPLITGUARD_FEEDS: 'tor', SPLITGUARD_FEED_SOURCES: `tor=${publisher.base}/tor` } });
});
afterAll(async () => {
  await server?.close();
  await publisher?.close();
});

const torError = async (key: string) => (await databaseStatus(server, 0, key)).feeds.find((f) => f.name === 'tor')!.last_error ?? '';

it('hides the failure after a redirect from tenants, and shows it to admins', async () => {
  const tenant = await newAccount(server, 'tenant');
  await refreshNow(server, tenant.api_key);
  const seen = await torError(tenant.api_key);
  expect(seen).toMatch(/redirect 1 \(from .*\/tor\) is to “…”: “…”/);
  expect(seen).not.toContain('publisher-secret');
  expect(await torError(server.apiKey)).toMatch(/: “ENOTFOUND \(getaddrinfo ENOTFOUND publisher-secret-3f9a\.invalid\)”/);
}, 60_000);
