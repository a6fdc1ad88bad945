// bench:report: what one route detail's experiment object costs the server
// thread that computes it (src/experiments/report.ts), on the largest route
// allowed: 8 variants, 20 goals and the default goal "conversion".
//
// Method: ROUTES such routes in one LMDB store, each with its own visitors
// (about 1,000 a variant over the 7-day window, so every route's counts
// differ) and conversions on every goal. "first" is the first report of
// each route in turn (nothing computed for these counts yet: what a route
// costs after a click flush or a conversion changes its counts), "again" the
// next ROUNDS reports of one route with nothing changed (the console's
// poll, a burst of GETs). Each figure is the median over its reports, with
// min and max. BENCH_DIST=<dir> runs the same against another build's dist/
// (the code before a change, in the same run as the current one).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { round, summary, table, writeResult, xorshift } from './lib.js';

const ROUTES = Number(process.env.BENCH_ROUTES || 11);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 21);
const dist = path.resolve(process.env.BENCH_DIST || path.join(import.meta.dirname, '../dist'));
const load = (file) => import(pathToFileURL(path.join(dist, file)).href);
const { openStores } = await load('store/db.js');
const { Experiments } = await load('store/experiments-store.js');
const { LmdbBackend } = await load('store/lmdb-backend.js');
const { Hll } = await load('experiments/hll.js');
const { experimentReport } = await load('experiments/report.js');
const { DAY_MS } = await load('days.js');

const TODAY = 20_415;
const VARIANTS = 8;
const GOALS = 20;
const rand = xorshift(0x7e90);
const iso = (day) => new Date(day * DAY_MS + 3_600_000).toISOString();

const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-bench-report-'));
const stores = openStores(dir);
const experiments = new Experiments(new LmdbBackend(stores));
const routes = [];
for (let id = 1; id <= ROUTES; id++) {
  const route = {
    id, accountId: 1, code: `bench${String(id).padStart(3, '0')}`, name: 'eight', pageA: 'https://a.example/', pageB: 'https://b.example/', splitRatio: 0.5,
    defaultGroup: 'a', interceptLevel: 'off', variants: Array.from({ length: VARIANTS }, (_, v) => ({ url: `https://v${v}.example/`, weight: 1 })),
    status: 'active', createdAt: iso(TODAY - 30), updatedAt: iso(TODAY - 30),
  };
  stores.root.transactionSync(() => stores.routes.putSync(id, route));
  routes.push(route);
  // Seven days of visitors, about 150 new ones a variant a day (the store merges each day's into the lifetime sketch).
  const conversions = [];
  for (let day = TODAY - 6; day <= TODAY; day++) {
    const sketches = Array.from({ length: VARIANTS }, () => new Hll());
    for (let v = 0; v < VARIANTS; v++) {
      const n = 140 + (rand() % 20);
      for (let i = 0; i < n; i++) {
        const hi = rand();
        const lo = rand();
        sketches[v].add(hi, lo);
        // Each goal converts 2-9 % of a variant's visitors, a different share per goal and variant.
        for (let g = 0; g < GOALS; g++) {
          if (rand() % 1000 < 20 + 10 * ((g + v) % 8)) {
            conversions.push({ routeId: id, accountId: 1, goal: `goal-${g}`, visitor: `${hi.toString(16).padStart(8, '0')}${lo.toString(16).padStart(8, '0')}`, variant: v, day, at: day * DAY_MS, value: null });
          }
        }
      }
    }
    await experiments.addVisits([{ routeId: id, day, clicks: sketches.map(() => 150), sketches: sketches.map((s) => s.serialize()) }]);
  }
  for (let i = 0; i < conversions.length; i += 100) await experiments.addConversions(conversions.slice(i, i + 100));
}

const time = async (route) => {
  const t = performance.now();
  const report = await experimentReport(experiments, route, TODAY);
  const ms = performance.now() - t;
  if (report.goals.length !== GOALS + 1) throw new Error(`${report.goals.length} goals`);
  return ms;
};
// Warm up the code on a route of its own, then measure.
for (let i = 0; i < 5; i++) await time(routes[0]);
const first = [];
for (const route of routes.slice(1)) first.push(await time(route));
const again = [];
for (let i = 0; i < ROUNDS; i++) again.push(await time(routes[1]));

const result = { dist, routes: ROUTES - 1, rounds: ROUNDS, firstMs: summary(first), againMs: summary(again) };
console.log(table(['report (8 variants, 21 goals)', 'median ms', 'min', 'max'], [
  ['first for its counts', round(result.firstMs.median), round(result.firstMs.min), round(result.firstMs.max)],
  ['again, nothing changed', round(result.againMs.median), round(result.againMs.min), round(result.againMs.max)],
]));
if (!process.env.BENCH_DIST) console.log(`written ${writeResult('report', result)}`);
await stores.root.close();
rmSync(dir, { recursive: true, force: true });
