// Two accounts trigger a refresh at the same moment on different threads:
// exactly one answer says "started" and the other "running" with the same
// start time, and one refresh runs (the slot is claimed atomically in shared
// memory before the main thread hears of it).
import { expect, it } from 'vitest';
import { newAccount, refreshFinished, serverWithValidSource, triggerRefresh } from '../../helpers/refresh.js';

const ctx = serverWithValidSource({ threads: 2 });

it('one of two simultaneous triggers starts the refresh, the other joins it', async () => {
  const other = await newAccount(ctx.server, 'second');
  const [a, b] = await Promise.all([triggerRefresh(ctx.server, ctx.server.apiKey, 0), triggerRefresh(ctx.server, other.api_key, 1)]);
  expect([a.status, b.status]).toEqual([202, 202]);
  expect([a.json.status, b.json.status].sort()).toEqual(['running', 'started']);
  expect(a.json.started_at).toBe(b.json.started_at);

  await refreshFinished(ctx.server, null);
  expect(ctx.server.logs().filter((l) => l.event === 'ipdb_refresh_started')).toHaveLength(1);
}, 120_000);
