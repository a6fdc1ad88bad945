// Hosters whose hosting word sits inside a longer word (research
// detection-sources.md: "about 120 fully missed hosting ASNs carry host,
// server, cloud, vps or colo inside one word") are caught at medium by the
// word stems of keywords.json, through the real lists and the real
// classifier, each reporting the stem that fired. Organizations carry an ASN
// from the private range, so the name alone decides.
import { describe, expect, it } from 'vitest';
import { KeywordSet, words } from '../../../src/quality/keywords.js';
import { builtInLists } from '../../../src/quality/lists.js';
import { classifierOverNames } from '../../helpers/synthetic-ipdb.js';

const lists = builtInLists();
const kw = lists.keywords;

// [organization as ip-location-db spells it (its real ASN), the stem expected]
const HOSTERS: [string, string, string][] = [
  ['EGIHosting', 'AS18779', '*hosting'],
  ['HostRoyale Technologies Pvt Ltd', 'AS203020', 'host*'],
  ['HostPapa', 'AS36352', 'host*'],
  ['HOSTKEY B.V.', 'AS57043', 'host*'],
  ['HostDime.com, Inc.', 'AS33182', 'host*'],
  ['Hostinger International Limited', 'AS47583', 'host*'],
  ['LOCALHOST d.o.o.', 'AS50872', '*host'],
  ['GTHost', 'AS63023', '*host'],
  ['ALEXHOST SRL', 'AS200019', '*host'],
  ['Fasthosts Internet Limited', 'AS15418', '*hosts'],
  ['webhoster.de AG', 'AS200548', '*hoster'],
  ['PlusServer GmbH', 'AS61157', '*server'],
  ['Interserver, Inc', 'AS19318', '*server'],
  ['Serverius Holding B.V.', 'AS50673', 'server*'],
  ['FDCservers.net', 'AS30058', '*servers'],
  ['GorillaServers, Inc.', 'AS53850', '*servers'],
  ['BlueVPS OU', 'AS62005', '*vps*'],
  ['LLC Vpsville', 'AS59504', '*vps*'],
  ['GamingVDS Bayram Coskun', 'AS206668', '*vds*'],
  ['UpCloud USA Inc', 'AS25697', '*cloud'],
  ['NHNCLOUD', 'AS45974', '*cloud'],
  ['Shanghai UCloud Information Technology Company Limited', 'AS59077', '*cloud'],
  ['DataCentrum', 'AS203933', 'datacent*'],
  ['VirtuDataCenter, Inc.', 'AS36747', '*datacenter'],
  ['Zhengzhou Fastidc Technology Co.,Ltd.', 'AS56005', '*idc'],
  ['CHINANET Yunnan province IDC1 network', 'AS134765', 'idc*'],
];
const VPN: [string, string, string][] = [
  ['10VPN Research Network LTD', 'AS215905', '*vpn'],
  ['ProxyOmega LTD', 'AS200927', 'proxy*'],
];

const named = classifierOverNames([...HOSTERS, ...VPN].map(([org]) => org), 64700, lists);

describe('hosting names with the hosting word inside a word', () => {
  it.each(HOSTERS)('%s (%s) is intercepted from medium by %s', (name, _asn, stem) => {
    expect(new KeywordSet(kw.strong.filter((k) => !k.includes('*'))).match(words(name)), 'no whole word catches it').toBeNull();
    const r = named.check(name, 'medium');
    expect(r.intercept).toEqual({ low: false, medium: true, high: true });
    expect(r.category).toBe('datacenter');
    expect(r.signals).toEqual({ asn_blacklist: false, org_keyword: stem, vpn_proxy: null, carrier_whitelist: null, range_feed: null, user_agent: null });
  });
});

describe('VPN and proxy names with the word inside a word', () => {
  it.each(VPN)('%s (%s) is intercepted from medium by %s', (name, _asn, stem) => {
    const r = named.check(name, 'medium');
    expect(r.intercept).toEqual({ low: false, medium: true, high: true });
    expect(r.category).toBe('vpn_proxy');
    expect(r.signals.vpn_proxy).toBe(stem);
  });
});

describe('the stems keywords.json lists', () => {
  it('are strong (medium) and VPN/proxy stems, none weak, none in the carrier list', () => {
    const stems = (l: string[]) => l.filter((k) => k.includes('*')).sort();
    expect(stems(kw.strong)).toEqual(
      ['*cloud', '*datacenter', '*datacentre', '*host', '*hoster', '*hosting', '*hostings', '*hosts', '*idc', '*racks', '*rdp', '*server', '*servers', '*vds*', '*vps*', 'datacent*', 'heberg*', 'host*', 'idc*', 'server*'].sort(),
    );
    expect(stems(kw.vpn_proxy)).toEqual(['*proxies', '*vpn', 'proxy*']);
    expect(stems(kw.weak)).toEqual([]);
    expect(stems(kw.carrier)).toEqual([]);
  });

  it('hold no stem of colo, web or rack, and no "cloud*"', () => {
    const all = [...kw.strong, ...kw.weak, ...kw.vpn_proxy];
    for (const k of all.filter((x) => x.includes('*'))) {
      expect(k.replaceAll('*', ''), k).not.toMatch(/^(colo|web|rack)$/);
    }
    expect(all).not.toContain('cloud*');
    expect(all).not.toContain('*cloud*');
    expect(all).not.toContain('*host*');
    expect(all).not.toContain('*server*');
    expect(all).not.toContain('*idc*');
  });
});
