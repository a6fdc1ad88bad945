// The keyword misfires measured on the real data set (research ip-anchors.md
// §3.7) must not come back: each name below is run through the real lists
// (src/quality/lists/keywords.json, carrier-asns.json, asn-blacklist.json),
// first as words, then through the classifier over a small database holding
// exactly these organizations.
//
// Organizations with an ASN from the private range (64512-65534, on no list)
// are decided by their name alone; the few with a real ASN are there to show
// the blacklist deciding.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Classifier, type CheckResult } from '../../../src/quality/classifier.js';
import { KeywordSet, words } from '../../../src/quality/keywords.js';
import { builtInLists, type Level } from '../../../src/quality/lists.js';
import { removeTemps } from '../../helpers/fixture.js';
import { type SyntheticDatabase, syntheticDatabase, type SyntheticOrg } from '../../helpers/synthetic-ipdb.js';

const lists = builtInLists();
const kw = lists.keywords;
const strong = new KeywordSet(kw.strong);
const weak = new KeywordSet(kw.weak);
const vpn = new KeywordSet(kw.vpn_proxy);
const carrier = new KeywordSet(kw.carrier);

const ORGS = {
  colombiaMovil: { asn: 64512, org: 'COLOMBIA MOVIL' },
  colombiaTelecom: { asn: 64513, org: 'Colombia Telecomunicaciones S.A. ESP' },
  colombiaPlain: { asn: 64514, org: 'Colombia Example S.A.' },
  bancolombia: { asn: 64515, org: 'BANCOLOMBIA S.A' },
  netCologne: { asn: 64516, org: 'NetCologne Gesellschaft fur Telekommunikation mbH' },
  colorado: { asn: 64517, org: 'University of Colorado at Boulder' },
  vodafoneData: { asn: 64518, org: 'Vodafone Data' },
  vodafoneEgypt: { asn: 64519, org: 'Vodafone Data - Egypt' },
  hathway: { asn: 64520, org: 'Hathway IP Over Cable Internet' },
  hathwayDatacom: { asn: 64521, org: 'HATHWAY CABLE AND DATACOM LIMITED' },
  penTeleData: { asn: 64522, org: 'PenTeleData Inc.' },
  computingCentre: { asn: 64523, org: 'University of Zagreb University Computing Centre' },
  computerCenter: { asn: 64524, org: 'Vienna University Computer Center' },
  universityCompute: { asn: 64525, org: 'Example University Compute Cluster' },
  ote: { asn: 64526, org: 'OTE Anonymi Etaireia' },
  dei: { asn: 64527, org: 'Dimosia Epicheirisi Ilektrismou Anonymi Etaireia' },
  haproxy: { asn: 64528, org: 'HAProxy Technologies, Inc.' },
  // Hosters whose names carry "Internet": it is not a carrier word.
  sakura: { asn: 9370, org: 'SAKURA Internet Inc.' },
  gmo: { asn: 7506, org: 'GMO Internet Group, Inc.' },
  kingsoftUnlisted: { asn: 64529, org: 'Beijing Kingsoft Cloud Internet Technology Co., Ltd' },
  internetHosting: { asn: 64530, org: 'Example Internet Hosting Servers' },
  // A carrier word cancels a 'cloud' hit...
  telecomCloud: { asn: 64531, org: 'XYZ Telecom Cloud' },
  // ...but not a hosting word (outweigh_carrier), and never a blacklisted ASN
  // (214238 "HOST TELECOM LTD" is on the built-in list).
  telecomHosting: { asn: 64532, org: 'XYZ Telecom Hosting' },
  hostTelecom: { asn: 214238, org: 'HOST TELECOM LTD' },
} satisfies Record<string, SyntheticOrg>;

let synthetic: SyntheticDatabase;
let classifier: Classifier;

beforeAll(() => {
  synthetic = syntheticDatabase(Object.values(ORGS));
  classifier = new Classifier(synthetic.db, lists, lists.blacklist);
});

afterAll(() => {
  synthetic?.db.close();
  removeTemps();
});

function check(o: SyntheticOrg, level: Level = 'medium'): CheckResult {
  const r = classifier.check(synthetic.ipOf(o), level);
  if (!r) throw new Error(`no result for ${o.org}`);
  expect(r.found).toBe(true);
  expect(r.asn).toBe(o.asn);
  expect(r.organization).toBe(o.org);
  return r;
}

const NEVER = { low: false, medium: false, high: false };

describe('the lists themselves', () => {
  it('hold none of the words that misfired: data, colo as a substring, computer(ing), anonym(ous), internet', () => {
    const all = [...kw.strong, ...kw.weak, ...kw.vpn_proxy];
    for (const w of ['data', 'datacom', 'computer', 'computing', 'anonym', 'anonymous', 'anonymi', 'privat', 'private', 'nord', 'express', 'proton', 'tunnel', 'tor']) {
      expect(all, w).not.toContain(w);
    }
    for (const w of ['internet', 'net', 'network', 'networks', 'online', 'communications', 'chinanet', 'unicom']) {
      expect(kw.carrier, w).not.toContain(w);
    }
  });
});

describe('Colombian carriers and other "colo…" names', () => {
  it.each([ORGS.colombiaMovil, ORGS.colombiaTelecom, ORGS.colombiaPlain, ORGS.bancolombia, ORGS.netCologne, ORGS.colorado])(
    '$org matches no hosting word, even the weak "colo"',
    (o) => {
      const ws = words(o.org);
      expect(strong.match(ws)).toBeNull();
      expect(weak.match(ws)).toBeNull();
      expect(vpn.match(ws)).toBeNull();
      const r = check(o, 'high');
      expect(r.intercept).toEqual(NEVER);
      expect(r.intercepted).toBe(false);
      expect(r.signals).toEqual({ asn_blacklist: false, org_keyword: null, vpn_proxy: null, carrier_whitelist: null, range_feed: null, user_agent: null });
    },
  );

  it('names the carrier words of the two carriers, so they classify as carriers', () => {
    expect(carrier.match(words(ORGS.colombiaMovil.org))).toBe('movil');
    expect(carrier.match(words(ORGS.colombiaTelecom.org))).toBe('telecomunicaciones');
    expect(check(ORGS.colombiaMovil).category).toBe('carrier');
    expect(check(ORGS.colombiaTelecom).category).toBe('carrier');
    expect(check(ORGS.colombiaPlain).category).toBe('other');
  });

  it('still intercepts a real colocation firm at high ("colo" as a whole word)', () => {
    expect(weak.match(words('Colo Solutions'))).toBe('colo');
    expect(strong.match(words('Example Colocation GmbH'))).toBe('colocation');
  });
});

describe('"Data" in carrier names', () => {
  it.each([ORGS.vodafoneData, ORGS.vodafoneEgypt, ORGS.hathway, ORGS.hathwayDatacom, ORGS.penTeleData])('$org is never intercepted', (o) => {
    const ws = words(o.org);
    expect(strong.match(ws)).toBeNull();
    expect(weak.match(ws)).toBeNull();
    const r = check(o, 'high');
    expect(r.intercept).toEqual(NEVER);
    expect(r.signals.org_keyword).toBeNull();
    expect(r.signals.carrier_whitelist).toBeNull(); // no keyword hit, so nothing to cancel
  });

  it('classifies Vodafone Data and Hathway as carriers by their carrier words', () => {
    expect(carrier.match(words(ORGS.vodafoneData.org))).toBe('vodafone');
    expect(carrier.match(words(ORGS.hathway.org))).toBe('cable');
    expect(check(ORGS.vodafoneData).category).toBe('carrier');
    expect(check(ORGS.hathway).category).toBe('carrier');
  });
});

describe('university computer centres', () => {
  it.each([ORGS.computingCentre, ORGS.computerCenter])('$org is never intercepted', (o) => {
    const r = check(o, 'high');
    expect(r.intercept).toEqual(NEVER);
    expect(r.category).toBe('other');
    expect(r.signals).toEqual({ asn_blacklist: false, org_keyword: null, vpn_proxy: null, carrier_whitelist: null, range_feed: null, user_agent: null });
  });

  it('a university "Compute" name is not intercepted at medium; "compute" is weak, so only high takes it', () => {
    const medium = check(ORGS.universityCompute, 'medium');
    expect(medium.intercepted).toBe(false);
    expect(medium.intercept).toEqual({ low: false, medium: false, high: true });
    expect(medium.signals.org_keyword).toBe('compute');
    expect(medium.category).toBe('other');
    expect(kw.weak).toContain('compute');
    expect(kw.strong).not.toContain('compute');
  });
});

describe('VPN/proxy words inside other words', () => {
  it.each([ORGS.ote, ORGS.dei])('$org (Greek company form "Anonymi Etaireia") is not flagged', (o) => {
    expect(vpn.match(words(o.org))).toBeNull();
    const r = check(o, 'high');
    expect(r.intercept).toEqual(NEVER);
    expect(r.category).toBe('other');
    expect(r.signals.vpn_proxy).toBeNull();
  });

  it('"HAProxy Technologies" is not flagged as a proxy', () => {
    expect(words(ORGS.haproxy.org)).toEqual(['haproxy', 'technologies', 'inc']);
    expect(vpn.match(words(ORGS.haproxy.org))).toBeNull();
    const r = check(ORGS.haproxy, 'high');
    expect(r.intercept).toEqual(NEVER);
    expect(r.category).toBe('other');
    expect(r.signals).toEqual({ asn_blacklist: false, org_keyword: null, vpn_proxy: null, carrier_whitelist: null, range_feed: null, user_agent: null });
  });

  it('a real proxy seller is still flagged ("proxy" as a whole word)', () => {
    expect(vpn.match(words('Key-Proxy-Limited Key Proxy Limited'))).toBe('proxy');
  });
});

describe('"Internet" does not rescue hosters', () => {
  it('"internet" is no carrier word', () => {
    expect(carrier.match(words(ORGS.sakura.org))).toBeNull();
    expect(carrier.match(words(ORGS.gmo.org))).toBeNull();
    expect(carrier.match(words(ORGS.internetHosting.org))).toBeNull();
  });

  // SAKURA Internet's name is also a hosting brand (keywords.json hosting_brands), which its unlisted ASNs need; GMO's is not.
  it.each([
    { o: ORGS.sakura, keyword: 'sakura internet' },
    { o: ORGS.gmo, keyword: null },
  ])('$o.org is intercepted at medium (by its blacklisted ASN)', ({ o, keyword }) => {
    const r = check(o, 'medium');
    expect(r.intercepted).toBe(true);
    expect(r.intercept).toEqual({ low: true, medium: true, high: true });
    expect(r.category).toBe('datacenter');
    expect(r.signals).toEqual({ asn_blacklist: true, org_keyword: keyword, vpn_proxy: null, carrier_whitelist: null, range_feed: null, user_agent: null });
  });

  it.each([
    { o: ORGS.kingsoftUnlisted, word: 'cloud' },
    { o: ORGS.internetHosting, word: 'hosting' },
  ])('$o.org on an unlisted ASN is intercepted at medium by "$word"', ({ o, word }) => {
    const r = check(o, 'medium');
    expect(r.intercepted).toBe(true);
    expect(r.intercept).toEqual({ low: false, medium: true, high: true });
    expect(r.category).toBe('datacenter');
    expect(r.signals).toEqual({ asn_blacklist: false, org_keyword: word, vpn_proxy: null, carrier_whitelist: null, range_feed: null, user_agent: null });
  });
});

describe('a hoster with a carrier word', () => {
  it('"XYZ Telecom Cloud": the carrier whitelist cancels the keyword hit at every level', () => {
    const r = check(ORGS.telecomCloud, 'medium');
    expect(r.intercepted).toBe(false);
    expect(r.intercept).toEqual(NEVER);
    expect(r.category).toBe('carrier');
    expect(r.signals).toEqual({ asn_blacklist: false, org_keyword: 'cloud', vpn_proxy: null, carrier_whitelist: 'telecom', range_feed: null, user_agent: null });
  });

  it('"XYZ Telecom Hosting": "hosting" outweighs the carrier word, so it is intercepted from medium', () => {
    const r = check(ORGS.telecomHosting, 'medium');
    expect(r.intercepted).toBe(true);
    expect(r.intercept).toEqual({ low: false, medium: true, high: true });
    expect(r.category).toBe('datacenter');
    expect(r.signals).toEqual({ asn_blacklist: false, org_keyword: 'hosting', vpn_proxy: null, carrier_whitelist: null, range_feed: null, user_agent: null });
  });

  it('"HOST TELECOM LTD" on a blacklisted ASN is intercepted at low: the whitelist never cancels the blacklist', () => {
    const r = check(ORGS.hostTelecom, 'low');
    expect(r.intercepted).toBe(true);
    expect(r.intercept).toEqual({ low: true, medium: true, high: true });
    expect(r.category).toBe('datacenter');
    expect(r.signals.asn_blacklist).toBe(true);
    expect(r.signals.org_keyword).toBe('host');
    // The whitelist cancelled nothing (it cannot override the blacklist), so it is not reported.
    expect(r.signals.carrier_whitelist).toBeNull();
  });

  it('the same name on an ASN that is not listed is intercepted from medium by "host", which outweighs "telecom"', () => {
    // Proof that the blacklist, not the name, intercepts HOST TELECOM LTD at
    // low: a classifier without that entry intercepts it from medium only.
    const without = new Classifier(synthetic.db, lists, lists.blacklist.filter((e) => e.asn !== ORGS.hostTelecom.asn));
    const r = without.check(synthetic.ipOf(ORGS.hostTelecom), 'high')!;
    expect(r.intercept).toEqual({ low: false, medium: true, high: true });
    expect(r.signals).toEqual({ asn_blacklist: false, org_keyword: 'host', vpn_proxy: null, carrier_whitelist: null, range_feed: null, user_agent: null });
  });
});
