// Hosting brands (keywords.json hosting_brands): operators whose many ASNs
// carry no hosting word in their names are caught at medium by the brand,
// through the real lists and the real classifier; a carrier word still
// spares a name, and the brands are whole words, never stems.
// Organizations carry an ASN from the private range, so the name alone decides.
import { describe, expect, it } from 'vitest';
import { KeywordSet, words } from '../../../src/quality/keywords.js';
import { builtInLists } from '../../../src/quality/lists.js';
import { classifierOverNames } from '../../helpers/synthetic-ipdb.js';

const lists = builtInLists();
const kw = lists.keywords;

// [organization as ip-location-db spells it (its real ASN), the brand expected]
const BRANDED: [string, string, string][] = [
  ['xTom Japan Corporation', 'AS3258', 'xtom'],
  ['M247 UK Ltd', 'AS16247', 'm247'],
  ['SCALEWAY S.A.S.', 'AS29447', 'scaleway'],
  ['Internet Vikings International AB', 'AS51747', 'internet vikings'],
  ['Atlantic.net, Inc.', 'AS6364', 'atlantic net'],
  ['Ellada Projects B.V. trading as Netrouting', 'AS47869', 'netrouting'],
  ['Leaseweb USA, Inc.', 'AS395954', 'leaseweb'],
  ['GoDaddy.com, LLC', 'AS398101', 'godaddy'],
  ['Amazon.com Services, LLC', 'AS62785', 'amazon com services'],
  ['PremierDC Veri Merkezi Anonim Sirketi', 'AS42910', 'veri merkezi'],
];
// Names a brand must not catch: [organization (its real ASN), why].
const SPARED: [string, string, string][] = [
  ['xTom Global Telecom Inc.', 'AS50967', 'a carrier word still spares a brand'],
  ['AMAZON+ SERVICOS DE INTERNET LTDA', 'AS264167', 'a Brazilian ISP: no bare "amazon" brand'],
  ['Strato One Networks', 'AS54785', 'only "strato ag" is a brand'],
  ['Leibniz-Rechenzentrum', 'AS12816', 'a university computing centre: no "rechenzentrum"'],
  ['Steadfast Financial LP', 'AS10661', 'no "steadfast"'],
];

const named = classifierOverNames([...BRANDED, ...SPARED].map(([org]) => org), 64800, lists);

describe('hosting brands', () => {
  it.each(BRANDED)('%s (%s) is intercepted from medium by %s', (name, _asn, brand) => {
    const r = named.check(name, 'medium');
    expect(r.intercept).toEqual({ low: false, medium: true, high: true });
    expect(r.category).toBe('datacenter');
    expect(r.signals.org_keyword).toBe(brand);
  });

  it.each(SPARED)('%s (%s) is not intercepted: %s', (name) => {
    const r = named.check(name, 'medium');
    expect(r.intercept).toEqual({ low: false, medium: false, high: false });
  });

  it('are appended to the strong words, whole words only', () => {
    expect(kw.hosting_brands.length).toBeGreaterThan(50);
    expect(kw.strong.slice(-kw.hosting_brands.length)).toEqual(kw.hosting_brands);
    for (const b of kw.hosting_brands) expect(b).not.toContain('*');
  });

  it('match no built-in carrier\'s organization name', () => {
    const brands = new KeywordSet(kw.hosting_brands);
    expect(lists.carriers.filter((c) => brands.match(words(c.name)) !== null).map((c) => c.name)).toEqual([]);
  });
});
