// The experiments' store over a real LMDB store in a temporary directory, for
// unit tests of what reads and writes it; removed after the file's tests. And
// what the report's tests feed it: a two-variant route, visitors' sketches.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { DAY_MS } from '../../src/days.js';
import { Hll } from '../../src/experiments/hll.js';
import { openStores } from '../../src/store/db.js';
import { Experiments } from '../../src/store/experiments-store.js';
import { LmdbBackend } from '../../src/store/lmdb-backend.js';
import type { Route } from '../../src/store/routes-store.js';

/** Route ids the tests' visits and clicks may name: the store counts them only for routes it holds (a deleted route's late flush is dropped). */
const ROUTES = 100;

export function useExperimentsStore(prefix: string): Experiments {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const stores = openStores(dir);
  stores.root.transactionSync(() => {
    for (let id = 1; id <= ROUTES; id++) stores.routes.putSync(id, { id, accountId: 1, code: `route${id}` } as Route);
  });
  afterAll(async () => {
    await stores.root.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return new Experiments(new LmdbBackend(stores));
}

/** A route of account 1 with two even variants, created on UTC day `created` and last updated on `updated`; `weightsChanged`: the day its weights last changed. */
export function twoVariantRoute(id: number, created: number, updated: number, weightsChanged?: number): Route {
  const iso = (day: number) => new Date(day * DAY_MS + 3_600_000).toISOString();
  return {
    id, accountId: 1, code: `route${id}`, name: 'r', pageA: 'https://a.example/', pageB: 'https://b.example/', splitRatio: 0.5,
    defaultGroup: 'a', interceptLevel: 'off', variants: [{ url: 'https://a.example/', weight: 1 }, { url: 'https://b.example/', weight: 1 }],
    status: 'active', createdAt: iso(created), updatedAt: iso(updated), ...(weightsChanged === undefined ? {} : { weightsChangedAt: iso(weightsChanged) }),
  };
}

/** A sketch of visitors number `from` to `to - 1`, each its own stable hash: the same numbers are the same visitors in every sketch. */
export function visitorsSketch(from: number, to: number): Hll {
  const h = new Hll();
  for (let i = from; i < to; i++) h.add(Math.imul(i + 1, 0x9e3779b1) >>> 0, Math.imul(i + 7, 0x85ebca6b) >>> 0);
  return h;
}
