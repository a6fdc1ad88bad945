// The experiments' store over a real LMDB store in a temporary directory, for
// unit tests of what reads and writes it; removed after the file's tests.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { openStores } from '../../src/store/db.js';
import { Experiments } from '../../src/store/experiments-store.js';
import { LmdbBackend } from '../../src/store/lmdb-backend.js';

export function useExperimentsStore(prefix: string): Experiments {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const stores = openStores(dir);
  afterAll(async () => {
    await stores.root.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return new Experiments(new LmdbBackend(stores));
}
