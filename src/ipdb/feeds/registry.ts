// The feeds folded into the IP database (contract §6a): each a label, a
// format, its publisher's locations and a schedule, and, where its licence
// allows, a snapshot shipped in feeds/snapshots/ (provenance and licences in
// feeds/README.md) so that a machine without network starts with it.
//
// A source is one URL, or several joined by "|" whose entries are
// read together (OpenAI publishes three files); a feed's sources are tried in
// order until one answers (failover). The order of FEEDS is the priority
// between ranges of equal width: the more specific label comes first.
//
// Snapshots are what the feed was when the snapshot was taken; the first
// refresh replaces them with the publisher's data.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FeedLabel } from '../format.js';
import type { HostingListSource } from '../../quality/hosting-list.js';
import type { FeedFormat } from './parse.js';

interface FeedSnapshot {
  /** Files under feeds/snapshots/, read together. */
  files: string[];
  format: FeedFormat;
  /** The date the snapshot's data is from (its "fetched at" until the first refresh). */
  date: string;
  /** For a feed with keepDays: the recent file (recent.ts) as of the snapshot, under feeds/snapshots/. */
  recent?: string;
}

export interface FeedDefinition {
  name: string;
  label: FeedLabel;
  format: FeedFormat;
  /** Sources tried in order; a source's "|"-joined URLs are read together. */
  sources: string[];
  snapshot: FeedSnapshot | null;
  refreshHours: number;
  /** How wide one entry of a download may be (update.ts refuses a download with a wider one). */
  widest: EntryCap;
  /**
   * A list of single addresses (HOST_LIST): its entries are capped at HOSTS,
   * and the growth rule lets it grow only to a floor sized from the real
   * lists, not a range list's /16 (limits.ts).
   */
  hosts?: true;
  /** Addresses the feed's data held in the last keepDays days stay folded in (recent.ts). */
  keepDays?: number;
  /**
   * An upstream list of the hosting/VPN ASN list (quality/hosting-list.ts):
   * not folded in on its own, but compiled with the others under the list's
   * rules into the ASN feeds `hosting-list` and `vpn-list`.
   */
  list?: HostingListSource;
}

/**
 * The widest prefix an entry may have, per family. The caps keep a hostile
 * or broken list off whole networks: a `tor` list of every /8 made carriers
 * Tor exits, a `cloudflare` list of the clouds' /8s made them relays (the
 * hostile-publisher review of 2026-11-29). They come from the publishers' own
 * data: the widest entry of each shipped snapshot, and of the independent
 * copies in eval/lists/datacenter-ranges.csv where they are wider (Google
 * Cloud: /12 and /40 there, /14 and /44 in the snapshot).
 */
interface EntryCap {
  v4: number;
  v6: number;
}

/**
 * Lists of single addresses (Tor exits, VPN servers, probes; /32 and /128
 * in every snapshot): a block as wide as a /24 or a /48 is already no host.
 */
const HOSTS: EntryCap = { v4: 24, v6: 48 };

/**
 * A list of single addresses: Tor's two, the ten VPN providers', and the
 * crawler and probe lists of a few hundred hosts (DuckDuckBot, Perplexity,
 * Pingdom, StatusCake; a /29 at most).
 */
const HOST_LIST = { widest: HOSTS, hosts: true } as const;

/**
 * A range list whose widest entries seen are /v4 and /v6 (null: none of the
 * family seen): its cap is 2 bits (IPv4) and 4 bits (IPv6) wider, 4 and 16
 * times the widest block, never narrower than HOSTS, never wider than the
 * /8 and /16 parse.ts takes from any feed; a family never seen may be as
 * wide as an RIR's usual IPv6 allocation, a /32.
 */
const seen = (v4: number, v6: number | null): EntryCap => ({
  v4: Math.max(8, Math.min(HOSTS.v4, v4 - 2)),
  v6: v6 === null ? 32 : Math.max(16, Math.min(HOSTS.v6, v6 - 4)),
});

const RAW = 'https://raw.githubusercontent.com';
const LORD_ALFRED = `${RAW}/lord-alfred/ipranges/main`;
const X4B = `${RAW}/X4BNet/lists_vpn/main`;
const JOE = `${RAW}/Joe12387/open-source-vpn-ip-lists/master`;
const OXL = `${RAW}/O-X-L/risk-db-lists/main/asn`;
const ONIONOO_EXITS = 'https://onionoo.torproject.org/details?type=relay&running=true&flag=Exit&fields=or_addresses,exit_addresses,flags';
const GOOGLE_BOTS = 'https://developers.google.com/static/search/apis/ipranges';
const DAY = 24;
const WEEK = 7 * 24;
const TOR_KEEP_DAYS = 7;
const snap = (format: FeedFormat, date: string, ...files: string[]): FeedSnapshot => ({ files, format, date });
const vpn = (provider: string): FeedDefinition => ({
  name: provider, label: 'vpn', format: 'cidr-lines', sources: [`${JOE}/${provider}.txt`],
  snapshot: snap('cidr-lines', '2026-08-22', `vpn-${provider}.joe12387.txt`), refreshHours: DAY, ...HOST_LIST,
});
const asnList = (list: HostingListSource, format: FeedFormat, url: string, file: string, date: string): FeedDefinition => ({
  name: `asn-list-${list}`, label: list.endsWith('vpn') ? 'vpn' : 'hosting', format, sources: [url],
  snapshot: { files: [`../asn-lists/${file}`], format, date }, refreshHours: DAY, list,
  // ASN lists hold no ranges.
  widest: HOSTS,
});

// Provenance, licences and sizes of every snapshot: feeds/README.md.
export const FEEDS: readonly FeedDefinition[] = [
  // Tor exits change by the hour, and many come back within days: both Tor
  // feeds keep the exits of the last week (recent.ts). Not longer: 30 days
  // gain at most 0.005 on exits that come back, and a memory that outlives
  // the growth rule's 7-day window weakens it (docs/detection.md, Tor exits).
  {
    name: 'tor', label: 'tor', format: 'cidr-lines', sources: ['https://check.torproject.org/torbulkexitlist'],
    snapshot: { ...snap('cidr-lines', '2026-08-22', 'tor-exit-nodes.threatfeed.list'), recent: 'tor-exit-nodes.recent.list' }, refreshHours: 1, keepDays: TOR_KEEP_DAYS, ...HOST_LIST,
  },
  // The bulk list is IPv4 only; Onionoo's details of the Exit-flagged relays
  // carry their IPv6 OR addresses too. Failover: a mirror of the full details
  // document, twice a day (the parser keeps its running exits).
  {
    name: 'tor-onionoo', label: 'tor', format: 'onionoo-json',
    sources: [ONIONOO_EXITS, `${RAW}/ValdikSS/tor-onionoo-mirror/master/details-full.json`],
    snapshot: { ...snap('cidr-lines', '2026-08-22', 'tor-onionoo-exits.txt'), recent: 'tor-onionoo-exits.recent.list' }, refreshHours: 1, keepDays: TOR_KEEP_DAYS, ...HOST_LIST,
  },
  // VPN servers: each provider's own list (collected by Joe12387), then X4BNet's aggregate.
  ...['airvpn', 'ivpn', 'mullvad', 'nordvpn', 'ovpn', 'pia', 'protonvpn', 'riseupvpn', 'surfshark', 'windscribe'].map(vpn),
  { name: 'x4b-vpn', label: 'vpn', format: 'cidr-lines', sources: [`${X4B}/output/vpn/ipv4.txt|${X4B}/output/vpn/ipv6.txt`], snapshot: snap('cidr-lines', '2026-08-22', 'x4bnet-vpn-ipv4.txt', 'x4bnet-vpn-ipv6.txt'), refreshHours: DAY, widest: seen(16, 29) },
  // Crawlers, link-preview fetchers and monitors that publish their
  // addresses, or whose operators' routes are public (Meta, X, Telegram).
  { name: 'googlebot', label: 'crawler', format: 'google-json', sources: [`${GOOGLE_BOTS}/googlebot.json`], snapshot: snap('google-json', '2026-08-20', 'googlebot.json'), refreshHours: DAY, widest: seen(27, 64) },
  { name: 'google-special-crawlers', label: 'crawler', format: 'google-json', sources: [`${GOOGLE_BOTS}/special-crawlers.json`], snapshot: snap('google-json', '2026-08-20', 'google-special-crawlers.json'), refreshHours: DAY, widest: seen(27, 64) },
  { name: 'google-user-fetchers', label: 'crawler', format: 'google-json', sources: [`${GOOGLE_BOTS}/user-triggered-fetchers.json`], snapshot: snap('google-json', '2026-08-20', 'google-user-triggered-fetchers.json'), refreshHours: DAY, widest: seen(27, 64) },
  { name: 'bingbot', label: 'crawler', format: 'google-json', sources: ['https://www.bing.com/toolbox/bingbot.json'], snapshot: snap('cidr-lines', '2024-01-11', 'bingbot-ipv4.txt'), refreshHours: DAY, widest: seen(22, null) },
  // openai.com refuses plain HTTP clients; lord-alfred's mirror merges its three lists.
  { name: 'openai', label: 'crawler', format: 'cidr-lines', sources: [`${LORD_ALFRED}/openai/ipv4.txt`], snapshot: snap('cidr-lines', '2026-08-20', 'openai-ipv4.txt'), refreshHours: DAY, widest: seen(17, null) },
  { name: 'applebot', label: 'crawler', format: 'google-json', sources: ['https://search.developer.apple.com/applebot.json'], snapshot: snap('google-json', '2026-09-15', 'applebot.json'), refreshHours: WEEK, widest: seen(24, null) },
  { name: 'duckduckbot', label: 'crawler', format: 'google-json', sources: ['https://duckduckgo.com/duckduckbot.json'], snapshot: snap('cidr-lines', '2026-07-06', 'duckduckbot-ipv4.txt'), refreshHours: WEEK, ...HOST_LIST },
  { name: 'perplexity', label: 'crawler', format: 'google-json', sources: ['https://www.perplexity.ai/perplexitybot.json|https://www.perplexity.ai/perplexity-user.json'], snapshot: snap('cidr-lines', '2026-08-20', 'perplexity-ipv4.txt'), refreshHours: DAY, ...HOST_LIST },
  { name: 'ipverse-crawlers', label: 'crawler', format: 'ipverse-json', sources: [`${RAW}/ipverse/bot-ip-blocks/master/crawlers.json`], snapshot: snap('ipverse-json', '2026-08-22', 'ipverse-crawlers.json'), refreshHours: DAY, widest: seen(17, 56) },
  { name: 'meta-crawler', label: 'crawler', format: 'cidr-lines', sources: [`${LORD_ALFRED}/facebook/ipv4_merged.txt|${LORD_ALFRED}/facebook/ipv6_merged.txt`], snapshot: snap('cidr-lines', '2026-08-20', 'meta-ipv4.txt', 'meta-ipv6.txt'), refreshHours: WEEK, widest: seen(14, 29) },
  { name: 'x-crawler', label: 'crawler', format: 'cidr-lines', sources: [`${LORD_ALFRED}/twitter/ipv4_merged.txt|${LORD_ALFRED}/twitter/ipv6_merged.txt`], snapshot: snap('cidr-lines', '2026-07-28', 'x-twitter-ipv4.txt', 'x-twitter-ipv6.txt'), refreshHours: WEEK, widest: seen(18, 29) },
  { name: 'telegram-crawler', label: 'crawler', format: 'cidr-lines', sources: ['https://core.telegram.org/resources/cidr.txt'], snapshot: snap('cidr-lines', '2025-02-27', 'telegram-ipv4.txt', 'telegram-ipv6.txt'), refreshHours: WEEK, widest: seen(20, 32) },
  { name: 'pingdom', label: 'crawler', format: 'cidr-lines', sources: ['https://my.pingdom.com/probes/ipv4|https://my.pingdom.com/probes/ipv6'], snapshot: snap('cidr-lines', '2026-08-20', 'pingdom-ipv4.txt', 'pingdom-ipv6.txt'), refreshHours: WEEK, ...HOST_LIST },
  { name: 'statuscake', label: 'crawler', format: 'cidr-lines', sources: ['https://app.statuscake.com/Workfloor/Locations.php?format=txt'], snapshot: snap('cidr-lines', '2026-08-20', 'statuscake-ipv4.txt'), refreshHours: WEEK, ...HOST_LIST },
  // Relays: real people behind them; never intercepted below high.
  { name: 'icloud-relay', label: 'relay', format: 'geofeed-csv', sources: ['https://mask-api.icloud.com/egress-ip-ranges.csv'], snapshot: snap('cidr-lines', '2026-08-17', 'icloud-private-relay-ipv4.txt', 'icloud-private-relay-ipv6.txt'), refreshHours: DAY, widest: seen(22, 34) },
  { name: 'cloudflare', label: 'relay', format: 'cidr-lines', sources: ['https://www.cloudflare.com/ips-v4|https://www.cloudflare.com/ips-v6'], snapshot: snap('cidr-lines', '2026-08-20', 'cloudflare-ips-v4.txt', 'cloudflare-ips-v6.txt'), refreshHours: WEEK, widest: seen(13, 29) },
  // Clouds that publish their ranges.
  { name: 'aws', label: 'cloud', format: 'aws-json', sources: ['https://ip-ranges.amazonaws.com/ip-ranges.json'], snapshot: snap('aws-json', '2026-08-21', 'aws-ip-ranges.json'), refreshHours: DAY, widest: seen(11, 32) },
  { name: 'google-cloud', label: 'cloud', format: 'google-json', sources: ['https://www.gstatic.com/ipranges/cloud.json'], snapshot: snap('google-json', '2026-08-21', 'google-cloud.json'), refreshHours: DAY, widest: seen(12, 40) },
  { name: 'google', label: 'cloud', format: 'google-json', sources: ['https://www.gstatic.com/ipranges/goog.json'], snapshot: snap('google-json', '2026-08-21', 'google-goog.json'), refreshHours: DAY, widest: seen(10, 28) },
  { name: 'oracle', label: 'cloud', format: 'oracle-json', sources: ['https://docs.oracle.com/iaas/tools/public_ip_ranges.json'], snapshot: snap('oracle-json', '2026-07-27', 'oracle-public_ip_ranges.json'), refreshHours: DAY, widest: seen(16, null) },
  { name: 'digitalocean', label: 'cloud', format: 'geofeed-csv', sources: ['https://www.digitalocean.com/geo/google.csv'], snapshot: snap('cidr-lines', '2026-08-20', 'digitalocean-ipv4.txt', 'digitalocean-ipv6.txt'), refreshHours: DAY, widest: seen(16, 48) },
  { name: 'linode', label: 'cloud', format: 'geofeed-csv', sources: ['https://geoip.linode.com/'], snapshot: snap('cidr-lines', '2026-08-20', 'linode-ipv4.txt', 'linode-ipv6.txt'), refreshHours: DAY, widest: seen(14, 29) },
  { name: 'vultr', label: 'cloud', format: 'cidr-lines', sources: ['https://geofeed.constant.com/?text'], snapshot: snap('cidr-lines', '2026-08-20', 'vultr-ipv4.txt', 'vultr-ipv6.txt'), refreshHours: DAY, widest: seen(15, 36) },
  // Data-center ranges beyond the clouds: X4BNet's aggregate, from medium.
  { name: 'x4b-datacenter', label: 'hosting', format: 'cidr-lines', sources: [`${X4B}/output/datacenter/ipv4.txt|${X4B}/output/datacenter/ipv6.txt`], snapshot: snap('cidr-lines', '2026-08-22', 'x4bnet-datacenter-ipv4.txt', 'x4bnet-datacenter-ipv6.txt'), refreshHours: DAY, widest: seen(9, 24) },
  // The upstream lists of the hosting/VPN ASN list (src/quality/lists/README.md).
  asnList('brianhama', 'asn-csv', `${RAW}/brianhama/bad-asn-list/master/bad-asn-list.csv`, 'brianhama-bad-asn-list.csv', '2026-03-16'),
  asnList('x4b-dc', 'asn-lines', `${X4B}/input/datacenter/ASN.txt`, 'x4bnet-datacenter-ASN.txt', '2026-07-26'),
  asnList('x4b-vpn', 'asn-lines', `${X4B}/input/vpn/ASN.txt`, 'x4bnet-vpn-ASN.txt', '2026-02-26'),
  asnList('oxl-hosting', 'asn-csv', `${OXL}/kind_hosting.csv`, 'oxl-kind_hosting.csv', '2025-07-03'),
  asnList('oxl-vpn', 'asn-csv', `${OXL}/kind_vpn.csv`, 'oxl-kind_vpn.csv', '2025-06-28'),
  asnList('oxl-isp', 'asn-csv', `${OXL}/kind_isp.csv`, 'oxl-kind_isp.csv', '2025-07-03'),
  asnList('oxl-education', 'asn-csv', `${OXL}/kind_education.csv`, 'oxl-kind_education.csv', '2025-07-03'),
];

/** feeds/snapshots/, from src/ipdb/feeds and dist/ipdb/feeds alike. */
const SNAPSHOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../feeds/snapshots');

export function snapshotFiles(feed: FeedDefinition): string[] {
  return (feed.snapshot?.files ?? []).map((f) => path.join(SNAPSHOT_DIR, f));
}

/** The snapshot's recent file (recent.ts), if it has one. */
export function snapshotRecent(feed: FeedDefinition): string | null {
  return feed.snapshot?.recent ? path.join(SNAPSHOT_DIR, feed.snapshot.recent) : null;
}

/** A feed's sources under the SPLITGUARD_FEED_SOURCES setting: the publisher's, none (`off`), or the configured ones. */
export function sourcesFor(setting: 'publishers' | 'off' | ReadonlyMap<string, readonly string[]>, feed: FeedDefinition): readonly string[] {
  if (setting === 'publishers') return feed.sources;
  if (setting === 'off') return [];
  return setting.get(feed.name) ?? feed.sources;
}
