// `cluster import` does not bring into PostgreSQL the per-day sketches that
// the nodes' retention deletes (SPLITGUARD_SKETCH_DAYS, 90 by default): a
// single node's store from before the retention, or stopped for months,
// holds them, and the import deletes them from it first, as that node's own
// start would. The recent days and the lifetime sketches come along. Before,
// every day's sketch was imported.
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { dayOf } from '../../../src/days.js';
import { openStores } from '../../../src/store/db.js';
import { runCli } from '../../helpers/cli.js';
import { useClusterStores } from '../../helpers/cluster.js';
import { visitorsSketch } from '../../helpers/experiments-store.js';
import { api } from '../../helpers/routes.js';
import { startServer, tempDataDir } from '../../helpers/server.js';

const stores = useClusterStores();
const nodeDir = tempDataDir();
afterAll(() => rmSync(nodeDir, { recursive: true, force: true }));
const DAYS = 120;
const KEPT = 90;

it.skipIf(stores.skip)('imports the recent days\' sketches and the lifetime, not the days past retention', async () => {
  const single = stores.track(await startServer());
  const created = await api(single, 'POST', '/v1/routes', {
    name: 'old', variants: ['a', 'b'].map((k) => ({ url: `https://${k}.example.com/`, weight: 1 })), intercept_level: 'off',
  });
  expect(created.status).toBe(201);
  const id = created.json.id as number;
  expect(await single.stop()).toBe(0);

  const today = dayOf(Date.now());
  const local = openStores(single.dataDir);
  const form = visitorsSketch(0, 5).serialize();
  await local.root.transaction(() => {
    for (let day = today - DAYS; day < today; day++) for (const v of [0, 1]) local.sketches.put([id, day, v], form);
    for (const v of [0, 1]) local.sketches.put([id, 0, v], form);
  });
  await local.root.close();

  const env = stores.env();
  const imported = await runCli(['cluster', 'import', '--data-dir', single.dataDir], nodeDir, env);
  expect(imported.code, imported.stderr).toBe(0);
  expect(JSON.parse(imported.stdout).sketches).toEqual({ imported: 2 + 2 * KEPT, skipped: 0 });
  const client = new pg.Client({ connectionString: env.SPLITGUARD_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT count(*) FILTER (WHERE day = 0)::int AS lifetime, count(*) FILTER (WHERE day >= $2)::int AS kept,
              count(*) FILTER (WHERE day BETWEEN 1 AND $2 - 1)::int AS old FROM sketches WHERE route_id = $1`,
      [id, today - KEPT],
    );
    expect(rows[0]).toEqual({ lifetime: 2, kept: 2 * KEPT, old: 0 });
  } finally {
    await client.end();
  }
}, 120_000);
