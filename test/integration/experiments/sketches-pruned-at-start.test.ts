// A route's per-day unique-visitor sketches older than SPLITGUARD_SKETCH_DAYS
// (90 by default) are deleted when the server starts (its first thread, then
// daily): anyone who knows a link can make each of them a dense 32 KiB, up
// to 8 a day, and before they were kept for good. The recent days' sketches,
// the lifetime sketch and the clicks stay, so the route detail's window and
// lifetime figures are what they were. The store is seeded with 120 days
// while the server is stopped; a first start that keeps ten years shows the
// figures, a second with the default prunes. Before, the old days stayed and
// no prune was logged.
import path from 'node:path';
import { open } from 'lmdb';
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { dayOf } from '../../../src/days.js';
import { mergeForms } from '../../../src/experiments/hll.js';
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

const DAYS = 120;
const KEPT = 90;

/** The route's sketch keys per kind of day, read by a separate reader of the store. */
function sketchKeys(routeId: number, today: number): { lifetime: number; kept: number; old: number } {
  const env = open({ path: path.join(dataDir, 'db'), maxDbs: 32, readOnly: true });
  try {
    const db = env.openDB({ name: 'sketches', encoding: 'binary' });
    const count = (from: number, to: number) => db.getKeysCount({ start: [routeId, from], end: [routeId, to] });
    return { lifetime: count(0, 1), kept: count(today - KEPT, today + 1), old: count(1, today - KEPT) };
  } finally {
    env.close();
  }
}

const experimentOf = async (s: TestServer, id: number) => {
  const r = await api(s, 'GET', `/v1/routes/${id}`);
  expect(r.status).toBe(200);
  const e = r.json.experiment;
  const figures = (p: { variants: { visitors: number; clicks: number }[] }) => p.variants.map((v) => [v.visitors, v.clicks]);
  return { window: figures(e), lifetime: figures(e.lifetime) };
};

it('deletes the per-day sketches past retention at start, and keeps the recent days and the lifetime', async () => {
  server = await startServer({ dataDir, env: { SPLITGUARD_SKETCH_DAYS: '3650' } });
  const created = await api(server, 'POST', '/v1/routes', {
    name: 'old', variants: ['a', 'b'].map((k) => ({ url: `https://${k}.example.com/`, weight: 1 })), intercept_level: 'off',
  });
  expect(created.status).toBe(201);
  const id = created.json.id as number;
  await server.stop();

  // 120 days before today, 30 visitors a day on a and 20 on b, each day its own.
  const today = dayOf(Date.now());
  const stores = openStores(dataDir);
  await stores.root.transaction(() => {
    const lifetime: (Uint8Array | undefined)[] = [undefined, undefined];
    for (let day = today - DAYS; day < today; day++) {
      const base = (day - today + DAYS) * 1000;
      const forms = [visitorsSketch(base, base + 30).serialize(), visitorsSketch(base + 500, base + 520).serialize()];
      stores.variantDays.put([id, day], { clicks: [30, 20] });
      forms.forEach((form, v) => {
        stores.sketches.put([id, day, v], form);
        lifetime[v] = mergeForms(lifetime[v], form);
      });
    }
    lifetime.forEach((form, v) => stores.sketches.put([id, 0, v], form!));
  });
  await stores.root.close();
  expect(sketchKeys(id, today)).toEqual({ lifetime: 2, kept: 2 * KEPT, old: 2 * (DAYS - KEPT) });

  // Ten years kept: nothing goes; the figures as seeded.
  server = await startServer({ dataDir, env: { SPLITGUARD_SKETCH_DAYS: '3650' } });
  await waitUntil(() => server!.logs().find((l) => l.event === 'sketches_pruned'), (l) => l !== undefined, 10_000);
  const before = await experimentOf(server, id);
  expect(before.window.map(([, clicks]) => clicks)).toEqual([7 * 30 - 30, 7 * 20 - 20]); // today has no visits
  expect(before.lifetime.map(([, clicks]) => clicks)).toEqual([DAYS * 30, DAYS * 20]);
  await server.stop();
  expect(sketchKeys(id, today).old).toBe(2 * (DAYS - KEPT));

  // The default, 90 days: the 30 older days' sketches go at start.
  server = await startServer({ dataDir });
  const { value: pruned } = await waitUntil(() => server!.logs().find((l) => l.event === 'sketches_pruned'), (l) => l !== undefined, 10_000);
  expect(pruned).toMatchObject({ removed: 2 * (DAYS - KEPT), days: KEPT });
  expect(sketchKeys(id, today)).toEqual({ lifetime: 2, kept: 2 * KEPT, old: 0 });
  expect(await experimentOf(server, id)).toEqual(before);
}, 120_000);
