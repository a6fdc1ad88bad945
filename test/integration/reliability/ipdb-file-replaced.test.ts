// The IP database file replaced under a running server: overwritten in place
// with garbage (cp over it), then deleted, then garbage again. The threads
// map private serving copies (src/ipdb/serving.ts), so redirects go on being
// classified as before on every thread. The bad file is reported where it is
// read next: `splitguard ipdb info` exits 1 naming it; a restart logs
// database_unavailable for it and serves without a database (/healthz 503,
// redirects fail open and count check_failed) while no source can repair it;
// a restart with a source that answers repairs it at once, without a trigger.
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { runCli } from '../../helpers/cli.js';
import { databaseStatus } from '../../helpers/refresh.js';
import { closedPortLocation } from '../../helpers/sources.js';
import { createRoute, NO_RATE_LIMIT, PAGE_A, PAGE_B, RedirectClient, routeStats, TRUST_LOOPBACK, waitUntil } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const dataDir = tempDataDir();
const current = path.join(dataDir, 'ipdb', 'current.trie');
const env = { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK, SPLITGUARD_IPDB_SOURCES: 'package:' };
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A data-center visitor (8.8.8.8) and an unknown one (a documentation address) on every thread. */
async function expectClassified(s: TestServer, code: string, visits: RedirectClient): Promise<void> {
  for (let thread = 0; thread < s.ports.length; thread++) {
    for (let i = 0; i < 10; i++) {
      expect((await visits.visit(code, { thread, forwardedFor: '8.8.8.8' })).location).toBe(PAGE_B);
      expect((await visits.visit(code, { thread, forwardedFor: '192.0.2.1' })).location).toBe(PAGE_A);
    }
  }
}

it('keeps serving from its private copy, then reports the bad file on the next read, start and refresh', async () => {
  const s = await startServer({ dataDir, threads: 2, env });
  servers.push(s);
  const route = await createRoute(s, { split_ratio: 1, default_group: 'b', intercept_level: 'medium' });
  const visits = new RedirectClient(s);
  await expectClassified(s, route.code, visits);

  writeFileSync(current, randomBytes(1 << 20)); // in place: same inode, truncated and rewritten
  await expectClassified(s, route.code, visits);
  rmSync(current);
  await expectClassified(s, route.code, visits);
  writeFileSync(current, randomBytes(1 << 20));
  await expectClassified(s, route.code, visits);
  expect((await call(s.ports[1], s.ca, 'GET', '/healthz')).status).toBe(200);
  visits.close();

  const info = await runCli(['ipdb', 'info'], dataDir);
  expect(info.code).toBe(1);
  expect(info.stderr).toBe(`splitguard: the file is not a splitguard IP database (bad magic): ${current}\n`);
  expect(await s.stop()).toBe(0);

  // The restart reports it, and fails open while its repair finds no source.
  const again = await startServer({ dataDir, threads: 2, env: { ...env, SPLITGUARD_IPDB_SOURCES: await closedPortLocation() } });
  servers.push(again);
  const reported = again.logs().filter((l) => l.event === 'database_unavailable');
  expect(reported.length).toBeGreaterThan(0);
  expect(reported[0]).toMatchObject({ level: 'error', thread: 'main', file: current, error: { code: 'ipdb_bad_magic' } });
  expect((await call(again.ports[0], again.ca, 'GET', '/healthz')).status).toBe(503);
  expect(await databaseStatus(again)).toMatchObject({ available: false });
  const open = new RedirectClient(again);
  const before = (await routeStats(again, route.id)).rule_hits.check_failed;
  for (let thread = 0; thread < 2; thread++) {
    expect((await open.visit(route.code, { thread, forwardedFor: '8.8.8.8' })).location).toBe(PAGE_A);
  }
  await waitUntil(() => routeStats(again, route.id), (st) => st.rule_hits.check_failed === before + 2, 5000);

  open.close();
  expect(await again.stop()).toBe(0);

  // With a source that answers, the start repairs it: every thread classifies again.
  const repaired = await startServer({ dataDir, threads: 2, env });
  servers.push(repaired);
  const status = await waitUntil(() => databaseStatus(repaired), (st) => st.available && st.last_refresh?.outcome === 'updated', 30_000);
  expect(status.value).toMatchObject({ available: true, last_refresh: { trigger: 'repair', outcome: 'updated' } });
  for (let thread = 0; thread < 2; thread++) expect((await call(repaired.ports[thread], repaired.ca, 'GET', '/healthz')).status).toBe(200);
  const after = new RedirectClient(repaired);
  await expectClassified(repaired, route.code, after);
  after.close();
});
