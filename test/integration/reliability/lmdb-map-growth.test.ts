// LMDB's map: lmdb-js 3 opens an environment with a 128 KiB map (open.js:
// mapSize 0x20000 unless configured, which src/store/db.ts does not) and
// grows it when a commit needs more room, instead of failing with
// MDB_MAP_FULL. Here the store grows to many times that size through the API
// (routes with long page URLs); every write succeeds, and everything reads
// back, before and after a restart.
import { spawnSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../../helpers/ipdb-cache.js';
import { api, inParallel, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const INITIAL_MAP = 128 * 1024;
const ROUTES = 500;
const dataDir = tempDataDir();
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const body = (i: number) => ({
  name: `growth ${i}`,
  page_a: `https://a.example.com/${i}/${'a'.repeat(1900)}`,
  page_b: `https://b.example.com/${i}/${'b'.repeat(1900)}`,
});

async function listAll(s: TestServer): Promise<Map<number, { name: string; page_a: string }>> {
  const out = new Map();
  for (let page = 1; ; page++) {
    const r = await api(s, 'GET', `/v1/routes?page=${page}&limit=100`);
    expect(r.status).toBe(200);
    for (const route of r.json.data) out.set(route.id, route);
    if (page >= r.json.pagination.pages) return out;
  }
}

it(`grows the store far past the initial ${INITIAL_MAP / 1024} KiB map with every write succeeding`, async () => {
  const first = await startServer({ dataDir, threads: 2, env: NO_RATE_LIMIT });
  servers.push(first);
  const sizeBefore = statSync(path.join(dataDir, 'db', 'data.mdb')).size;
  const statuses = await inParallel([...Array(ROUTES).keys()], 16, async (i) => (await api(first, 'POST', '/v1/routes', body(i), { thread: i % 2 })).status);
  expect(statuses.filter((s) => s !== 201)).toEqual([]);
  const size = statSync(path.join(dataDir, 'db', 'data.mdb')).size;
  expect(size).toBeGreaterThan(12 * INITIAL_MAP);

  const listed = await listAll(first);
  expect(listed.size).toBe(ROUTES);
  for (const route of listed.values()) expect(route.page_a).toBe(body(Number(route.name.slice(7))).page_a);
  expect(await first.stop()).toBe(0);

  const check = spawnSync(process.execPath, [path.join(ROOT, 'test', 'stress', 'store-check.js'), dataDir], { encoding: 'utf8' });
  expect(check.status, check.stderr).toBe(0);
  expect(JSON.parse(check.stdout)).toMatchObject({ routes: ROUTES, codes: ROUTES });
  const second = await startServer({ dataDir, env: NO_RATE_LIMIT });
  servers.push(second);
  expect((await listAll(second)).size).toBe(ROUTES);
  const more = await api(second, 'POST', '/v1/routes', body(ROUTES));
  expect(more.status).toBe(201);
  console.log(`data.mdb: ${sizeBefore} bytes at start, ${size} bytes after ${ROUTES} routes`);
});
