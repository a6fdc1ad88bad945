// The hosting/VPN ASN list (src/quality/lists/hosting-asns.csv): the checker
// stops start-up on a malformed file with a message naming the file and the
// line, and the shipped file keeps its invariants: compiled from the public
// lists, none of its ASNs on the curated blacklist (which wins) or a carrier
// list, the held-back hosters with telecom-style names kept, the carriers and
// institutions the public lists wrongly call hosting left out.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BlacklistEntry, builtInLists, type CarrierAsn, checkHostingAsns } from '../../../src/quality/lists.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const lists = builtInLists();
const byAsn = new Map(lists.hostingAsns.map((e) => [e.asn, e]));

const BL: BlacklistEntry[] = [{ asn: 16509, provider: 'Amazon.com, Inc.', category: 'cloud', level: 'low', source: 'test' }];
const CARRIERS: CarrierAsn[] = [{ asn: 7922, name: 'Comcast Cable Communications, LLC', country: 'US', kind: 'cable' }];
const HEADER = 'asn,name,category,sources\n';
const check = (body: string) => checkHostingAsns(HEADER + body, BL, CARRIERS);

describe('the checker', () => {
  it('reads rows, quoted names included', () => {
    expect(check('18779,EGIHosting,hosting,brianhama;x4b-dc;oxl-hosting\n209854,"Cyberzone, S.A.",vpn,x4b-vpn\n')).toEqual([
      { asn: 18779, name: 'EGIHosting', category: 'hosting', sources: ['brianhama', 'x4b-dc', 'oxl-hosting'] },
      { asn: 209854, name: 'Cyberzone, S.A.', category: 'vpn', sources: ['x4b-vpn'] },
    ]);
    expect(check('1,"say ""hi""",hosting,oxl-hosting')).toEqual([{ asn: 1, name: 'say "hi"', category: 'hosting', sources: ['oxl-hosting'] }]);
  });

  it.each([
    ['a wrong header', 'asn,name,category\n', 'hosting-asns.csv line 1: the header must be asn,name,category,sources'],
    ['no header at all', '', 'hosting-asns.csv line 1: the header must be asn,name,category,sources'],
  ])('refuses %s', (_what, text, message) => {
    expect(() => checkHostingAsns(text, BL, CARRIERS)).toThrow(message);
  });

  it.each([
    ['too few fields', '18779,EGIHosting,hosting', 'hosting-asns.csv line 3: expected 4 fields'],
    ['too many fields', '18779,EGIHosting,hosting,brianhama,extra', 'hosting-asns.csv line 3: expected 4 fields'],
    ['an unclosed quote', '18779,"EGIHosting,hosting,brianhama', 'hosting-asns.csv line 3: expected 4 fields'],
    ['text after a closing quote', '18779,"EGI"Hosting,hosting,brianhama', 'hosting-asns.csv line 3: expected 4 fields'],
    ['an ASN that is not a number', 'AS18779,EGIHosting,hosting,brianhama', 'hosting-asns.csv line 3: asn must be an integer from 1 to 4294967295'],
    ['ASN 0', '0,Nobody,hosting,brianhama', 'hosting-asns.csv line 3: asn must be an integer'],
    ['an ASN above 32 bits', '4294967296,Big,hosting,brianhama', 'hosting-asns.csv line 3: asn must be an integer'],
    ['a leading zero', '018779,EGIHosting,hosting,brianhama', 'hosting-asns.csv line 3: asn must be an integer'],
    ['an ASN listed twice', '62005,BlueVPS OU,hosting,brianhama', 'hosting-asns.csv line 3: AS62005 is listed twice'],
    ['a blacklisted ASN', '16509,"Amazon.com, Inc.",hosting,brianhama', 'hosting-asns.csv line 3: AS16509 is on asn-blacklist.json'],
    ['a carrier ASN', '7922,Comcast,hosting,oxl-hosting', 'hosting-asns.csv line 3: AS7922 is on carrier-asns.json'],
    ['an empty name', '18779,,hosting,brianhama', 'hosting-asns.csv line 3: name must not be empty'],
    ['an unknown category', '18779,EGIHosting,cdn,brianhama', 'hosting-asns.csv line 3: category must be hosting or vpn'],
    ['no source', '18779,EGIHosting,hosting,', 'hosting-asns.csv line 3: sources must be'],
    ['an unknown source', '18779,EGIHosting,hosting,brianhama;umkus', 'hosting-asns.csv line 3: sources must be'],
    ['an empty line', '', 'hosting-asns.csv line 3: expected 4 fields'],
  ])('refuses %s, naming the file and line', (_what, line, message) => {
    expect(() => check(`62005,BlueVPS OU,hosting,brianhama\n${line}\n18779,EGIHosting,hosting,brianhama\n`)).toThrow(message);
  });

  it('accepts CRLF line ends and a missing final newline', () => {
    expect(checkHostingAsns('asn,name,category,sources\r\n62005,BlueVPS OU,hosting,brianhama\r\n18779,EGIHosting,hosting,x4b-dc', BL, CARRIERS)).toHaveLength(2);
  });
});

describe('the shipped list', () => {
  it('loads with the built-in lists: well over a thousand ASNs, hosting and VPN', () => {
    expect(lists.hostingAsns.length).toBeGreaterThan(1400);
    const vpn = lists.hostingAsns.filter((e) => e.category === 'vpn').map((e) => e.asn);
    // NordVPN's PacketHub ASNs, which no list caught before (issue 15).
    expect(vpn).toEqual(expect.arrayContaining([141039, 147049]));
  });

  it('is sorted by ASN', () => {
    const asns = lists.hostingAsns.map((e) => e.asn);
    expect(asns).toEqual([...asns].sort((a, b) => a - b));
  });

  it('repeats nothing from asn-blacklist.json and no carrier of either carrier list', () => {
    const evalCarriers = readFileSync(path.join(ROOT, 'eval', 'lists', 'carrier-asns.csv'), 'utf8')
      .split('\n')
      .slice(1)
      .map((l) => Number(l.split(',')[0]))
      .filter((a) => a > 0);
    expect(evalCarriers.length).toBeGreaterThanOrEqual(200);
    for (const asn of [...lists.blacklist.map((e) => e.asn), ...lists.carriers.map((c) => c.asn), ...evalCarriers]) {
      expect(byAsn.has(asn), `AS${asn}`).toBe(false);
    }
  });

  it.each([
    [18779, 'EGIHosting'],
    [61157, 'PlusServer GmbH'],
    [203020, 'HostRoyale Technologies Pvt Ltd'],
    [395954, 'Leaseweb USA, Inc.'],
    [15395, 'Rackspace Ltd.'],
    [25820, 'IT7 Networks Inc'],
    [46261, 'QuickPacket, LLC'],
    [20021, 'Ntirety, Inc.'],
    [12824, 'home.pl S.A.'],
    [57169, 'EDIS GmbH'],
  ])('holds AS%i %s, missed before (research: detection-sources.md)', (asn, name) => {
    expect(byAsn.get(asn)?.name).toBe(name);
  });

  it.each([
    [263237, 'PowerHost Telecom SPA'],
    [62097, 'Broadband Hosting B.V.'],
    [37518, 'Fiber Grid INC'],
    [207279, 'Markahost Telekomunikasyon Ve Ticaret Limited Sirketi'],
    [216383, 'OnlineServer2 ONLINE SERVER TELEKOMUNIKASYON LIMITED SIRKETI'],
    [25369, 'Hydra Communications Ltd'],
    [50340, 'JSC Selectel'],
  ])('keeps AS%i %s, a hoster with a telecom-style name (hosting-asns-review.csv)', (asn, name) => {
    expect(byAsn.get(asn)).toMatchObject({ name, category: 'hosting' });
  });

  it.each([
    [37611, 'Afrihost, a consumer ISP'],
    [41012, 'The Cloud Networks, public Wi-Fi'],
    [29465, 'MTN Nigeria'],
    [11426, 'Charter Communications'],
    [1101, 'SURF, a research network'],
    [13030, 'Init7, a fibre ISP'],
    [31242, 'P4 (Play), a mobile operator'],
    [37100, 'SEACOM, a cable carrier'],
    [54538, 'Palo Alto Networks, a corporate proxy'],
    [36183, 'Akamai, iCloud Private Relay egress'],
    [13335, 'Cloudflare'],
    [37170, 'University of Lagos'],
    [263032, 'VERO S.A, a Brazilian ISP listed under a stale hosting name'],
    [29119, 'AIRE Networks, a wholesale carrier listed under a stale hosting name'],
  ])('leaves out AS%i (%s)', (asn) => {
    expect(byAsn.has(asn)).toBe(false);
  });
});
