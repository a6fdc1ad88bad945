// For a file that drives the PostgreSQL back end directly (no server): a
// private PostgreSQL, migrated, and a local LMDB store in a temporary
// directory, started before the file's tests and removed after them;
// `backend()` makes a back end over a pool of its own each call (as a
// restarted node would have). `skip` names what is missing.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openStores, type Stores } from '../../src/store/db.js';
import { PgBackend } from '../../src/store/pg/backend.js';
import { createPool, type Pool } from '../../src/store/pg/client.js';
import { migrate } from '../../src/store/pg/migrations.js';
import { Replica } from '../../src/store/pg/replica.js';
import { postgresBin, startPostgres, type TestPostgres } from './postgres.js';

export interface PgBackendFixture {
  /** Why the file cannot run here (PostgreSQL is not installed), or null. */
  readonly skip: string | null;
  readonly pg: TestPostgres;
  readonly stores: Stores;
  backend(): PgBackend;
}

export function usePgBackend(prefix: string): PgBackendFixture {
  const skip = postgresBin() === null ? 'PostgreSQL is not installed' : null;
  let pg: TestPostgres | undefined;
  let dir: string | undefined;
  let stores: Stores | undefined;
  const pools: Pool[] = [];
  const pool = (name: string) => {
    const p = createPool(pg!.url, name, 2);
    pools.push(p);
    return p;
  };
  beforeAll(async () => {
    if (skip) return;
    pg = await startPostgres();
    dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    stores = openStores(dir);
    await migrate(pool('migrate'));
  });
  afterAll(async () => {
    for (const p of pools) await p.end().catch(() => {});
    await stores?.root.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    pg?.close();
  });
  return {
    skip,
    get pg() {
      return pg!;
    },
    get stores() {
      return stores!;
    },
    backend: () => new PgBackend(pool('test'), new Replica(stores!, pool('replica')), 'test', () => true),
  };
}
