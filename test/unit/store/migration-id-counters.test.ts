// Schema 3 → 4: the id counters are raised to at least every id the store
// holds (accounts, routes, and the ids that deleted routes' codes keep), so
// a store whose counters lag (a cluster replica's, whose ids PostgreSQL
// gave) never hands out a taken id; counters already ahead stay.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { nextId, openStores } from '../../../src/store/db.js';

it('raises lagging id counters past every stored id at the upgrade', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-migration-ids-'));
  try {
    let s = openStores(dir);
    s.root.transactionSync(() => {
      s.accounts.putSync(7, { id: 7 } as never);
      s.routes.putSync(5, { id: 5 } as never);
      s.codes.putSync('deletedX', 9); // a deleted route's code keeps its id
      s.meta.putSync('seq:account', 1);
      s.meta.putSync('seq:route', 2);
      s.meta.putSync('schema_version', 3);
    });
    await s.root.close();
    s = openStores(dir);
    const ids = s.root.transactionSync(() => ({ account: nextId(s, 'account'), route: nextId(s, 'route') }));
    expect(ids).toEqual({ account: 8, route: 10 });
    await s.root.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
