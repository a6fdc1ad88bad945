// The LMDB store's file system fills up (a 20 MiB tmpfs under <data>/db,
// then a filler file takes the rest). Writes that need room are answered 500
// internal and the log says "No space left on device"; redirects, reads and
// IP checks go on. The clicks of the redirects served meanwhile are kept in
// memory and written once there is room again; after the filler is removed,
// writes succeed again without a restart, and nothing stored is damaged.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cannotMount, fillFileSystem, mountTmpfs, unmount } from '../../helpers/faults.js';
import { ROOT } from '../../helpers/ipdb-cache.js';
import { api, createRoute, NO_RATE_LIMIT, PAGE_A, RedirectClient, routeStats, waitUntil } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const skip = cannotMount();
if (skip) console.warn(`skipped: ${skip}`);

const INTERNAL = { error: 'internal server error', code: 'internal', field: null };
const big = (i: number) => ({
  name: `filler ${i}`,
  page_a: `https://a.example.com/${'a'.repeat(2000)}`,
  page_b: `https://b.example.com/${'b'.repeat(2000)}?${i}`,
});

describe.skipIf(skip !== null)('the store file system full', () => {
  const dataDir = tempDataDir();
  const dbDir = path.join(dataDir, 'db');
  let server: TestServer | undefined;
  afterAll(async () => {
    await server?.close();
    unmount(dbDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers writes 500 while full, keeps serving, keeps the clicks, and recovers when room is made', async () => {
    mkdirSync(dbDir);
    mountTmpfs(dbDir, 20);
    server = await startServer({ dataDir, threads: 2, env: NO_RATE_LIMIT });
    const s = server;
    const route = await createRoute(s, { name: 'before the disk filled', split_ratio: 1 });
    const visits = new RedirectClient(s);
    let served = 0;
    const visit = async () => {
      const v = await visits.visit(route.code, { thread: served % 2 });
      expect(v.status).toBe(302);
      expect(v.location).toBe(PAGE_A);
      served++;
    };
    for (let i = 0; i < 10; i++) await visit();

    fillFileSystem(path.join(dbDir, 'filler'));
    // Some writes may still fit in pages LMDB already owns; keep writing
    // until one needs room.
    let refused = null;
    for (let i = 0; i < 200 && !refused; i++) {
      const r = await api(s, 'POST', '/v1/routes', big(i), { thread: i % 2 });
      if (r.status === 500) refused = r;
      else expect(r.status).toBe(201);
      await visit();
    }
    expect(refused, 'no write was refused on a full file system').not.toBeNull();
    expect(refused!.json).toEqual(INTERNAL);

    for (let i = 0; i < 50; i++) await visit();
    for (let thread = 0; thread < 2; thread++) {
      expect((await api(s, 'GET', `/v1/routes/${route.id}`, undefined, { thread })).json).toMatchObject({ name: 'before the disk filled' });
      expect((await api(s, 'GET', '/v1/ip/check?ip=1.1.1.1', undefined, { thread })).json).toMatchObject({ asn: 13335 });
    }
    const causes = s.logs().filter((l) => l.event === 'storage_write_failed');
    expect(causes.length).toBeGreaterThan(0);
    expect((causes[0].error as { message: string }).message).toMatch(/No space left on device/);
    expect(s.process.exitCode).toBeNull();

    // Room again: writes work without a restart, and every click is counted.
    rmSync(path.join(dbDir, 'filler'));
    const after = await waitUntil(() => api(s, 'POST', '/v1/routes', big(999)), (r) => r.status === 201, 5000, 200);
    expect(after.value.json).toMatchObject({ name: 'filler 999' });
    await waitUntil(() => routeStats(s, route.id), (st) => st.clicks.total === served, 5000);
    visits.close();

    expect(await s.stop()).toBe(0);
    const check = spawnSync(process.execPath, [path.join(ROOT, 'test', 'stress', 'store-check.js'), dataDir], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
    server = await startServer({ dataDir, env: NO_RATE_LIMIT });
    const again = await api(server, 'GET', `/v1/routes/${route.id}`);
    expect(again.json).toMatchObject({ name: 'before the disk filled', stats: { clicks: { total: served } } });
  });
});
