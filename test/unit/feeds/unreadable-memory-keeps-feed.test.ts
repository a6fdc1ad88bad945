// A feed's memory (feeds/recent.ts) that cannot be read, empty or damaged,
// costs only the addresses it remembered: the feed's download is folded in
// all the same, and the build reports the memory. It left the whole feed out
// before, for its week-old snapshot or for nothing.
import { afterAll, expect, it } from 'vitest';
import type { FeedFile } from '../../../src/ipdb/feeds/state.js';
import { buildFromTexts, removeTemps } from '../../helpers/fixture.js';

afterAll(removeTemps);

const ASNS = '11.3.0.0,11.3.0.255,64532,Gamma Hosting\n';

it.each([
  ['holds no address', '# tor: addresses of the last 7 days no longer in the newest download\n'],
  ['is damaged', '11.3.0.10/32 2026-08-20T10:00:00.000Z\nnot an address\n'],
])('folds the download in when its memory %s, and says so', (_, memory) => {
  const { db, report } = buildFromTexts(ASNS, (file): FeedFile[] => [
    { name: 'tor', label: 'tor', format: 'cidr-lines', version: 'v1', fetchedAt: 0, files: [file('tor.txt', '11.3.0.9\n')], recent: file('tor.recent', memory) },
  ]);
  try {
    expect(db.rangeFeed(db.lookupText('11.3.0.9'))?.name).toBe('tor');
    expect(db.rangeFeed(db.lookupText('11.3.0.10'))).toBeNull();
    expect(report.feedErrors).toEqual([{ name: 'tor', error: expect.stringMatching(/^its memory: .*tor \(tor\.recent\).+; folded in without it$/) }]);
  } finally {
    db.close();
  }
});
