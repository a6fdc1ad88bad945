// The feeds folded into the IP database (contract §6a): each a label, a
// format, its publisher's locations and a schedule, and, where its licence
// allows, a snapshot shipped in feeds/snapshots/ (provenance and licences in
// feeds/README.md) so that a machine without network starts with it.
//
// A source is a *node*: one URL, or several joined by "|" whose entries are
// read together (OpenAI publishes three files); a feed's nodes are tried in
// order until one answers (failover). The order of FEEDS is the priority
// between ranges of equal width: the more specific label comes first.
//
// Snapshots are what the feed was when the snapshot was taken; the first
// refresh replaces them with the publisher's data.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FeedLabel } from '../format.js';
import type { FeedFormat } from './parse.js';

export interface FeedSnapshot {
  /** Files under feeds/snapshots/, read together. */
  files: string[];
  format: FeedFormat;
  /** The date the snapshot's data is from (its "fetched at" until the first refresh). */
  date: string;
}

export interface FeedDefinition {
  name: string;
  label: FeedLabel;
  format: FeedFormat;
  /** Nodes tried in order; a node's "|"-joined URLs are read together. */
  sources: string[];
  snapshot: FeedSnapshot | null;
  refreshHours: number;
}

const RAW = 'https://raw.githubusercontent.com';
const LORD_ALFRED = `${RAW}/lord-alfred/ipranges/main`;
const X4B = `${RAW}/X4BNet/lists_vpn/main`;
const JOE = `${RAW}/Joe12387/open-source-vpn-ip-lists/main`;
const GOOGLE_BOTS = 'https://developers.google.com/static/search/apis/ipranges';
const VPN_PROVIDERS = ['airvpn', 'ivpn', 'mullvad', 'nordvpn', 'ovpn', 'pia', 'protonvpn', 'riseupvpn', 'surfshark', 'windscribe'];
const snap = (format: FeedFormat, date: string, ...files: string[]): FeedSnapshot => ({ files, format, date });

export const FEEDS: readonly FeedDefinition[] = [
  // Tor exits change by the hour.
  { name: 'tor', label: 'tor', format: 'cidr-lines', sources: ['https://check.torproject.org/torbulkexitlist'], snapshot: snap('cidr-lines', '2026-08-22', 'tor-exit-nodes.threatfeed.list'), refreshHours: 1 },
  // VPN servers: the providers' own lists (collected by Joe12387), then X4BNet's aggregate.
  {
    name: 'vpn-providers',
    label: 'vpn',
    format: 'cidr-lines',
    sources: [VPN_PROVIDERS.map((p) => `${JOE}/${p}.txt`).join('|')],
    snapshot: snap('cidr-lines', '2026-08-22', ...VPN_PROVIDERS.map((p) => `vpn-${p}.joe12387.txt`)),
    refreshHours: 24,
  },
  { name: 'x4b-vpn', label: 'vpn', format: 'cidr-lines', sources: [`${X4B}/output/vpn/ipv4.txt|${X4B}/output/vpn/ipv6.txt`], snapshot: snap('cidr-lines', '2026-08-22', 'x4bnet-vpn-ipv4.txt', 'x4bnet-vpn-ipv6.txt'), refreshHours: 24 },
  // Crawlers and link-preview fetchers that publish their addresses, or whose
  // operators' routes are public (Meta, X, Telegram).
  { name: 'googlebot', label: 'crawler', format: 'google-json', sources: [`${GOOGLE_BOTS}/googlebot.json`], snapshot: snap('google-json', '2026-08-20', 'cloudips-googlebot.json'), refreshHours: 24 },
  { name: 'google-special-crawlers', label: 'crawler', format: 'google-json', sources: [`${GOOGLE_BOTS}/special-crawlers.json`], snapshot: snap('google-json', '2026-08-20', 'cloudips-googlesc.json'), refreshHours: 24 },
  { name: 'google-user-fetchers', label: 'crawler', format: 'google-json', sources: [`${GOOGLE_BOTS}/user-triggered-fetchers.json`], snapshot: snap('google-json', '2026-08-20', 'cloudips-googleutf.json'), refreshHours: 24 },
  { name: 'bingbot', label: 'crawler', format: 'google-json', sources: ['https://www.bing.com/toolbox/bingbot.json'], snapshot: snap('cidr-lines', '2024-01-11', 'lordalfred-bing-ipv4.txt'), refreshHours: 24 },
  {
    name: 'openai',
    label: 'crawler',
    format: 'google-json',
    sources: ['https://openai.com/gptbot.json|https://openai.com/searchbot.json|https://openai.com/chatgpt-user.json'],
    snapshot: snap('cidr-lines', '2026-08-20', 'lordalfred-openai-ipv4.txt'),
    refreshHours: 24,
  },
  { name: 'duckduckbot', label: 'crawler', format: 'cidr-lines', sources: [`${LORD_ALFRED}/duckduckbot/ipv4.txt`], snapshot: snap('cidr-lines', '2026-07-06', 'lordalfred-duckduckbot-ipv4.txt'), refreshHours: 24 },
  { name: 'perplexity', label: 'crawler', format: 'cidr-lines', sources: [`${LORD_ALFRED}/perplexity/ipv4.txt`], snapshot: snap('cidr-lines', '2026-08-20', 'lordalfred-perplexity-ipv4.txt'), refreshHours: 24 },
  { name: 'meta', label: 'crawler', format: 'cidr-lines', sources: [`${LORD_ALFRED}/facebook/ipv4.txt|${LORD_ALFRED}/facebook/ipv6.txt`], snapshot: snap('cidr-lines', '2026-08-20', 'lordalfred-facebook-ipv4.txt', 'lordalfred-facebook-ipv6.txt'), refreshHours: 24 },
  { name: 'x', label: 'crawler', format: 'cidr-lines', sources: [`${LORD_ALFRED}/twitter/ipv4.txt|${LORD_ALFRED}/twitter/ipv6.txt`], snapshot: snap('cidr-lines', '2026-07-28', 'lordalfred-twitter-ipv4.txt', 'lordalfred-twitter-ipv6.txt'), refreshHours: 24 },
  { name: 'telegram', label: 'crawler', format: 'cidr-lines', sources: ['https://core.telegram.org/resources/cidr.txt'], snapshot: snap('cidr-lines', '2025-02-27', 'lordalfred-telegram-ipv4.txt', 'lordalfred-telegram-ipv6.txt'), refreshHours: 24 },
  // Relays: real people behind them; never intercepted below high.
  { name: 'icloud-private-relay', label: 'relay', format: 'geofeed-csv', sources: ['https://mask-api.icloud.com/egress-ip-ranges.csv'], snapshot: snap('cidr-lines', '2026-08-17', 'lordalfred-apple-proxy-ipv4.txt'), refreshHours: 24 },
  { name: 'cloudflare', label: 'relay', format: 'cidr-lines', sources: ['https://www.cloudflare.com/ips-v4|https://www.cloudflare.com/ips-v6'], snapshot: snap('cidr-lines', '2026-08-20', 'lordalfred-cloudflare-ipv4.txt', 'lordalfred-cloudflare-ipv6.txt'), refreshHours: 24 },
  // Clouds that publish their ranges.
  { name: 'aws', label: 'cloud', format: 'aws-json', sources: ['https://ip-ranges.amazonaws.com/ip-ranges.json'], snapshot: snap('aws-json', '2026-08-21', 'cloudips-aws.json'), refreshHours: 24 },
  { name: 'google-cloud', label: 'cloud', format: 'google-json', sources: ['https://www.gstatic.com/ipranges/cloud.json'], snapshot: snap('google-json', '2026-08-21', 'cloudips-gcp.json'), refreshHours: 24 },
  { name: 'oracle', label: 'cloud', format: 'oracle-json', sources: ['https://docs.oracle.com/en-us/iaas/tools/public_ip_ranges.json'], snapshot: snap('oracle-json', '2026-07-27', 'cloudips-oci.json'), refreshHours: 24 },
  { name: 'microsoft', label: 'cloud', format: 'cidr-lines', sources: [`${LORD_ALFRED}/microsoft/ipv4.txt|${LORD_ALFRED}/microsoft/ipv6.txt`], snapshot: snap('cidr-lines', '2026-08-20', 'lordalfred-microsoft-ipv4.txt', 'lordalfred-microsoft-ipv6.txt'), refreshHours: 24 },
  { name: 'digitalocean', label: 'cloud', format: 'geofeed-csv', sources: ['https://digitalocean.com/geo/google.csv'], snapshot: snap('cidr-lines', '2026-08-20', 'lordalfred-digitalocean-ipv4.txt', 'lordalfred-digitalocean-ipv6.txt'), refreshHours: 24 },
  { name: 'linode', label: 'cloud', format: 'geofeed-csv', sources: ['https://geoip.linode.com/'], snapshot: snap('cidr-lines', '2026-08-20', 'lordalfred-linode-ipv4.txt', 'lordalfred-linode-ipv6.txt'), refreshHours: 24 },
  { name: 'vultr', label: 'cloud', format: 'cidr-lines', sources: [`${LORD_ALFRED}/vultr/ipv4.txt|${LORD_ALFRED}/vultr/ipv6.txt`], snapshot: snap('cidr-lines', '2026-08-20', 'lordalfred-vultr-ipv4.txt', 'lordalfred-vultr-ipv6.txt'), refreshHours: 24 },
  // Data-center ranges beyond the clouds: X4BNet's aggregate, from medium.
  { name: 'x4b-datacenter', label: 'hosting', format: 'cidr-lines', sources: [`${X4B}/output/datacenter/ipv4.txt|${X4B}/output/datacenter/ipv6.txt`], snapshot: snap('cidr-lines', '2026-08-22', 'x4bnet-datacenter-ipv4.txt', 'x4bnet-datacenter-ipv6.txt'), refreshHours: 24 },
  // ASN lists: hosting and VPN operators (src/quality/lists/README.md says
  // how they were judged; carriers and the excluded ASNs are taken out).
  { name: 'x4b-datacenter-asns', label: 'hosting', format: 'asn-lines', sources: [`${X4B}/input/datacenter/ASN.txt`], snapshot: snap('asn-lines', '2026-08-22', 'x4bnet-datacenter-ASN.txt'), refreshHours: 24 },
  { name: 'x4b-vpn-asns', label: 'vpn', format: 'asn-lines', sources: [`${X4B}/input/vpn/ASN.txt`], snapshot: snap('asn-lines', '2026-08-22', 'x4bnet-vpn-ASN.txt'), refreshHours: 24 },
  { name: 'brianhama-asns', label: 'hosting', format: 'asn-csv', sources: [`${RAW}/brianhama/bad-asn-list/master/bad-asn-list.csv`], snapshot: snap('asn-csv', '2026-03-16', 'brianhama-bad-asn-list.csv'), refreshHours: 24 },
];

/** feeds/snapshots/, from src/ipdb/feeds and dist/ipdb/feeds alike. */
export const SNAPSHOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../feeds/snapshots');

export function snapshotFiles(feed: FeedDefinition): string[] {
  return (feed.snapshot?.files ?? []).map((f) => path.join(SNAPSHOT_DIR, f));
}
