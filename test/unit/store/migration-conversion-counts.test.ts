// Schema 5 → 6: each account counts the conversions it stores (meta
// conversions:account:<id>, which SPLITGUARD_CONVERSION_QUOTA bounds). A
// store written before gets the count of every account's routes'
// conversions at the upgrade; those of a deleted route awaiting their purge
// are not counted (its marker, from before, subtracts nothing either).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { openStores, SCHEMA_VERSION } from '../../../src/store/db.js';
import type { Route } from '../../../src/store/routes-store.js';

/** Where the store keeps an account's count (meta, store/db.ts). */
const countKey = (accountId: number) => `conversions:account:${accountId}`;

it("counts every account's stored conversions at the upgrade", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-migration-conversion-counts-'));
  try {
    let s = openStores(dir);
    const conversions = (routeId: number, n: number) => {
      for (let i = 0; i < n; i++) s.conversions.putSync([routeId, `g${i % 3}`, i.toString(16).padStart(16, '0')], { variant: 0, day: 1, at: 1, value: null });
    };
    s.root.transactionSync(() => {
      s.meta.putSync('schema_version', 5);
      // As version 5 wrote them: routes 1 and 2 of account 7, 3 of account 8, 4 of account 9 (none), 5 deleted, its purge under way.
      for (const [id, accountId] of [[1, 7], [2, 7], [3, 8], [4, 9]]) s.routes.putSync(id, { id, accountId, code: `r${id}` } as Route);
      conversions(1, 12);
      conversions(2, 30);
      conversions(3, 5);
      conversions(5, 40);
      s.meta.putSync('purge:route:5', true);
    });
    await s.root.close();

    s = openStores(dir);
    expect(s.meta.get('schema_version')).toBe(SCHEMA_VERSION);
    expect([7, 8, 9].map((a) => s.meta.get(countKey(a)))).toEqual([42, 5, undefined]);
    await s.root.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
