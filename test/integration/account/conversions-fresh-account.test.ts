// GET /v1/account shows how close the account is to its conversion quota: a
// fresh account stores none, against the server's default quota
// (SPLITGUARD_CONVERSION_QUOTA unset: 10,000,000), and the answer validates
// against docs/openapi.yaml. Before, the account showed neither: a tenant
// found its quota only by a 403.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { expectReply } from '../../helpers/openapi.js';
import { api } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

it('shows 0 conversions stored and the default conversion quota', async () => {
  const fresh: { account_id: number; api_key: string } = await runCliJson(['account', 'create', '--name', 'fresh'], server.dataDir);
  const r = await api(server, 'GET', '/v1/account', undefined, { key: fresh.api_key });
  expectReply(r, '/v1/account', 'GET', 200);
  expect(r.json).toMatchObject({ id: fresh.account_id, conversions_stored: 0, conversion_quota: 10_000_000 });
});
