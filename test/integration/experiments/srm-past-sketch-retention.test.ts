// The route detail's lifetime sample-ratio check after a weight change
// counts only days whose sketches are kept (SPLITGUARD_SKETCH_DAYS, 90 by
// default), at most the last 28 with visitors (docs/api.md). Both routes
// here had their weights changed 200 days ago and 20 days of a broken split
// (3 visitors on a for each on b) 150 days ago, past retention: their clicks
// stay, their sketches are deleted at start. The route visited evenly in
// the last 10 days has its check on those days (no alarm); the route idle
// since has none (p_value null). Before, the last 28 days with visitors
// included the old ones, whose sketches were kept, and both alarmed.
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { DAY_MS, dayOf } from '../../../src/days.js';
import { openStores } from '../../../src/store/db.js';
import { visitorsSketch } from '../../helpers/experiments-store.js';
import { api, waitUntil } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const dataDir = tempDataDir();
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('checks the sample ratio on the kept days only, and gives no verdict without any', async () => {
  server = await startServer({ dataDir });
  const ids: number[] = [];
  for (const name of ['active', 'idle']) {
    const created = await api(server, 'POST', '/v1/routes', {
      name, variants: ['a', 'b'].map((k) => ({ url: `https://${k}.example.com/`, weight: 1 })), intercept_level: 'off',
    });
    expect(created.status).toBe(201);
    ids.push(created.json.id as number);
  }
  await server.stop();

  const today = dayOf(Date.now());
  const iso = (day: number) => new Date(day * DAY_MS + 3_600_000).toISOString();
  const stores = openStores(dataDir);
  await stores.root.transaction(() => {
    const visits = (id: number, day: number, a: number, b: number) => {
      const base = day * 10_000;
      stores.variantDays.put([id, day], { clicks: [a, b] });
      stores.sketches.put([id, day, 0], visitorsSketch(base, base + a).serialize());
      stores.sketches.put([id, day, 1], visitorsSketch(base + 5000, base + 5000 + b).serialize());
    };
    for (const id of ids) {
      stores.routes.put(id, { ...stores.routes.get(id)!, createdAt: iso(today - 300), weightsChangedAt: iso(today - 200) });
      for (let day = today - 150; day < today - 130; day++) visits(id, day, 300, 100);
    }
    for (let day = today - 10; day < today; day++) visits(ids[0], day, 100, 100);
  });
  await stores.root.close();

  server = await startServer({ dataDir });
  await waitUntil(() => server!.logs().find((l) => l.event === 'sketches_pruned'), (l) => l !== undefined, 10_000);
  const lifetimeOf = async (id: number) => (await api(server!, 'GET', `/v1/routes/${id}`)).json.experiment.lifetime;

  const active = await lifetimeOf(ids[0]);
  expect(active.variants.map((v: { clicks: number }) => v.clicks)).toEqual([20 * 300 + 1000, 20 * 100 + 1000]);
  expect(active.srm.p_value).not.toBeNull();
  expect(active.srm.p_value).toBeGreaterThan(0.001);
  expect(active.srm.alert).toBe(false);

  const idle = await lifetimeOf(ids[1]);
  expect(idle.variants.map((v: { clicks: number }) => v.clicks)).toEqual([20 * 300, 20 * 100]);
  expect(idle.srm).toEqual({ p_value: null, alert: false });
}, 120_000);
