// Failover: the sources are tried in order until one yields a valid database.
// With a refused source and a source answering 500 before a valid one, the
// refresh installs the valid source's database, records the first two sources'
// errors, and every thread swaps to the new database.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { check, databaseStatus, metric, refreshNow, sourceName } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { closedPortLocation, type SourceServer, startSourceServer } from '../../helpers/sources.js';

let sources: SourceServer;
let server: TestServer;
let locations: string[];
beforeAll(async () => {
  sources = await startSourceServer();
  locations = [await closedPortLocation(), sources.location('status500'), sources.location('valid')];
  server = await startServer({ threads: 2, env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: locations.join(',') } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

it('moves past failing sources to the first valid one and records each outcome', async () => {
  const before = await databaseStatus(server);
  const after = await refreshNow(server, server.apiKey);
  const record = after.last_refresh!;

  expect(record).toMatchObject({ outcome: 'updated', source: sourceName(locations[2]), error: null });
  expect(record.nodes.map((n) => [n.source, n.outcome])).toEqual([
    [sourceName(locations[0]), 'failed'],
    [sourceName(locations[1]), 'failed'],
    [sourceName(locations[2]), 'updated'],
  ]);
  expect(record.nodes[0].error).toMatch(/ECONNREFUSED/);
  expect(record.nodes[1].error).toMatch(/HTTP 500/);
  expect(record.nodes[2].error).toBeNull();

  // The new database serves, on every thread, with the same answers.
  expect(after.version).toBe(record.version);
  expect(after.version).not.toBe(before.version);
  expect(after.source).toBe(sourceName(locations[2]));
  expect(after.built_at).not.toBe(before.built_at);
  expect(after.ranges).toEqual(before.ranges);
  for (let thread = 0; thread < 2; thread++) {
    expect(await check(server, '8.8.8.8', thread)).toMatchObject({
      found: true,
      asn: 15169,
      intercepted: true,
      database: { version: after.version, built_at: after.built_at },
    });
  }
  expect(await metric(server, 'splitguard_ipdb_refresh_total{outcome="updated"}')).toBe(1);
  expect(await metric(server, 'splitguard_ipdb_swaps_total')).toBe(2);
  expect(sources.requests.filter((r) => r.mode === 'valid').map((r) => r.status)).toEqual([200, 200]);
}, 120_000);
