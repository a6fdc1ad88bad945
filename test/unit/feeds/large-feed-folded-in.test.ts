// A feed of hundreds of thousands of entries (under the parser's cap of
// 1,000,000) is folded into the database. Its ranges were appended with
// push(...ranges): past some 100,000 arguments that overflows the stack, and
// a download of 600,000 addresses was recorded as "updated" while the build
// fell back to the feed's months-old snapshot (the files review of
// 2026-11-27). The Tor feeds' memory of recent exits can reach that size too.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IpDatabase } from '../../../src/ipdb/database.js';
import { buildFromFiles, type FileBuildReport, installDatabaseFile } from '../../../src/ipdb/files.js';

const COUNT = 600_000;
const address = (i: number) => `11.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
let dir: string;
let db: IpDatabase;
let report: FileBuildReport;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'splitguard-large-feed-'));
  const file = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const list = file('openai.txt', Array.from({ length: COUNT }, (_, i) => address(i)).join('\n'));
  const built = buildFromFiles([file('asn.csv', '11.0.0.0,11.255.255.255,64530,Example Hosting\n')], {
    sourceName: 'asn.csv',
    dataVersion: 'test',
    feeds: [{ name: 'openai', label: 'crawler', format: 'cidr-lines', files: [list], version: 'v2', fetchedAt: 0 }],
  });
  report = built.report;
  installDatabaseFile(built.bytes, path.join(dir, 'test.trie'));
  db = IpDatabase.open(path.join(dir, 'test.trie'));
}, 120_000);
afterAll(() => {
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('folds in every entry of a 600,000-address feed', () => {
  expect(report.feedErrors).toEqual([]);
  for (const i of [0, 1, 300_000, COUNT - 1]) expect(db.rangeFeed(db.lookupText(address(i)))?.name, address(i)).toBe('openai');
  expect(db.rangeFeed(db.lookupText(address(COUNT)))).toBeNull();
});
