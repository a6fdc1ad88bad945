// POST /v1/ip/update: the first trigger starts a refresh (202 started); a
// trigger by another account while it runs joins it (202 running, the same
// start time, no second refresh); the same account again within the hour gets
// 429 refresh_too_soon with Retry-After. The refresh records who started it.
import { expect, it } from 'vitest';
import { limits } from '../../helpers/client.js';
import { databaseStatus, newAccount, refreshFinished, serverWithValidSource, triggerRefresh } from '../../helpers/refresh.js';
import { waitUntil } from '../../helpers/routes.js';

const HOUR = 3_600_000;

const ctx = serverWithValidSource({ threads: 2 });

it('starts once, lets other accounts join, and refuses the same account within the hour', async () => {
  const other = await newAccount(ctx.server, 'joins');

  const t0 = Date.now();
  const first = await triggerRefresh(ctx.server, ctx.server.apiKey, 0);
  expect(first.status, first.body).toBe(202);
  expect(first.json.status).toBe('started');
  const started = Date.parse(first.json.started_at);
  expect(started).toBeGreaterThanOrEqual(t0 - 1000);
  expect(Date.parse(first.json.next_allowed_at)).toBe(started + HOUR);

  const running = await waitUntil(() => databaseStatus(ctx.server), (s) => s.refresh_running, 5000);
  expect(running.value.refresh_running).toBe(true);

  // Another account, through the other thread: joins the running refresh.
  const joined = await triggerRefresh(ctx.server, other.api_key, 1);
  expect(joined.status, joined.body).toBe(202);
  expect(joined.json.status).toBe('running');

  // The first account again: too soon.
  const again = await triggerRefresh(ctx.server, ctx.server.apiKey, 1);
  expect(again.status).toBe(429);
  expect(again.json).toMatchObject({ code: 'refresh_too_soon', field: null });
  expect(again.json.error).toContain(first.json.next_allowed_at);
  const retry = limits(again).retryAfter;
  expect(retry).toBeGreaterThan(3500);
  expect(retry).toBeLessThanOrEqual(3600);

  const done = await refreshFinished(ctx.server, null);
  expect(done.last_refresh).toMatchObject({ trigger: `api (account ${ctx.server.accountId})`, outcome: 'updated' });
  // The start time the joining account was told is the refresh that ran.
  expect(Math.abs(Date.parse(joined.json.started_at) - Date.parse(done.last_refresh!.started_at))).toBeLessThan(1000);
  // One refresh ran: one download of each file.
  expect(ctx.server.logs().filter((l) => l.event === 'ipdb_refresh_started')).toHaveLength(1);
  expect(ctx.sources.requests.map((r) => r.status)).toEqual([200, 200]);

  // Joining used the other account's allowance too.
  const joinedAgain = await triggerRefresh(ctx.server, other.api_key, 0);
  expect(joinedAgain.status).toBe(429);
  expect(joinedAgain.json.code).toBe('refresh_too_soon');
}, 120_000);
