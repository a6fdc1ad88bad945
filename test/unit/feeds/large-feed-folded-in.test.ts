// A feed of hundreds of thousands of entries (under the parser's cap of
// 1,000,000) is folded into the database. Its ranges were appended with
// push(...ranges): past some 100,000 arguments that overflows the stack, and
// a download of 600,000 addresses was recorded as "updated" while the build
// fell back to the feed's months-old snapshot (the files review of
// 2026-11-27). The Tor feeds' memory of recent exits can reach that size too.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { IpDatabase } from '../../../src/ipdb/database.js';
import type { FileBuildReport } from '../../../src/ipdb/files.js';
import { buildFromTexts, removeTemps } from '../../helpers/fixture.js';

const COUNT = 600_000;
const address = (i: number) => `11.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
let db: IpDatabase;
let report: FileBuildReport;

beforeAll(() => {
  ({ db, report } = buildFromTexts('11.0.0.0,11.255.255.255,64530,Example Hosting\n', (file) => [
    { name: 'openai', label: 'crawler', format: 'cidr-lines', files: [file('openai.txt', Array.from({ length: COUNT }, (_, i) => address(i)).join('\n'))], version: 'v2', fetchedAt: 0 },
  ]));
}, 120_000);
afterAll(() => {
  db?.close();
  removeTemps();
});

it('folds in every entry of a 600,000-address feed', () => {
  expect(report.feedErrors).toEqual([]);
  for (const i of [0, 1, 300_000, COUNT - 1]) expect(db.rangeFeed(db.lookupText(address(i)))?.name, address(i)).toBe('openai');
  expect(db.rangeFeed(db.lookupText(address(COUNT)))).toBeNull();
});
