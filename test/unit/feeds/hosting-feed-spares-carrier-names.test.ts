// A `hosting` range feed (an aggregate of data-centre ranges compiled from
// ASN lists) spares the addresses of an organization named as a carrier,
// by the classifier's rule: a carrier word ("Mobile") counts unless a
// hosting word outweighs it ("PowerHost Telecom"). The Tor and VPN lists and
// the publishers' own ranges still apply there: an exit is an exit wherever
// it sits. So does a cloud's range under a narrower, spared aggregate range:
// the spared range does not hide it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { IpDatabase } from '../../../src/ipdb/database.js';
import type { FeedFile } from '../../../src/ipdb/feeds/state.js';
import { buildFromTexts, removeTemps } from '../../helpers/fixture.js';

let db: IpDatabase;

const ASNS = `\
11.1.0.0,11.1.0.255,64530,Kiwi Mobile Limited
11.2.0.0,11.2.0.255,64531,PowerHost Telecom
11.3.0.0,11.3.0.255,64532,Gamma Hosting
11.5.0.0,11.5.0.255,64535,Example Mobile
`;

beforeAll(() => {
  ({ db } = buildFromTexts(ASNS, (file) => {
    const feed = (name: string, label: FeedFile['label'], text: string): FeedFile => ({ name, label, format: 'cidr-lines', files: [file(`${name}.txt`, text)], version: 'v1', fetchedAt: 0 });
    return [
      feed('tor', 'tor', '11.1.0.9\n'),
      feed('aggregate', 'hosting', '11.1.0.0/24\n11.2.0.0/24\n11.3.0.0/24\n11.5.0.16/28\n'),
      feed('cloud', 'cloud', '11.5.0.0/24\n'),
    ];
  }));
});
afterAll(() => {
  db?.close();
  removeTemps();
});

const feedAt = (ip: string) => db.rangeFeed(db.lookupText(ip))?.name ?? null;

it('leaves a carrier-named organization out of a hosting aggregate', () => {
  expect(feedAt('11.1.0.1')).toBeNull();
  expect(db.asn(db.lookupText('11.1.0.1'))).toBe(64530);
});

it('keeps the aggregate where a hosting word outweighs the carrier word, and on hosters', () => {
  expect(feedAt('11.2.0.1')).toBe('aggregate');
  expect(feedAt('11.3.0.1')).toBe('aggregate');
});

it('keeps the Tor list on the carrier-named organization', () => {
  expect(feedAt('11.1.0.9')).toBe('tor');
});

it('keeps a cloud range under a spared aggregate range on a carrier', () => {
  expect(feedAt('11.5.0.17')).toBe('cloud');
  expect(feedAt('11.5.0.1')).toBe('cloud');
});
