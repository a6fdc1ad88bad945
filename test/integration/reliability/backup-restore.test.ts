// `splitguard backup` and `splitguard restore`, end to end: a backup taken
// while the server serves and routes are being created, a restore refused
// while the server runs, then a restore into a fresh data directory that a
// new server starts on and serves from: the same accounts, keys (the old key
// of a reset account still refused), routes, short links and statistics.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { call, request, type Response } from '../../helpers/client.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'splitguard-backup-'));
let first: TestServer | undefined;
let second: TestServer | undefined;
let restoredDir: string | undefined;
beforeAll(async () => {
  first = await startServer({ threads: 2 });
});
afterAll(async () => {
  await first?.close();
  await second?.close();
  if (restoredDir) rmSync(restoredDir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Summary {
  schema_version: number;
  records: Record<string, number>;
}

function createRoute(s: TestServer, key: string, n: number): Promise<Response> {
  return request({
    port: s.ports[n % s.ports.length],
    ca: s.ca,
    method: 'POST',
    path: '/v1/routes',
    key,
    json: { name: `route ${n}`, page_a: `https://a.example.com/${n}?x=1`, page_b: `https://b.example.com/${n}`, split_ratio: 0.25, intercept_level: 'off' },
  });
}

/** Every route of an account, as the list shows it. */
async function routesOf(s: TestServer, key: string): Promise<{ id: number; code: string; name: string; page_a: string }[]> {
  const r = await call(s.ports[0], s.ca, 'GET', '/v1/routes?limit=100', key);
  expect(r.status, r.body).toBe(200);
  return r.json.data;
}

it('round trip: routes, keys and stats survive backup, restore into a fresh data directory, and a new server', async () => {
  const s = first!;
  const adminKey = s.apiKey;
  const other = await runCliJson<{ account_id: number; api_key: string }>(['account', 'create', '--name', 'Other', '--quota', '7'], s.dataDir);

  const mine: number[] = [];
  for (let n = 0; n < 3; n++) {
    const r = await createRoute(s, adminKey, n);
    expect(r.status, r.body).toBe(201);
    mine.push(r.json.id);
  }
  const theirs = await createRoute(s, other.api_key, 10);
  expect(theirs.status, theirs.body).toBe(201);
  const gone = await createRoute(s, adminKey, 20);
  expect((await call(s.ports[0], s.ca, 'DELETE', `/v1/routes/${gone.json.id}`, adminKey)).status).toBe(204);

  // Five clicks on the first route, seen in its stats.
  const clicked = (await call(s.ports[0], s.ca, 'GET', `/v1/routes/${mine[0]}`, adminKey)).json;
  for (let i = 0; i < 5; i++) {
    const r = await call(s.ports[i % 2], s.ca, 'GET', `/r/${clicked.code}`);
    expect(r.status).toBe(302);
  }
  let stats: { clicks: { total: number }; groups: { a: number; b: number } } | undefined;
  for (let wait = 0; wait < 20; wait++) {
    stats = (await call(s.ports[0], s.ca, 'GET', `/v1/routes/${mine[0]}`, adminKey)).json.stats;
    if (stats!.clicks.total === 5) break;
    await sleep(300);
  }
  expect(stats!.clicks.total).toBe(5);

  // The other account's key is reset: the new one must survive, the old one stay dead.
  const reset = await runCliJson<{ api_key: string }>(['key', 'reset', '--account', String(other.account_id)], s.dataDir);
  const before = { admin: await routesOf(s, adminKey), other: await routesOf(s, reset.api_key) };
  const account = (await call(s.ports[0], s.ca, 'GET', '/v1/account', adminKey)).json;

  // The backup runs while the server creates routes on both threads.
  const file = path.join(scratch, 'splitguard.mdb');
  const during = Promise.all(Array.from({ length: 6 }, (_, i) => createRoute(s, adminKey, 100 + i)));
  const backup = await runCliJson<Summary & { out: string; bytes: number; compacted: boolean }>(['backup', '--out', file], s.dataDir);
  const created = await during;
  expect(created.map((r) => r.status)).toEqual(Array(6).fill(201));
  expect(backup.out).toBe(file);
  expect(backup.bytes).toBeGreaterThan(0);
  expect(backup.compacted).toBe(true);
  expect(backup.records.accounts).toBe(2);
  expect(backup.records.users).toBe(1);
  expect((await call(s.ports[1], s.ca, 'GET', '/healthz')).status).toBe(200);
  // Only the backup file is left behind, no scratch directory.
  expect(readdirSync(scratch)).toEqual(['splitguard.mdb']);

  // Restoring under a running server is refused, naming its process (the data directory's lock); the store is untouched.
  const refused = await runCli(['restore', '--from', file], s.dataDir);
  expect(refused.code, refused.stderr).toBe(1);
  expect(refused.stderr).toMatch(new RegExp(`^splitguard: .* is held by the server with pid ${s.process.pid}; stop it first`));
  expect(refused.stdout).toBe('');
  expect((await call(s.ports[0], s.ca, 'GET', '/v1/account', adminKey)).status).toBe(200);
  expect(readdirSync(s.dataDir).filter((f) => f.startsWith('db.'))).toEqual([]);

  await s.stop();

  // A fresh data directory: the IP database only, plus bootstrap.json for the test helper.
  restoredDir = tempDataDir();
  copyFileSync(path.join(s.dataDir, 'bootstrap.json'), path.join(restoredDir, 'bootstrap.json'));
  const restored = await runCliJson<Summary & { previous: string | null; db: string }>(['restore', '--from', file], restoredDir);
  expect(restored.previous).toBeNull();
  expect(restored.db).toBe(path.join(restoredDir, 'db'));
  expect(restored.records).toEqual(backup.records);

  second = await startServer({ dataDir: restoredDir, threads: 2 });
  const t = second;
  // No first start again: the users came back with the store.
  expect(t.output()).not.toMatch(/first start/);

  // Keys: the bootstrap key and the reset key work; the key replaced before the backup does not.
  const me = await call(t.ports[1], t.ca, 'GET', '/v1/account', adminKey);
  expect(me.status).toBe(200);
  expect(me.json).toMatchObject({ id: account.id, name: account.name, quota: account.quota });
  expect(me.json.routes_created).toBeGreaterThanOrEqual(account.routes_created);
  expect((await call(t.ports[0], t.ca, 'GET', '/v1/account', reset.api_key)).json).toMatchObject({ id: other.account_id, name: 'Other', quota: 7, routes_created: 1 });
  expect((await call(t.ports[0], t.ca, 'GET', '/v1/account', other.api_key)).status).toBe(401);

  // Routes: everything listed before the backup, plus only routes created while it ran.
  const after = { admin: await routesOf(t, adminKey), other: await routesOf(t, reset.api_key) };
  expect(after.other).toEqual(before.other);
  const extra = after.admin.slice(0, after.admin.length - before.admin.length);
  expect(after.admin.slice(extra.length)).toEqual(before.admin);
  const duringIds = new Set(created.map((r) => r.json.id as number));
  for (const r of extra) expect(duringIds.has(r.id)).toBe(true);

  // Short links redirect to the same pages; the deleted route stays deleted.
  const hop = await call(t.ports[0], t.ca, 'GET', `/r/${clicked.code}`);
  expect(hop.status).toBe(302);
  expect([clicked.page_a, clicked.page_b]).toContain(hop.headers.location);
  expect((await call(t.ports[1], t.ca, 'GET', `/r/${gone.json.code}`)).status).toBe(404);
  expect((await call(t.ports[1], t.ca, 'GET', `/v1/routes/${gone.json.id}`, adminKey)).status).toBe(404);

  // Stats: the five clicks from before the backup (and the one just made).
  let total = 0;
  for (let wait = 0; wait < 20 && total !== 6; wait++) {
    total = (await call(t.ports[0], t.ca, 'GET', `/v1/routes/${mine[0]}`, adminKey)).json.stats.clicks.total;
    if (total !== 6) await sleep(300);
  }
  expect(total).toBe(6);
});

it('a restore over an existing store keeps the previous one beside it', async () => {
  await second?.stop();
  const dir = restoredDir!;
  const file = path.join(scratch, 'splitguard.mdb');
  const r = await runCliJson<{ previous: string }>(['restore', '--from', file], dir);
  expect(path.dirname(r.previous)).toBe(dir);
  expect(path.basename(r.previous)).toMatch(/^db\.before-restore-\d{4}-\d\d-\d\dT/);
  expect(existsSync(path.join(r.previous, 'data.mdb'))).toBe(true);
  expect(existsSync(path.join(dir, 'db', 'data.mdb'))).toBe(true);
  // No staging directory is left.
  expect(readdirSync(dir).filter((f) => f.startsWith('db.restore-'))).toEqual([]);
});
