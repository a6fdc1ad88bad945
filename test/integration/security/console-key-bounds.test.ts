// An account's keys are bounded: at most 100 live (a new one past that is
// 400 until one is revoked), and its newest 100 revoked keys stay listed;
// older revoked ones are removed for good as others are revoked (resets
// included). Before, every key ever made stayed in the store: one console
// user made and revoked keys at 92 a second, about 720 bytes each, for good.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { request } from '../../helpers/client.js';
import { consoleSession } from '../../helpers/console-session.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ threads: 2, env: NO_RATE_LIMIT });
});
afterAll(() => server?.close());

it('keeps the newest 100 revoked keys and at most 100 live ones', async () => {
  const acct = await runCliJson<{ account_id: number; api_key: string }>(['account', 'create', '--name', 'keys'], server.dataDir);
  await runCliJson(['user', 'create', '--email', 'keys@x.y', '--password', 'longenough1', '--account', String(acct.account_id)], server.dataDir);
  const session = await consoleSession(server, 'keys@x.y', 'longenough1');
  const made: { id: string; token: string }[] = [];
  for (let i = 0; i < 120; i++) {
    const r = await session.call('POST', '/keys', { name: `churn ${i}` });
    expect(r.status, r.body).toBe(201);
    made.push({ id: r.json.id, token: r.json.api_key });
    // Every fourth one by a reset (it revokes the key it replaces), the rest revoked outright.
    if (i % 4 === 0) {
      const reset = await session.call('POST', `/keys/${r.json.id}/reset`);
      expect(reset.status).toBe(200);
      expect((await session.call('DELETE', `/keys/${reset.json.id}`)).status).toBe(200);
    } else {
      expect((await session.call('DELETE', `/keys/${r.json.id}`)).status).toBe(200);
    }
  }
  const listed = (await session.call('GET', '/keys')).json.data as { id: string; revoked_at: string | null }[];
  expect(listed.filter((k) => k.revoked_at === null)).toHaveLength(1); // the account's default key
  expect(listed.filter((k) => k.revoked_at !== null)).toHaveLength(100);
  // The oldest are gone for good, and their tokens are refused as unknown.
  expect(listed.some((k) => k.id === made[0].id)).toBe(false);
  expect(listed.some((k) => k.id === made[119].id)).toBe(true);
  expect((await request({ port: server.ports[1], ca: server.ca, path: '/v1/account', key: made[0].token })).status).toBe(401);

  for (let i = 1; i < 100; i++) expect((await session.call('POST', '/keys', { name: `live ${i}` })).status).toBe(201);
  const over = await session.call('POST', '/keys', { name: 'one too many' });
  expect(over.status).toBe(400);
  expect(over.json).toMatchObject({ code: 'invalid_parameter' });
  expect(over.json.error).toContain('100 live keys');
});
