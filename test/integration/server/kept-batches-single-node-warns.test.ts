// A node gone back to one node with batches it kept at a stop while
// PostgreSQL was away (click_spill, visit_spill) says so at its start: a
// single node does not send them, and the warning names the remedy. Before,
// nothing said they were there.
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { openStores } from '../../../src/store/db.js';
import { zeroDay } from '../../../src/store/stats-store.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const dataDir = tempDataDir();
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('warns at a single-node start about batches kept by a cluster node', async () => {
  const stores = openStores(dataDir);
  stores.visitSpill.putSync([2, 1_700_000_000_000_000], [{ routeId: 1, day: 20_500, clicks: [3, 1], sketches: [null, null] }]);
  stores.clickSpill.putSync([2, 1_700_000_000_000_001], [{ routeId: 1, day: 20_500, c: { ...zeroDay(), clicks: 4 } }]);
  await stores.root.close();

  server = await startServer({ dataDir });
  expect(server.logs().find((l) => l.event === 'kept_batches_unsent')).toMatchObject({
    level: 'warn',
    batches: 2,
    remedy: 'start this node once more in cluster mode while PostgreSQL answers',
  });
});
