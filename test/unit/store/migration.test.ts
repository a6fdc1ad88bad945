import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStores, SCHEMA_VERSION } from '../../../src/store/db.js';
import { LmdbBackend } from '../../../src/store/lmdb-backend.js';
import { Routes } from '../../../src/store/routes-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('schema migration 1 → 2', () => {
  it('gives accounts written before routesActive existed their current route count', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-migrate-'));
    dirs.push(dir);
    // A version-1 store: an account without routesActive and three routes in its index.
    let s = openStores(dir);
    s.root.transactionSync(() => {
      s.meta.putSync('schema_version', 1);
      s.accounts.putSync(7, { id: 7, name: 'old', quota: 10, routesCreated: 4, createdAt: '2026-01-01T00:00:00.000Z' });
      for (const id of [11, 12, 14]) {
        s.accountRoutes.putSync([7, id], 1);
        s.routes.putSync(id, { id, accountId: 7, code: `code000${id % 10}`.slice(0, 8), name: `r${id}`, pageA: 'https://a.example/', pageB: 'https://b.example/', splitRatio: 0.5, defaultGroup: 'a', interceptLevel: 'medium', status: 'active', createdAt: 'x', updatedAt: 'x' });
      }
    });
    await s.root.close();

    s = openStores(dir);
    expect(s.meta.get('schema_version')).toBe(SCHEMA_VERSION);
    expect(s.accounts.get(7)?.routesActive).toBe(3);
    const page = new Routes(s, new LmdbBackend(s)).list(7, 1, 20);
    expect(page.total).toBe(3);
    expect(page.data.map((r) => r.id)).toEqual([14, 12, 11]);
    await s.root.close();
  });

  it('refuses a data directory from a newer splitguard', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-migrate-'));
    dirs.push(dir);
    const s = openStores(dir);
    s.meta.putSync('schema_version', SCHEMA_VERSION + 1);
    await s.root.close();
    expect(() => openStores(dir)).toThrow(`schema version ${SCHEMA_VERSION + 1}, newer than this splitguard (${SCHEMA_VERSION})`);
  });
});
