// The carrier whitelist re-examined (keywords.json outweigh_carrier): a
// carrier word no longer rescues an organization whose name also carries a
// host/hosting/datacenter/colocation/dedicated/idc word or stem ("PowerHost
// Telecom SPA" is a hoster); a carrier word still rescues names whose only
// hosting word is cloud/server/vps/vds, because carriers carry those too; and
// the explicit carrier ASN list still protects real carriers whatever their
// name (Afrihost, The Cloud Networks). Real lists, real classifier; names
// as ip-location-db spells them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Classifier } from '../../../src/quality/classifier.js';
import { builtInLists } from '../../../src/quality/lists.js';
import { removeTemps } from '../../helpers/fixture.js';
import { type SyntheticDatabase, syntheticDatabase, type SyntheticOrg } from '../../helpers/synthetic-ipdb.js';

const lists = builtInLists();
const NEVER = { low: false, medium: false, high: false };

// Hosters with a carrier word, on ASNs from the private range: [name, real ASN, keyword].
const HOSTERS: [string, string, string][] = [
  ['PowerHost Telecom SPA', 'AS263237', '*host'],
  ['Markahost Telekomunikasyon Ve Ticaret Limited Sirketi', 'AS207279', '*host'],
  ['Bogahost Bilisim ve Telekomunikasyon Hiz San ve Tic. Ltd. Sti', 'AS200239', '*host'],
  ['HOST TELECOM LTD', 'AS214238', 'host'],
  ['Host-Telecom.com s.r.o.', 'AS51248', 'host'],
  ['Broadband Hosting B.V.', 'AS62097', 'hosting'],
  ['HOSTING TELECOM LTD', 'AS39150', 'hosting'],
  ['TELECOMUNICACIONES HOSTINGNET SpA', 'AS272144', 'host*'],
  ['Ubx Datacenter e Telecomunicacoes LTDA', 'AS26616', 'datacenter'],
  ['ISP Datacenter SARL', 'AS206522', 'datacenter'],
  ['Dedicated Telekomunikasyon Teknoloji Hiz. Tic. San. LTD. STI.', 'AS201520', 'dedicated'],
  ['Colocation at China Telecom Hong Kong datacenter at Shatin', 'AS134172', 'colocation'],
];

// Carriers (or likely carriers) whose names hold a hosting word that does not outweigh their carrier word.
const CARRIERS: [string, string, string, string][] = [
  ['Cloud 9 Wireless LLC', 'AS401694', 'cloud', 'wireless'],
  ['VPS Broadband And Telecommunications Pvt Ltd', 'AS135756', 'vps', 'broadband'],
  ['Cloud Net Cable and Telecom Inc.', 'AS149022', 'cloud', 'cable'],
  ['Server Fast Telecom', 'AS264380', 'server', 'telecom'],
  ['Darkcloud Internet Service Provider Private Limited', 'AS153340', '*cloud', 'internet service provider'],
  ['IWserver Internet Banda Larga Ltda.', 'AS28239', '*server', 'banda larga'],
];

// Real carrier ASNs (carrier-asns.json) with hosting-looking names.
const CARRIER_ASNS: SyntheticOrg[] = [
  { asn: 37611, org: 'AFRIHOST SP (PTY) LTD' },
  { asn: 41012, org: 'The Cloud Networks Limited' },
  { asn: 42390, org: 'The Cloud Networks Germany GmbH' },
  { asn: 8477, org: 'Echostar Studio Sp. z o.o.' },
];

const hosterOrgs: SyntheticOrg[] = HOSTERS.map(([org], i) => ({ asn: 64900 + i, org }));
const carrierOrgs: SyntheticOrg[] = CARRIERS.map(([org], i) => ({ asn: 64950 + i, org }));
const byName = (list: SyntheticOrg[], name: string) => list.find((o) => o.org === name)!;

let synthetic: SyntheticDatabase;
let classifier: Classifier;

beforeAll(() => {
  synthetic = syntheticDatabase([...hosterOrgs, ...carrierOrgs, ...CARRIER_ASNS]);
  classifier = new Classifier(synthetic.db, lists, lists.blacklist);
});

afterAll(() => {
  synthetic?.db.close();
  removeTemps();
});

describe('a carrier word does not rescue a hoster', () => {
  it.each(HOSTERS)('%s (%s) is intercepted from medium by %s', (name, _asn, keyword) => {
    const r = classifier.check(synthetic.ipOf(byName(hosterOrgs, name)), 'medium')!;
    expect(r.intercept).toEqual({ low: false, medium: true, high: true });
    expect(r.category).toBe('datacenter');
    expect(r.signals).toEqual({ asn_blacklist: false, org_keyword: keyword, vpn_proxy: null, carrier_whitelist: null, range_feed: null, user_agent: null });
  });
});

describe('a carrier word still rescues cloud, server and vps names', () => {
  it.each(CARRIERS)('%s (%s): %s is cancelled by %s', (name, _asn, keyword, carrierWord) => {
    const r = classifier.check(synthetic.ipOf(byName(carrierOrgs, name)), 'high')!;
    expect(r.intercept).toEqual(NEVER);
    expect(r.category).toBe('carrier');
    expect(r.signals).toEqual({ asn_blacklist: false, org_keyword: keyword, vpn_proxy: null, carrier_whitelist: carrierWord, range_feed: null, user_agent: null });
  });
});

describe('the carrier ASN list still protects carriers whatever their name', () => {
  it.each(CARRIER_ASNS)('AS$asn $org is a carrier, never intercepted', (o) => {
    expect(lists.carriers.some((c) => c.asn === o.asn)).toBe(true);
    const r = classifier.check(synthetic.ipOf(o), 'high')!;
    expect(r.intercept).toEqual(NEVER);
    expect(r.category).toBe('carrier');
  });

  it('Afrihost is hit by "*host" and cancelled by its ASN', () => {
    const r = classifier.check(synthetic.ipOf(CARRIER_ASNS[0]), 'high')!;
    expect(r.signals).toEqual({ asn_blacklist: false, org_keyword: '*host', vpn_proxy: null, carrier_whitelist: 'AS37611', range_feed: null, user_agent: null });
  });
});

describe('the list', () => {
  it('outweighs with host, hosting, datacenter, colocation, dedicated and idc words and stems; never with cloud, server, vps or vds', () => {
    const o = lists.keywords.outweigh_carrier;
    for (const w of ['host', 'hosting', 'host*', '*host', '*hosting', 'datacenter', 'data center', 'colocation', 'dedicated', 'idc']) expect(o, w).toContain(w);
    for (const w of o) expect(w.replaceAll('*', ''), w).not.toMatch(/cloud|server|vps|vds|ddos/);
  });
});
