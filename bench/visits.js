// bench:visits: a thread's experiment visits over many routes, the shape of
// the cluster attack review of 2026-11-29 (finding 111): one tenant's 1,000
// routes of 8 variants visited round robin by new visitors. Per flush, the
// time the flush holds its thread (taking what changed, and merging it into
// the day's and the lifetime's sketches in LMDB, both synchronous), and the
// memory the thread's sketches keep. Two arms in the same run:
//   sparse:  what ships (experiments/visits.ts over VisitorSketch, and the
//            store's mergeForms);
//   dense:   the representation before finding 111, rebuilt here from the
//            same Hll class as the baseline: one 32 KiB sketch per (route,
//            day, variant), serialised whole when it grew, merged through
//            dense sketches.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Hll } from '../dist/experiments/hll.js';
import { VisitRecorder } from '../dist/experiments/visits.js';
import { openStores } from '../dist/store/db.js';
import { Experiments } from '../dist/store/experiments-store.js';
import { LmdbBackend } from '../dist/store/lmdb-backend.js';
import { machine, round, summary, table, writeResult, xorshift } from './lib.js';

const ROUTES = 1000;
const VARIANTS = 8;
const FLUSHES = Number(process.env.BENCH_FLUSHES || 10);
const VISITS = Number(process.env.BENCH_VISITS || 20_000);
const DAY = 20_600;

/** The dense baseline: the recorder and the store's merge as they were. */
class DenseRecorder {
  #pending = new Map();
  #stores;
  constructor(stores) {
    this.#stores = stores;
  }
  record(routeId, day, variant, hi, lo) {
    const key = routeId * 65536 + day;
    let p = this.#pending.get(key);
    if (!p) this.#pending.set(key, (p = { routeId, day, clicks: new Array(8).fill(0), sketches: new Array(8).fill(null), dirty: 0 }));
    p.clicks[variant]++;
    const h = (p.sketches[variant] ??= new Hll());
    if (h.add(hi, lo)) p.dirty |= 1 << variant;
  }
  async flush() {
    const batch = [];
    for (const p of this.#pending.values()) {
      batch.push({ routeId: p.routeId, day: p.day, clicks: p.clicks, sketches: p.sketches.map((h, v) => (h && p.dirty & (1 << v) ? h.serialize() : null)) });
      p.clicks = new Array(8).fill(0);
      p.dirty = 0;
    }
    const { sketches } = this.#stores;
    const merge = (key, add) => {
      const stored = sketches.get(key);
      if (stored) add.merge(Hll.deserialize(stored));
      sketches.put(key, add.serialize());
    };
    await this.#stores.root.transaction(() => {
      for (const v of batch) {
        v.sketches.forEach((bytes, variant) => {
          if (!bytes) return;
          merge([v.routeId, v.day, variant], Hll.deserialize(bytes));
          merge([v.routeId, 0, variant], Hll.deserialize(bytes));
        });
      }
    });
  }
}

const alive = [];

function openStore() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-bench-visits-'));
  const stores = openStores(dir);
  stores.root.transactionSync(() => {
    for (let id = 1; id <= ROUTES; id++) stores.routes.putSync(id, { id, accountId: 1, code: `r${id}` });
  });
  return { dir, stores };
}

async function run(arm) {
  const { dir, stores } = openStore();
  const recorder = arm === 'sparse' ? new VisitRecorder(new Experiments(new LmdbBackend(stores))) : new DenseRecorder(stores);
  const rand = xorshift(7);
  const settled = () => {
    globalThis.gc();
    globalThis.gc();
    return process.memoryUsage().arrayBuffers;
  };
  const before = settled();
  const flushMs = [];
  let n = 0;
  for (let f = 0; f < FLUSHES; f++) {
    for (let i = 0; i < VISITS; i++, n++) recorder.record(1 + (n % ROUTES), DAY, (n >>> 10) % VARIANTS, rand(), rand());
    // The flush's synchronous parts hold the thread: the take, and lmdb-js runs the transaction's callback on it.
    const t0 = performance.now();
    await recorder.flush();
    flushMs.push(performance.now() - t0);
  }
  // The recorder is still in use (a thread's lives as long as the thread): measured while referenced.
  alive.push(recorder);
  const keptMiB = (settled() - before) / 2 ** 20;
  alive.length = 0;
  await stores.root.close();
  rmSync(dir, { recursive: true, force: true });
  return { flushMs: summary(flushMs), keptMiB: round(keptMiB, 1) };
}

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc (npm run bench:visits)');
const sparse = await run('sparse');
const dense = await run('dense');
const arms = { dense, sparse };
const result = { machine: machine(), setup: { routes: ROUTES, variants: VARIANTS, visitsPerFlush: VISITS, flushes: FLUSHES }, arms };
const file = writeResult('visits', result);
console.log(table(['arm', 'flush ms (median)', 'max', 'thread sketch memory MiB'], Object.entries(arms).map(([k, a]) => [k, a.flushMs.median, a.flushMs.max, a.keptMiB])));
console.log(`\nresults: ${file}`);
