// A single node never loads pg or ioredis: every server thread would
// otherwise compile both into its own heap (about 4 MB a thread,
// bench:startup's second thread). They load with the first pool or link.
import { createRequire } from 'node:module';
import { expect, test } from 'vitest';

const clientsLoaded = () => Object.keys(createRequire(import.meta.url).cache).filter((f) => /node_modules\/(pg|ioredis)\//.test(f));

test('the storage, cluster and limits modules load neither pg nor ioredis until a pool is made', async () => {
  await import('../../src/store/storage.js');
  await import('../../src/store/pg/node.js');
  await import('../../src/limits/redis-link.js');
  await import('../../src/limits/redis-limits.js');
  expect(clientsLoaded()).toEqual([]);

  const { createPool } = await import('../../src/store/pg/client.js');
  const pool = createPool('postgres://127.0.0.1:1/none', 'lazy-test', 1);
  await pool.end();
  expect(clientsLoaded().some((f) => f.includes('node_modules/pg/'))).toBe(true);
});
