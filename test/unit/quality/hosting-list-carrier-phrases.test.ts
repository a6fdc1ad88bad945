// The hosting list holds back a listed ASN whose name carries a carrier
// phrase of several words ("internet service provider", "banda larga") as it
// holds back one with a single carrier word: a phrase is matched as
// consecutive words of the name (src/quality/hosting-list.ts).
import { expect, it } from 'vitest';
import { compileHostingList } from '../../../src/quality/hosting-list.js';

const NAMES = new Map<number, string>([
  [64520, 'LinzNet Internet Service Provider GmbH'], // an ISP a public hosting list names
  [64521, 'IWserver Internet Banda Larga'], // the same, in Portuguese
  [64522, 'Example Internet Hosting Provider'], // the phrase's words, not the phrase
  [64523, 'Example Hosting Telecom'], // a single carrier word
]);

it('holds back listed ASNs whose names carry a carrier phrase, and only those', () => {
  const { rows, left } = compileHostingList({
    lists: { brianhama: new Map([...NAMES].map(([asn]) => [asn, ''])) },
    names: NAMES,
    carrierWords: ['telecom', 'internet service provider', 'banda larga'],
    carriers: new Set(),
    curated: new Set(),
    curatedHosters: new Map(),
    review: new Map(),
  });
  expect(rows.map((r) => r.asn)).toEqual([64522]);
  expect(left.undecided).toEqual([
    'AS64520 LinzNet Internet Service Provider GmbH [brianhama]: carrier word (internet service provider)',
    'AS64521 IWserver Internet Banda Larga [brianhama]: carrier word (banda larga)',
    'AS64523 Example Hosting Telecom [brianhama]: carrier word (telecom)',
  ]);
});
