// A feed's memory (recent.ts) keeps single addresses only: a `tor` list of
// wide ranges, once taken, stayed folded in for a week as Tor exits (the
// hostile-publisher review of 2026-11-29). Wide ranges of the previous data
// and of an old recent file are both left out.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { recentAfter } from '../../../src/ipdb/feeds/recent.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-recent-hosts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = Date.parse('2026-11-29T12:00:00Z');
const HOUR = 3_600_000;

it('remembers the addresses of the previous data and drops its ranges', () => {
  const previous = path.join(dir, 'previous.list');
  writeFileSync(previous, ['185.220.101.1', '73.0.0.0/8', '11.1.2.0/24', '2a0b:f4c2::1', '2601::/16', '2a0b:f4c2:1::/64'].join('\n'));
  const recent = path.join(dir, 'recent.list');
  writeFileSync(recent, ['185.220.101.2/32', '24.0.0.0/8', '2a0b:f4c2::2/128', '2600::/12'].map((c) => `${c} ${new Date(NOW - 2 * HOUR).toISOString()}\n`).join(''));
  const out = recentAfter({ files: [previous], format: 'cidr-lines', seenAt: NOW - HOUR, recent }, { v4: [], v6: [] }, NOW, 7, 'tor');
  const kept = out.text.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split(' ')[0]).sort();
  expect(kept).toEqual(['185.220.101.1/32', '185.220.101.2/32', '2a0b:f4c2:0:0:0:0:0:1/128', '2a0b:f4c2:0:0:0:0:0:2/128']);
  expect(out.entries).toBe(4);
});
