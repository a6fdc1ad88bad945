// The interception levels of contract §6, on a small database whose
// organizations each trigger one rule, with the real keyword and carrier
// lists and a blacklist chosen by the test:
//   off     nothing;
//   low     the ASN blacklist only (entries marked "high" only at high);
//   medium  + strong and VPN/proxy keywords, each subject to the carrier whitelist;
//   high    + weak keywords (also subject to the whitelist).
// Explicit carrier ASNs are never intercepted by a keyword; addresses not in
// the database are never intercepted. Checked on both faces of the
// classifier: check() (the API's result object) and verdict() (the hot path's
// RULE_* code).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ActiveBlacklistEntry,
  type CheckResult,
  Classifier,
  RULE_ASN_BLACKLIST,
  RULE_CARRIER_WHITELIST,
  RULE_ORG_KEYWORD,
  RULE_PASS,
  RULE_VPN_PROXY,
} from '../../../src/quality/classifier.js';
import { builtInLists, LEVELS, type Level } from '../../../src/quality/lists.js';
import { removeTemps } from '../../helpers/fixture.js';
import { type SyntheticDatabase, syntheticDatabase, type SyntheticOrg } from '../../helpers/synthetic-ipdb.js';

const lists = builtInLists();
const carrierAsns = new Set(lists.carriers.map((c) => c.asn));
// Real carrier ASNs (from carrier-asns.json), used with names that hold no carrier word.
const COMCAST = 7922;
const DTAG = 3320;

const O = {
  blLow: { asn: 64600, org: 'Plain Name One' },
  blMedium: { asn: 64601, org: 'Plain Name Two' },
  blHigh: { asn: 64602, org: 'Plain Relay Three' },
  blVpn: { asn: 64603, org: 'Plain Name Four' },
  blOnCarrier: { asn: DTAG, org: 'Deutsche Example AG' },
  strong: { asn: 64610, org: 'Example Hosting Ltd' },
  vpn: { asn: 64611, org: 'Example VPN Services' },
  proxy: { asn: 64612, org: 'Example Proxy Sellers' },
  weak: { asn: 64613, org: 'Example CDN Ltd' },
  strongAndVpn: { asn: 64614, org: 'Example VPN Hosting' },
  strongCarrierWord: { asn: 64620, org: 'Example Telecom Hosting' },
  vpnCarrierWord: { asn: 64621, org: 'Example Mobile VPN' },
  weakCarrierWord: { asn: 64622, org: 'Example Fiber CDN' },
  carrierAsnKeywords: { asn: COMCAST, org: 'Example Cloud Hosting VPN Servers' },
  carrierWordOnly: { asn: 64623, org: 'Example Broadband' },
  plain: { asn: 64630, org: 'Example Widgets' },
} satisfies Record<string, SyntheticOrg>;

const BLACKLIST: ActiveBlacklistEntry[] = [
  { asn: O.blLow.asn, category: 'hosting', level: 'low' },
  { asn: O.blMedium.asn, category: 'cloud', level: 'medium' },
  { asn: O.blHigh.asn, category: 'cdn', level: 'high' },
  { asn: O.blVpn.asn, category: 'vpn', level: 'low' },
  { asn: O.blOnCarrier.asn, category: 'datacenter', level: 'low' },
];

let synthetic: SyntheticDatabase;
let classifier: Classifier;

beforeAll(() => {
  expect(carrierAsns.has(COMCAST)).toBe(true);
  expect(carrierAsns.has(DTAG)).toBe(true);
  for (const o of Object.values(O)) {
    if (o.asn !== COMCAST && o.asn !== DTAG) expect(carrierAsns.has(o.asn)).toBe(false);
  }
  synthetic = syntheticDatabase(Object.values(O));
  classifier = new Classifier(synthetic.db, lists, BLACKLIST);
});

afterAll(() => {
  synthetic?.db.close();
  removeTemps();
});

function check(ip: string, level: Level): CheckResult {
  const r = classifier.check(ip, level);
  if (!r) throw new Error(`${ip} was not accepted as an address`);
  return r;
}

/** Index 0..3 = off, low, medium, high. */
type Row = [SyntheticOrg, verdicts: [number, number, number, number], category: CheckResult['category'], signals: CheckResult['signals']];

const P = RULE_PASS;
const BL = RULE_ASN_BLACKLIST;
const KW = RULE_ORG_KEYWORD;
const VP = RULE_VPN_PROXY;
const WL = RULE_CARRIER_WHITELIST;
const sig = (asn_blacklist: boolean, org_keyword: string | null, vpn_proxy: string | null, carrier_whitelist: string | null) => ({
  asn_blacklist,
  org_keyword,
  vpn_proxy,
  carrier_whitelist,
  // No feed in this synthetic database, and no user agent asked.
  range_feed: null,
  user_agent: null,
});

const TABLE: [string, Row][] = [
  ['blacklist, level low', [O.blLow, [P, BL, BL, BL], 'datacenter', sig(true, null, null, null)]],
  ['blacklist, level medium', [O.blMedium, [P, P, BL, BL], 'datacenter', sig(true, null, null, null)]],
  ['blacklist, level high (CDN)', [O.blHigh, [P, P, P, BL], 'datacenter', sig(true, null, null, null)]],
  ['blacklist, VPN category', [O.blVpn, [P, BL, BL, BL], 'vpn_proxy', sig(true, null, null, null)]],
  ['blacklist on an explicit carrier ASN', [O.blOnCarrier, [P, BL, BL, BL], 'datacenter', sig(true, null, null, null)]],
  ['strong keyword', [O.strong, [P, P, KW, KW], 'datacenter', sig(false, 'hosting', null, null)]],
  ['VPN keyword', [O.vpn, [P, P, VP, VP], 'vpn_proxy', sig(false, null, 'vpn', null)]],
  ['proxy keyword', [O.proxy, [P, P, VP, VP], 'vpn_proxy', sig(false, null, 'proxy', null)]],
  ['weak keyword', [O.weak, [P, P, P, KW], 'other', sig(false, 'cdn', null, null)]],
  ['strong and VPN keywords', [O.strongAndVpn, [P, P, VP, VP], 'vpn_proxy', sig(false, 'hosting', 'vpn', null)]],
  ['strong keyword + carrier word', [O.strongCarrierWord, [P, P, WL, WL], 'carrier', sig(false, 'hosting', null, 'telecom')]],
  ['VPN keyword + carrier word', [O.vpnCarrierWord, [P, P, WL, WL], 'carrier', sig(false, null, 'vpn', 'mobile')]],
  ['weak keyword + carrier word', [O.weakCarrierWord, [P, P, P, WL], 'carrier', sig(false, 'cdn', null, 'fiber')]],
  ['keywords on an explicit carrier ASN', [O.carrierAsnKeywords, [P, P, WL, WL], 'carrier', sig(false, 'cloud', 'vpn', `AS${COMCAST}`)]],
  ['carrier word, no keyword', [O.carrierWordOnly, [P, P, P, P], 'carrier', sig(false, null, null, null)]],
  ['no signal', [O.plain, [P, P, P, P], 'other', sig(false, null, null, null)]],
];

describe.each(TABLE)('%s', (_name, [org, verdicts, category, signals]) => {
  it.each(LEVELS.map((level, i) => [level, i] as const))('at %s', (level, i) => {
    const ip = synthetic.ipOf(org);
    const r = check(ip, level);
    const stops = (v: number) => v === BL || v === KW || v === VP;
    const intercept = { low: stops(verdicts[1]), medium: stops(verdicts[2]), high: stops(verdicts[3]) };
    expect(r).toEqual({
      ip,
      version: 4,
      found: true,
      asn: org.asn,
      organization: org.org,
      range: synthetic.rangeOf(org),
      category,
      signals,
      intercept,
      level,
      intercepted: level === 'off' ? false : intercept[level],
      database: { version: 'synthetic-1', built_at: '1970-01-01T00:00:00.000Z' },
    });
    const record = synthetic.db.lookupText(ip);
    expect(record).toBeGreaterThan(0);
    expect(classifier.verdict(record, i)).toBe(verdicts[i]);
  });
});

describe('addresses not in the database', () => {
  it.each(['11.1.0.1', '192.0.2.1', '0.0.0.0', '255.255.255.255', '::ffff:192.0.2.1', '2001:db8::1', '::'])('%s is never intercepted', (ip) => {
    for (const [i, level] of LEVELS.entries()) {
      const r = check(ip, level);
      expect(r).toEqual({
        ip,
        version: ip.includes(':') && !ip.startsWith('::ffff:') ? 6 : 4,
        found: false,
        asn: null,
        organization: null,
        range: null,
        category: 'unknown',
        signals: sig(false, null, null, null),
        intercept: { low: false, medium: false, high: false },
        level,
        intercepted: false,
        database: { version: 'synthetic-1', built_at: '1970-01-01T00:00:00.000Z' },
      });
      expect(classifier.verdict(0, i)).toBe(RULE_PASS);
    }
  });
});

describe('off', () => {
  it('intercepts nothing, whatever the record', () => {
    for (let record = 0; record < synthetic.db.recordCount; record++) expect(classifier.verdict(record, 0)).toBe(RULE_PASS);
  });
});

describe('an IPv4-mapped address', () => {
  it('gets the IPv4 answer, with ip echoing the input', () => {
    const plain = check(synthetic.ipOf(O.strong), 'medium');
    const mapped = check(`::ffff:${synthetic.ipOf(O.strong)}`, 'medium');
    expect(mapped).toEqual({ ...plain, ip: `::ffff:${synthetic.ipOf(O.strong)}` });
    expect(mapped.version).toBe(4);
  });
});

describe('text that is not an address', () => {
  it.each(['', '11.0.0', '11.0.0.256', '011.0.0.1', '::g', 'example.com'])('%j gives null', (text) => {
    expect(classifier.check(text, 'medium')).toBeNull();
  });
});
