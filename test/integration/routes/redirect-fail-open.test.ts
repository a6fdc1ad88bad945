// Fail open: with no usable IP database (the data directory's
// ipdb/current.trie is corrupt, and the refresh that repairs it at start has
// no source that answers) the server logs database_unavailable, answers
// /healthz 503, and keeps serving: an Amazon visitor, who would be
// intercepted, is split as a real visitor, and stats count check_failed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { createRoute, NO_RATE_LIMIT, pageOf, RedirectClient, routeStats, TRUST_LOOPBACK, visitorId, waitUntil } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { closedPortLocation } from '../../helpers/sources.js';

let dataDir: string;
let server: TestServer;
let client: RedirectClient;
beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'splitguard-test-'));
  mkdirSync(path.join(dataDir, 'ipdb'));
  // Not a trie file: wrong magic, far too short for a header.
  writeFileSync(path.join(dataDir, 'ipdb', 'current.trie'), 'this is not an IP database\n'.repeat(8));
  server = await startServer({ dataDir, env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK, SPLITGUARD_IPDB_SOURCES: await closedPortLocation() } });
  client = new RedirectClient(server);
});
afterAll(async () => {
  client?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('reports the database unavailable', async () => {
  expect(server.logs().some((l) => l.event === 'database_unavailable' && l.level === 'error')).toBe(true);
  const health = await request({ port: server.ports[0], ca: server.ca, path: '/healthz' });
  expect(health.status).toBe(503);
  expect(health.json).toEqual({ status: 'unavailable' });
});

it.concurrent('lets a data-center visitor through to the split and counts check_failed', async ({ expect }) => {
  const route = await createRoute(server, { intercept_level: 'medium', default_group: 'a', split_ratio: 0 });
  for (const ip of ['3.5.0.1', '52.95.110.1', '::ffff:3.5.0.1']) {
    const v = await client.visit(route.code, { forwardedFor: ip, visitor: visitorId() });
    expect(v.headers['cache-control']).toBe('private, no-store');
    expect(pageOf(v), ip).toBe('b'); // intercepted would be the default group, a
  }
  const { value: stats } = await waitUntil(() => routeStats(server, route.id), (s) => s.clicks.total === 3, 2000);
  expect(stats.rule_hits.check_failed).toBe(3);
  expect(stats.intercepted).toBe(0);
  expect(stats.rule_hits.asn_blacklist).toBe(0);
  expect(stats.groups).toEqual({ a: 0, b: 3 });
});

it.concurrent('does not count check_failed at level off, where nothing is checked', async ({ expect }) => {
  const route = await createRoute(server, { intercept_level: 'off', split_ratio: 0 });
  expect(pageOf(await client.visit(route.code, { forwardedFor: '3.5.0.1', visitor: visitorId() }))).toBe('b');
  const { value: stats } = await waitUntil(() => routeStats(server, route.id), (s) => s.clicks.total === 1, 2000);
  expect(stats.rule_hits.check_failed).toBe(0);
  expect(stats.groups).toEqual({ a: 0, b: 1 });
});
