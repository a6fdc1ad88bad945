// A feed's memory (feeds/recent.ts: the exits its data held in the last week
// and the newest download lacks) spares the carriers, as `hosting`
// aggregates do: a relay that left a subscriber line's address days ago may
// have handed it to the next subscriber. The current lists still apply
// there, another feed's too where the memory holds the same address, and the
// memory still applies everywhere else, on transit networks (high-only,
// which `hosting` aggregates spare) too.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { IpDatabase } from '../../../src/ipdb/database.js';
import { buildFromTexts, removeTemps } from '../../helpers/fixture.js';

let db: IpDatabase;

// 64530 is carrier-named; 701 is a carrier by the built-in list only (here
// under a name with no carrier word); 64533 stands for a transit network.
const ASNS = `\
11.1.0.0,11.1.0.255,64530,Kiwi Mobile Limited
11.2.0.0,11.2.0.255,701,Example Networks
11.3.0.0,11.3.0.255,64532,Gamma Hosting
11.4.0.0,11.4.0.255,64533,Example Transit
`;

beforeAll(() => {
  const seen = '2026-08-20T10:00:00.000Z';
  const remembered = ['11.1.0.10', '11.2.0.10', '11.3.0.10', '11.4.0.10'].map((a) => `${a}/32 ${seen}\n`).join('');
  ({ db } = buildFromTexts(ASNS, (file) => [
    {
      name: 'tor', label: 'tor', format: 'cidr-lines', version: 'v1', fetchedAt: 0,
      files: [file('tor.txt', '11.1.0.9\n11.2.0.9\n')],
      recent: file('tor.recent', `# tor: remembered\n${remembered}11.1.0.20/32 ${seen}\n11.1.0.30/32 ${seen}\n`),
    },
    // Later feeds, so that the memory's address would win a tie with them.
    { name: 'tor-onionoo', label: 'tor', format: 'cidr-lines', version: 'v1', fetchedAt: 0, files: [file('onionoo.txt', '11.1.0.20\n')] },
    { name: 'mullvad', label: 'vpn', format: 'cidr-lines', version: 'v1', fetchedAt: 0, files: [file('mullvad.txt', '11.1.0.16/28\n')] },
  ], { excludeAsns: [64533] }));
});
afterAll(() => {
  db?.close();
  removeTemps();
});

const feedAt = (ip: string) => db.rangeFeed(db.lookupText(ip))?.name ?? null;

it('leaves a remembered exit on a carrier out, by name and by the carrier list', () => {
  expect(feedAt('11.1.0.10')).toBeNull();
  expect(feedAt('11.2.0.10')).toBeNull();
  expect(db.asn(db.lookupText('11.1.0.10'))).toBe(64530);
});

it('leaves the other feeds\' current lists under a remembered exit on a carrier', () => {
  expect(feedAt('11.1.0.20')).toBe('tor-onionoo');
  expect(feedAt('11.1.0.30')).toBe('mullvad');
});

it('keeps the current list on carriers and the memory elsewhere', () => {
  expect(feedAt('11.1.0.9')).toBe('tor');
  expect(feedAt('11.2.0.9')).toBe('tor');
  expect(feedAt('11.3.0.10')).toBe('tor');
  expect(feedAt('11.4.0.10')).toBe('tor');
});
