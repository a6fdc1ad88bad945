// `splitguard ipdb refresh` while the server runs on the same data
// directory: the command installs the new database and prints its record;
// the server notices the installation and swaps every thread to it within
// seconds, without a restart, and shows the command's refresh in
// GET /v1/ip/database.
import { expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { check, databaseStatus, metric, type RefreshRecord, serverWithValidSource, sourceName } from '../../helpers/refresh.js';
import { waitUntil } from '../../helpers/routes.js';

const ctx = serverWithValidSource({ threads: 2 });

it('swaps the running server to the database the command installed', async () => {
  const before = await databaseStatus(ctx.server);
  const cli = await runCli(['ipdb', 'refresh'], ctx.server.dataDir, { SPLITGUARD_IPDB_SOURCES: ctx.sources.location('valid') }, 60_000);
  expect(cli.code, cli.stderr).toBe(0);
  // The record alone on stdout (the log is on stderr).
  const record = JSON.parse(cli.stdout) as RefreshRecord;
  expect(record).toMatchObject({ trigger: 'cli', outcome: 'updated', source: sourceName(ctx.sources.location('valid')) });
  expect(record.version).not.toBe(before.version);

  // About two seconds on an idle machine (the 1 s generation poll, the copy,
  // the keyword tables); the bound leaves room for a loaded one.
  const { value: after, ms } = await waitUntil(() => databaseStatus(ctx.server), (s) => s.version === record.version, 10_000);
  expect(ms).toBeLessThan(5000);
  expect(after.built_at).not.toBe(before.built_at);
  expect(after.last_refresh).toMatchObject({ trigger: 'cli', outcome: 'updated', started_at: record.started_at });
  for (let thread = 0; thread < 2; thread++) {
    const { value } = await waitUntil(() => check(ctx.server, '1.1.1.1', thread), (c) => c.database.built_at === after.built_at, 2000);
    expect(value).toMatchObject({ found: true, asn: 13335 });
  }
  expect(await metric(ctx.server, 'splitguard_ipdb_swaps_total')).toBe(2);
  // The server itself ran no refresh.
  expect(ctx.server.logs().filter((l) => l.event === 'ipdb_refresh_started')).toHaveLength(0);
}, 120_000);
