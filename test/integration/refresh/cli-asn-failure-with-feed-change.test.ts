// Every ASN data node failed while a feed changed in the same refresh: the
// changed feed is folded into the installed ASN data all the same, but the
// refresh is `failed` (source and version null, the error naming it), and
// `splitguard ipdb refresh` exits 1 with the failure on stderr, so that a
// cron job's `ipdb refresh || alert` fires. (The refold made it `updated`,
// exit 0, nothing on stderr, and the ASN data never updated unseen.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { torList } from '../../helpers/feed-server.js';
import { installTestDatabase } from '../../helpers/ipdb-cache.js';
import type { RefreshRecord } from '../../helpers/refresh.js';
import { sourceName } from '../../helpers/refresh.js';
import { closedPortLocation } from '../../helpers/sources.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'sg-asn-failed-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('reports the ASN data failed and exits 1, with the changed feed still folded in', async () => {
  const dataDir = path.join(root, 'data');
  installTestDatabase(dataDir);
  const exits = Array.from({ length: 40 }, (_, i) => `185.220.101.${i + 1}`);
  const tor = path.join(root, 'tor.txt');
  writeFileSync(tor, torList(exits));
  const asn = await closedPortLocation();
  const env = { SPLITGUARD_IPDB_SOURCES: asn, SPLITGUARD_FEEDS: 'tor', SPLITGUARD_FEED_SOURCES: `tor=${pathToFileURL(tor).href}` };

  const r = await runCli(['ipdb', 'refresh'], dataDir, env, 90_000);
  expect(r.code, r.stderr).toBe(1);
  // The record alone on stdout (the log is on stderr, with the messages).
  const record = JSON.parse(r.stdout) as RefreshRecord;
  expect(record).toMatchObject({ trigger: 'cli', outcome: 'failed', source: null, version: null });
  expect(record.error).toMatch(/every source failed/);
  expect(record.nodes).toEqual([{ source: sourceName(asn), outcome: 'failed', error: expect.stringMatching(/ECONNREFUSED/), ms: expect.any(Number) }]);
  expect(record.feeds).toEqual([{ feed: 'tor', outcome: 'updated', source: pathToFileURL(tor).href, error: null, ms: expect.any(Number) }]);
  // The log's JSON lines and the note that a new store was made (a fresh data directory) aside.
  const messages = r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('{') && !l.startsWith('splitguard: note:'));
  expect(messages[0]).toMatch(/^splitguard: ipdb refresh failed: every source failed/);
  expect(messages.some((l) => /ECONNREFUSED/.test(l))).toBe(true);
  expect(messages).toContain('  feeds updated all the same: tor');

  // The refold was installed: the database holds the downloaded feed, on the ASN data it had.
  const info = await runCli(['ipdb', 'info'], dataDir, { SPLITGUARD_FEEDS: 'tor' });
  expect(info.code, info.stderr).toBe(0);
  const db = JSON.parse(info.stdout) as { feeds: { name: string; version: string; count: number }[] };
  expect(db.feeds.find((f) => f.name === 'tor')).toMatchObject({ count: 40 });
  expect(db.feeds.find((f) => f.name === 'tor')!.version).not.toMatch(/^snapshot/);
}, 120_000);
