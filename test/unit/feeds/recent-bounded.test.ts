// A feed's memory of recent addresses holds at most 1,000,000 of them (what a
// feed file may hold), the oldest dropped first. It had no bound: a publisher
// rotating its whole list every hour grew it by the list's size each hour,
// and past the bound it could no longer be read back (the files review of
// 2026-11-27).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { recentAfter } from '../../../src/ipdb/feeds/recent.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-recent-bound-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-27T12:00:00Z');
const address = (i: number) => `11.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

it('keeps the newest 1,000,000 addresses and drops the oldest', () => {
  // A recent file at the bound, address i last seen i seconds before two hours ago.
  const recent = path.join(dir, 'recent.list');
  const lines: string[] = [];
  for (let i = 0; i < 1_000_000; i++) lines.push(`${address(i)}/32 ${new Date(NOW - 2 * HOUR - i * 1000).toISOString()}\n`);
  writeFileSync(recent, lines.join(''));
  // The previous download: ten addresses, last confirmed an hour ago, none in the new one.
  const previous = path.join(dir, 'previous.list');
  writeFileSync(previous, Array.from({ length: 10 }, (_, i) => `12.0.0.${i}`).join('\n'));
  const out = recentAfter({ files: [previous], format: 'cidr-lines', seenAt: NOW - HOUR, recent }, { v4: [], v6: [] }, NOW, 30, 'tor');
  expect(out.entries).toBe(1_000_000);
  expect(out.text).toContain('12.0.0.9/32 ');
  expect(out.text).toContain(`${address(999_989)}/32 `);
  expect(out.text).not.toContain(`${address(999_990)}/32 `);
}, 60_000);
