// bench:clicks: the click pipeline alone. One thread records clicks as fast
// as it can (the redirect's per-visit work: a counters lookup and increments)
// while the once-a-second flush writes them to LMDB, for SECONDS; then the
// stored totals must equal the recorded count exactly. Two shapes: 1,000
// routes, and 100,000 routes (every flush writes 100,000 records).
// Figure (issue 8): sustained clicks/s >= 3x the redirect capacity (from
// bench/results/redirect.json of the same suite run when present).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStores } from '../dist/store/db.js';
import { LmdbBackend } from '../dist/store/lmdb-backend.js';
import { Stats } from '../dist/store/stats-store.js';
import { ClickRecorder, FLUSH_MS } from '../dist/redirect/clicks.js';
import { resultsDir, round, summary, table, writeResult, xorshift } from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const ROUNDS = Number(process.env.BENCH_PAIRS || 3);

async function run(routes) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-bench-clicks-'));
  const stores = openStores(dir);
  const clicks = new ClickRecorder(new Stats(new LmdbBackend(stores)));
  const timer = setInterval(() => void clicks.flush(), FLUSH_MS);
  const rand = xorshift(routes);
  let recorded = 0;
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  while (performance.now() < end) {
    // A slice of work, then yield so the flush timer runs (as the event loop does between requests).
    const now = Date.now();
    for (let i = 0; i < 20_000; i++) {
      const c = clicks.counters(1 + (rand() % routes), now);
      c.clicks++;
      c.a++;
    }
    recorded += 20_000;
    await new Promise((r) => setImmediate(r));
  }
  clearInterval(timer);
  await clicks.flush();
  const seconds = (performance.now() - t0) / 1000;
  let stored = 0;
  for (const { value } of stores.stats.getRange()) stored += value.clicks;
  await stores.root.close();
  rmSync(dir, { recursive: true, force: true });
  if (stored !== recorded) throw new Error(`lost clicks: recorded ${recorded}, stored ${stored}`);
  return { clicksPerSecond: Math.round(recorded / seconds), recorded, stored };
}

const shapes = { '1,000 routes': 1000, '100,000 routes': 100_000 };
const samples = Object.fromEntries(Object.keys(shapes).map((k) => [k, []]));
for (let r = 0; r < ROUNDS; r++) for (const [name, n] of Object.entries(shapes)) samples[name].push(await run(n));

const redirectFile = path.join(resultsDir, 'redirect.json');
const redirectRps = existsSync(redirectFile) ? JSON.parse(readFileSync(redirectFile, 'utf8')).arms?.splitguard?.rps?.median : null;
const perShape = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summary(v.map((s) => s.clicksPerSecond))]));
const worst = Math.min(...Object.values(perShape).map((s) => s.median));
const result = {
  setup: { seconds: SECONDS, rounds: ROUNDS },
  clicksPerSecond: perShape,
  lost: 0,
  redirectCapacityRps: redirectRps,
  goal: { ratioToRedirectCapacity: { goal: '>= 3', value: redirectRps ? round(worst / redirectRps) : null } },
};
const file = writeResult('clicks', result);
console.log(table(['shape', 'clicks/s (median)', 'min', 'max'], Object.entries(perShape).map(([k, s]) => [k, s.median, s.min, s.max])));
console.log(`\nno click lost; worst shape / redirect capacity (${redirectRps ?? 'not measured'} req/s): ${result.goal.ratioToRedirectCapacity.value ?? 'n/a'} (goal >= 3)\nresults: ${file}`);
