// An API trigger that arrives while a feeds-only run is under way (here the
// rebuild a start makes when SPLITGUARD_FEEDS changed) gets a full refresh of
// its own once that run ends: it is not folded into the feeds-only run, which
// would leave the ASN data unrefreshed while answering "started".
import { afterAll, beforeAll, expect, it } from 'vitest';
import { refreshFinished, triggerRefresh } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_FEEDS: 'tor', SPLITGUARD_IPDB_SOURCES: 'package:' } });
});
afterAll(async () => {
  await server?.close();
});

const event = (name: string, scope: string) => server.logs().find((l) => l.event === name && l.scope === scope);

it('runs the triggered full refresh after the feeds-only run', async () => {
  expect(event('ipdb_refresh_started', 'refold'), 'the start began no feeds-only run').toBeDefined();
  const r = await triggerRefresh(server, server.apiKey);
  expect(event('ipdb_refresh_finished', 'refold'), 'the feeds-only run ended before the trigger: nothing tested').toBeUndefined();
  expect(r.status, r.body).toBe(202);
  expect(r.json.status).toBe('started');

  const after = await refreshFinished(server, null);
  expect(after.last_refresh).toMatchObject({ trigger: `api (account ${server.accountId})`, nodes: [{ source: expect.stringMatching(/^package /) }] });
  const order = server.logs().filter((l) => l.event === 'ipdb_refresh_started').map((l) => l.scope);
  expect(order).toEqual(['refold', 'all']);
});
