// Rule 6 of the hosting list (src/quality/hosting-list.ts): an ASN no list
// names joins the list when its organization name is exactly that of a kept
// row or of a curated hoster, under the same holds as listed ASNs, and only
// then.
import { describe, expect, it } from 'vitest';
import { compileHostingList, type HostingListInput } from '../../../src/quality/hosting-list.js';

const NAMES = new Map<number, string>([
  [64500, 'Example Hosting, LLC'], // listed by brianhama
  [64501, 'Example Hosting, LLC'], // unlisted sibling of a kept row
  [64502, 'Example Hosting LLC'], // not the same name: punctuation differs
  [64503, 'Curated Cloud Inc.'], // curated at low
  [64504, 'Curated Cloud Inc.'], // unlisted sibling of a curated hoster
  [64505, 'Edge Relay Corp'], // curated at high only
  [64506, 'Edge Relay Corp'], // sibling of a high-only entry: not a seed
  [64507, 'Shared Hosting Ltd'], // a listed carrier ...
  [64515, 'Shared Hosting Ltd'], // ... so its listed namesake is held
  [64516, 'Shared Hosting Ltd'], // ... and adds no sibling
  [64508, 'Example Hosting, LLC'], // sibling, dropped by the review
  [64509, 'Tunnel Net VPN SRL'], // listed by x4b-vpn
  [64510, 'Tunnel Net VPN SRL'], // sibling of a VPN row
  [64511, 'AS64511'], // placeholder names link nothing
  [64512, 'AS64511'],
  [64513, 'Mixed Hosting Telecom'], // listed, held for its carrier word (no review)
  [64514, 'Mixed Hosting Telecom'], // its sibling is held too
]);

const input = (over: Partial<HostingListInput> = {}): HostingListInput => ({
  lists: {
    brianhama: new Map([
      [64500, 'Example Hosting'],
      [64511, ''],
      [64513, 'Mixed Hosting Telecom'],
      [64515, 'Shared Hosting'],
    ]),
    'x4b-vpn': new Map([[64509, 'Tunnel Net']]),
  },
  names: NAMES,
  carrierWords: ['telecom'],
  carriers: new Set([64507]),
  curated: new Set([64503, 64505]),
  curatedHosters: new Map([[64503, 'hosting']]),
  review: new Map([[64508, { decision: 'drop', category: '' }]]),
  ...over,
});

describe('hosting list siblings (rule 6)', () => {
  const { rows, stale } = compileHostingList(input());
  const byAsn = new Map(rows.map((r) => [r.asn, r]));

  it('adds the unlisted ASNs of a kept row and of a curated hoster, with source sibling', () => {
    expect(byAsn.get(64501)).toEqual({ asn: 64501, name: 'Example Hosting, LLC', category: 'hosting', sources: 'sibling' });
    expect(byAsn.get(64504)).toEqual({ asn: 64504, name: 'Curated Cloud Inc.', category: 'hosting', sources: 'sibling' });
  });

  it("gives a sibling its sibling's category", () => {
    expect(byAsn.get(64509)?.category).toBe('vpn');
    expect(byAsn.get(64510)).toEqual({ asn: 64510, name: 'Tunnel Net VPN SRL', category: 'vpn', sources: 'sibling' });
  });

  it('links exact names only, never a high-only curated entry or a placeholder name', () => {
    for (const asn of [64502, 64506, 64512]) expect(byAsn.has(asn), `AS${asn}`).toBe(false);
  });

  it('keeps carriers, review drops and held names out of the siblings too', () => {
    for (const asn of [64507, 64508, 64513, 64514, 64515, 64516]) expect(byAsn.has(asn), `AS${asn}`).toBe(false);
  });

  it('counts a review entry for a sibling as current, not stale', () => {
    expect(stale).toEqual([]);
  });

  it('adds nothing when no organization is shared', () => {
    const alone = compileHostingList(input({ names: new Map([...NAMES].filter(([asn]) => ![64501, 64504, 64510].includes(asn))) }));
    expect(alone.rows.filter((r) => r.sources === 'sibling')).toEqual([]);
  });
});
