// The experiments' store over a real LMDB store in a temporary directory, for
// unit tests of what reads and writes it; removed after the file's tests.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
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
