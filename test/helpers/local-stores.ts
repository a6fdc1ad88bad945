// A local store (the LMDB of a data directory) in a temporary directory, for
// unit tests of what reads and writes it: opened before the file's tests,
// closed and removed after them.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openStores, type Stores } from '../../src/store/db.js';

export function useLocalStores(prefix: string): { readonly stores: Stores } {
  let dir: string | undefined;
  let stores: Stores | undefined;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    stores = openStores(dir);
  });
  afterAll(async () => {
    await stores?.root.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get stores() {
      return stores!;
    },
  };
}
