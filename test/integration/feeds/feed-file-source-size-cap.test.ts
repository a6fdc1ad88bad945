// A file: node is held to the download cap (64 MiB for a feed) by its size,
// before anything is copied: a larger file fails the node naming its size
// and the cap. (It was copied in full into the data directory first: a 1 GB
// sparse file, which costs its writer no space, filled a 100 MB data file
// system before anything looked at it.)
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { installTestDatabase } from '../../helpers/ipdb-cache.js';
import type { RefreshRecord } from '../../helpers/refresh.js';
import { closedPortLocation } from '../../helpers/sources.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'sg-file-cap-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('refuses a file: node over the cap by its size, before the copy', async () => {
  const dataDir = path.join(root, 'data');
  installTestDatabase(dataDir);
  const big = path.join(root, 'tor.txt');
  // One address, then a hole up to one byte over 64 MiB (no disk space used).
  writeFileSync(big, '185.220.101.1\n');
  truncateSync(big, 64 * 1024 * 1024 + 1);
  const env = { SPLITGUARD_IPDB_SOURCES: await closedPortLocation(), SPLITGUARD_FEEDS: 'tor', SPLITGUARD_FEED_SOURCES: `tor=${pathToFileURL(big).href}` };

  const r = await runCli(['ipdb', 'refresh'], dataDir, env, 90_000);
  const record = JSON.parse(r.stdout) as RefreshRecord;
  expect(record.feeds).toEqual([
    {
      feed: 'tor',
      outcome: 'failed',
      source: null,
      error: `${pathToFileURL(big).href}: the file (67108865 bytes) is larger than the 67108864-byte limit`,
      ms: expect.any(Number),
    },
  ]);
}, 120_000);
