// The word stems' false friends (keywords.json false_friends and notes):
// organizations whose names hold a hosting stem inside a word that means
// something else are not intercepted at any level, through the real lists and
// the real classifier. Names as ip-location-db spells them; ASNs from the
// private range (so the name alone decides) unless the point is the real ASN.
import { describe, expect, it } from 'vitest';
import { Classifier } from '../../../src/quality/classifier.js';
import { KeywordSet, words } from '../../../src/quality/keywords.js';
import { builtInLists } from '../../../src/quality/lists.js';
import { classifierOverNames, syntheticDatabase } from '../../helpers/synthetic-ipdb.js';

const lists = builtInLists();
const kw = lists.keywords;
const NEVER = { low: false, medium: false, high: false };

// [organization, its real ASN, why it is not a hoster]
const FRIENDS: [string, string, string][] = [
  ['Echostar Purchasing Corporation', 'AS23354', '"echostar": satellite TV'],
  ['Elderhostel, Inc.', 'AS27614', '"elderhostel": a travel non-profit'],
  ['Example Hostel Group', '-', '"hostel": lodging (no ASN today)'],
  ['Hostelworld Group', '-', '"hostelworld": hostel booking (no ASN today)'],
  ['Baker & Hostetler, LLP', 'AS35989', '"hostetler": a law firm'],
  ['Ghost Network', 'AS63799', '"ghost"'],
  ['GHOST Telecom', 'AS270251', '"ghost"'],
  ['FIBERHOST S.A.', 'AS39834', '"fiberhost": a fibre-network operator'],
  ['Wasserversorgung Bayerischer Wald', 'AS57684', '"wasserversorgung": a water utility'],
  ['Wasserverband Nord', 'AS214187', '"wasserverband": a water authority'],
  ['Example Observer Media', '-', '"observer" (no ASN today)'],
  ['pCloud AG', 'AS51154', '"pcloud": storage SaaS'],
  ['InvestCloud, Inc.', 'AS398880', '"investcloud": fintech SaaS'],
  ['CloudCall LTD', 'AS197669', '"cloudcall": telephony SaaS'],
  ['SoundCloud Management GmbH', 'AS197157', '"soundcloud": audio SaaS'],
  ['MIXCLOUD LTD', 'AS198892', '"mixcloud": audio SaaS'],
  ['JobCloud SA', 'AS41766', '"jobcloud": a job portal'],
  ['icloud telecom limited', 'AS141724', '"icloud"'],
  ['CLOUDISP-AS-IN - ONBLUECLOUD INFOTECH PVT LTD', 'AS134018', '"onbluecloud": an ISP'],
  ['HAProxy Technologies, Inc.', 'AS11019', '"haproxy": load-balancer software'],
  ['Colombia Example S.A.', '-', '"colombia" (no colo stem)'],
  ['University of Colorado Denver', 'AS16519', '"colorado" (no colo stem)'],
  ['Cable Televisora Color', 'AS52436', '"color", a cable ISP (no colo stem)'],
  ['Fastweb SpA', 'AS12874', '"fastweb", a carrier (no web stem)'],
  ['Digiweb ltd', 'AS31122', '"digiweb", an ISP (no web stem)'],
  ['Webpass Inc.', 'AS19165', '"webpass", Google Fiber (no web stem)'],
  ['Australian Rail Track Corporation', 'AS132492', '"track" (no rack stem)'],
  ['Midcontinent Communications', 'AS11232', '"midcontinent", a cable carrier (no *idc* stem)'],
];

const named = classifierOverNames(FRIENDS.map(([org]) => org), 64800, lists);

describe('false friends', () => {
  it.each(FRIENDS)('%s (%s) is not intercepted at any level: %s', (name) => {
    const ws = words(name);
    expect(new KeywordSet(kw.strong, kw.false_friends).match(ws)).toBeNull();
    expect(new KeywordSet(kw.weak, kw.false_friends).match(ws)).toBeNull();
    expect(new KeywordSet(kw.vpn_proxy, kw.false_friends).match(ws)).toBeNull();
    const r = named.check(name, 'high');
    expect(r.intercept).toEqual(NEVER);
    expect(r.signals.org_keyword).toBeNull();
    expect(r.signals.vpn_proxy).toBeNull();
    expect(r.category === 'other' || r.category === 'carrier').toBe(true);
  });

  it('the ones a stem would reach are guarded by false_friends, not by luck', () => {
    // Without the guard list the stems would hit these names.
    const unguarded = new KeywordSet([...kw.strong, ...kw.vpn_proxy]);
    const reached = FRIENDS.map(([name]) => name).filter((name) => unguarded.match(words(name)) !== null);
    expect(reached.sort()).toEqual(
      [
        'Baker & Hostetler, LLP',
        'CLOUDISP-AS-IN - ONBLUECLOUD INFOTECH PVT LTD',
        'Example Hostel Group',
        'Example Observer Media',
        'FIBERHOST S.A.',
        'GHOST Telecom',
        'Ghost Network',
        'Hostelworld Group',
        'InvestCloud, Inc.',
        'JobCloud SA',
        'MIXCLOUD LTD',
        'SoundCloud Management GmbH',
        'icloud telecom limited',
        'pCloud AG',
      ].sort(),
    );
    for (const w of ['echostar', 'elderhostel', 'wasserversorgung', 'wasserverband', 'colombia', 'colorado', 'color', 'netcologne', 'fastweb', 'digiweb', 'webpass', 'track', 'cloudflare', 'pcloud', 'cloudcall', 'investcloud', 'haproxy']) {
      expect(kw.false_friends, w).toContain(w);
    }
  });
});

describe('Cloudflare and the other relay and CDN networks', () => {
  it('no keyword hits the name of a blacklist entry that intercepts only at high, so they stay high-only', () => {
    const high = lists.blacklist.filter((e) => e.level === 'high');
    expect(high.map((e) => e.asn)).toEqual(expect.arrayContaining([13335, 54113, 20940, 16625, 36183, 62044, 398391, 174, 6939, 3561, 31034]));
    for (const e of high) {
      const ws = words(e.provider);
      expect(new KeywordSet(kw.strong, kw.false_friends).match(ws), e.provider).toBeNull();
      expect(new KeywordSet(kw.vpn_proxy, kw.false_friends).match(ws), e.provider).toBeNull();
    }
  });

  it('"Cloudflare, Inc." on AS13335 is intercepted at high only', () => {
    const cf = { asn: 13335, org: 'Cloudflare, Inc.' };
    const db = syntheticDatabase([cf]);
    try {
      const r = new Classifier(db.db, lists, lists.blacklist).check(db.ipOf(cf), 'medium')!;
      expect(r.intercept).toEqual({ low: false, medium: false, high: true });
      expect(r.signals.org_keyword).toBeNull();
    } finally {
      db.db.close();
    }
  });
});
