// The data directory's file system turns read-only under a running server
// (the kernel does this to ext4 after an I/O error: errors=remount-ro).
// Redirects, reads, IP checks and /healthz go on being answered on every
// thread; every write is answered 500 internal, and the log names the cause
// (storage_write_failed: "Read-only file system"). The server stays up.
// After a file-system check and a fresh mount, everything stored before the
// fault is there, clicks included, and the store reads end to end.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { SCHEMA_VERSION } from '../../../src/store/db.js';
import { afterAll, describe, expect, it } from 'vitest';
import { cannotMountExt4, type Ext4, ext4 } from '../../helpers/faults.js';
import { api, createRoute, NO_RATE_LIMIT, PAGE_A, PAGE_B, RedirectClient, routeStats, TRUST_LOOPBACK, waitUntil } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';
import { ROOT } from '../../helpers/ipdb-cache.js';

const skip = cannotMountExt4();
if (skip) console.warn(`skipped: ${skip}`);

const INTERNAL = { error: 'internal server error', code: 'internal', field: null };

describe.skipIf(skip !== null)('storage turning read-only while the server runs', () => {
  let fs: Ext4;
  let server: TestServer | undefined;
  afterAll(async () => {
    if (server) {
      await server.stop('SIGKILL');
      await server.close();
    }
    fs?.unmount();
  });

  it('keeps serving redirects and reads, answers writes 500, logs the cause, and damages nothing', async () => {
    fs = ext4(128);
    const dataDir = path.join(fs.dir, 'data');
    const seed = tempDataDir();
    cpSync(seed, dataDir, { recursive: true });
    rmSync(seed, { recursive: true, force: true });
    server = await startServer({ dataDir, threads: 2, env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK } });
    const s = server;

    const route = await createRoute(s, { name: 'before the fault', split_ratio: 1, default_group: 'b', intercept_level: 'medium' });
    const visits = new RedirectClient(s);
    for (let i = 0; i < 20; i++) expect((await visits.visit(route.code, { thread: i % 2 })).location).toBe(PAGE_A);
    await waitUntil(() => routeStats(s, route.id), (st) => st.clicks.total === 20, 5000);

    fs.fail('splitguard reliability test');
    expect(fs.options()).toMatch(/emergency_ro|(^|,)ro(,|$)/);

    // Writes: 500 internal, fixed body, on both threads.
    for (let thread = 0; thread < 2; thread++) {
      const created = await api(s, 'POST', '/v1/routes', { name: 'refused', page_a: PAGE_A, page_b: PAGE_B }, { thread });
      expect(created.status).toBe(500);
      expect(created.json).toEqual(INTERNAL);
      const updated = await api(s, 'PUT', `/v1/routes/${route.id}`, { name: 'refused' }, { thread });
      expect(updated.status).toBe(500);
      expect(updated.json).toEqual(INTERNAL);
      const deleted = await api(s, 'DELETE', `/v1/routes/${route.id}`, undefined, { thread });
      expect(deleted.status).toBe(500);
    }

    // Redirects and reads: as before, on both threads, for a while (so the
    // failing click flushes run many times meanwhile).
    const until = Date.now() + 2500;
    let served = 0;
    while (Date.now() < until) {
      const thread = (served / 2) % 2; // two visits a turn, the threads in turn
      expect((await visits.visit(route.code, { thread })).location).toBe(PAGE_A);
      // A data-center visitor is still intercepted (classification works).
      expect((await visits.visit(route.code, { thread, forwardedFor: '8.8.8.8' })).location).toBe(PAGE_B);
      served += 2;
    }
    for (let thread = 0; thread < 2; thread++) {
      const got = await api(s, 'GET', `/v1/routes/${route.id}`, undefined, { thread });
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject({ name: 'before the fault', code: route.code });
      expect((await api(s, 'GET', '/v1/routes', undefined, { thread })).json.pagination.total).toBe(1);
      expect((await api(s, 'GET', '/v1/ip/check?ip=8.8.8.8', undefined, { thread })).json).toMatchObject({ asn: 15169, intercepted: true });
      expect((await api(s, 'GET', '/v1/account', undefined, { thread })).status).toBe(200);
    }
    visits.close();
    expect(s.process.exitCode).toBeNull();

    const logs = s.logs();
    const causes = logs.filter((l) => l.event === 'storage_write_failed');
    expect(causes.length).toBeGreaterThan(0);
    for (const l of causes) expect((l.error as { message: string }).message).toMatch(/Read-only file system/);
    expect(logs.some((l) => l.event === 'unhandled_error')).toBe(true);
    expect(logs.some((l) => l.event === 'thread_failed' || l.event === 'thread_exited')).toBe(false);

    // Nothing stored is damaged: check and mount the file system again, and
    // read everything with a new server.
    await s.stop('SIGKILL');
    server = undefined;
    expect(fs.checkAndRemount()).toBeLessThanOrEqual(1);
    const check = spawnSync(process.execPath, [path.join(ROOT, 'test', 'stress', 'store-check.js'), dataDir], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ routes: 1, codes: 1, accountRoutes: 1, schema_version: SCHEMA_VERSION });
    server = await startServer({ dataDir, env: NO_RATE_LIMIT });
    const after = await api(server, 'GET', `/v1/routes/${route.id}`);
    expect(after.json).toMatchObject({ name: 'before the fault', split_ratio: 1, default_group: 'b', code: route.code });
    expect(after.json.stats.clicks.total).toBeGreaterThanOrEqual(20);
  });
});
