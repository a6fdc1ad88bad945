// Reading feed files in their publishers' formats:
//
//   aws-json       ip-ranges.json: prefixes[].ip_prefix, ipv6_prefixes[].ipv6_prefix; version syncToken
//   google-json    cloud.json, goog.json, googlebot.json and the bots that copy
//                  the shape (Bing, OpenAI, Apple): prefixes[].ipv4Prefix / .ipv6Prefix;
//                  version syncToken or creationTime
//   oracle-json    public_ip_ranges.json: regions[].cidrs[].cidr; version last_updated_timestamp
//   azure-json     Service Tags: values[name = AzureCloud].properties.addressPrefixes; version changeNumber
//   ipverse-json   ipverse/bot-ip-blocks: services.<bot>.ipv4[] / .ipv6[], only the services whose
//                  list is the operator's own (ip_list_authoritative); version the latest last_changed_at
//   onionoo-json   a Tor Onionoo details document: relays[].or_addresses ("1.2.3.4:9001",
//                  "[2001:db8::1]:443", the port required) and relays[].exit_addresses (bare
//                  addresses), of the relays that carry the Exit flag and are running (a relay
//                  whose `flags` or `running` field is absent is taken: the query chose it);
//                  an address the document repeats counts once; version relays_published
//   cidr-lines     one CIDR or address a line (Tor's bulk exit list, X4BNet, Cloudflare);
//                  `#` starts a comment, a line may carry more fields after the first
//   geofeed-csv    RFC 8805: prefix,country,region,city,postal; `#` comments
//   asn-lines      one ASN a line, `AS123` or `123` first, anything after it ignored
//   asn-csv        a CSV whose first column is an ASN; a header line is skipped
//
// Lines end with LF, CR LF or a lone CR. Every entry is checked; a file is refused when it yields nothing, or when
// more than MAX_MALFORMED_SHARE of its entries are malformed (a page of HTML
// served in place of the list, a format change upstream). Malformed entries
// of an accepted file are skipped and counted. Host bits set in a CIDR are
// cleared (lists often write 1.2.3.4/24 for 1.2.3.0/24). A range wider than
// /8 (IPv4) or /16 (IPv6) is malformed: no publisher's range is, and one
// such line would intercept a continent. Ranges inside special-purpose space
// (private, documentation, loopback, multicast: RFC 6890) are left out,
// unannounced by definition; lists copy them by mistake.
import { AppError, clip, quoted } from '../../errors.js';
import { bytesToBigInt, parseCidrText, parseIp } from '../address.js';
import { decodeSource } from '../sources.js';

const FEED_FORMATS = ['aws-json', 'google-json', 'oracle-json', 'azure-json', 'ipverse-json', 'onionoo-json', 'cidr-lines', 'geofeed-csv', 'asn-lines', 'asn-csv'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];
export const ASN_FORMATS: readonly FeedFormat[] = ['asn-lines', 'asn-csv'];

const MAX_MALFORMED_SHARE = 0.01;
/**
 * A feed file, on the wire and decompressed, is larger than any publisher's
 * list by far past this (iCloud Private Relay's CSV is ~10 MB); so is a feed
 * of more entries (AWS's list, the longest shipped, has about 100,000). The
 * refresh parses a download on the main thread: a small gzip body that
 * inflated to 500 MiB of addresses took it past 4 GB and ended the process.
 */
export const FEED_MAX_BYTES = 64 * 1024 * 1024;
export const FEED_MAX_ENTRIES = 1_000_000;
/** A line of a text feed longer than this is malformed, read no further (no publisher's line is a tenth of it). */
const MAX_LINE = 1024;
/** A feed's version (syncToken, creationTime, ...) longer than this refuses the file: publishers' are at most a few dozen characters, and it is shown to every tenant. */
const MAX_VERSION = 100;
/**
 * A version shown as the publisher gave it: a number or an ISO 8601 date
 * and time, the shapes every publisher's takes (syncToken 1787299542583,
 * changeNumber 310, creationTime 2026-08-21T01:05:42.583377,
 * relays_published 2026-08-22 11:00:00, 2026-11-19T22:01:03.588Z).
 * Anything else (words, a URL, a phone number) is the publisher's text put
 * before every tenant, and is read as no version: the download's digest
 * stands in for it (update.ts).
 */
const PLAIN_VERSION = /^(?:[0-9]+|[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,9})?)?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)$/;
/** What a feed's version may be shown as besides PLAIN_VERSION: the download's digest (update.ts), a snapshot's date (registry.ts), or unknown. */
const MADE_HERE_VERSION = /^(?:[0-9a-f]{12}|snapshot [0-9]{4}-[0-9]{2}-[0-9]{2}|unknown)$/;

/**
 * A feed's version as every tenant is shown it: each part (a feed of
 * several URLs joins theirs with " | ") a plain publisher's version or one
 * made here, and `unknown` in place of anything else, which only a state
 * or database written before the check can hold.
 */
export function shownVersion(version: string | null): string | null {
  if (version === null) return null;
  return version.split(' | ').map((part) => (PLAIN_VERSION.test(part) || MADE_HERE_VERSION.test(part) ? part : 'unknown')).join(' | ');
}
/**
 * What a JSON feed may hold, checked before JSON.parse builds it: 64 MiB of
 * `[[[...` or `{},{},...` inflates to gigabytes of heap on the refresh's
 * thread. Publishers' documents nest at most 4 deep and hold a few hundred
 * thousand values (AWS about 40,000, an Onionoo document of exits about
 * 200,000).
 */
const JSON_MAX_DEPTH = 16;
const JSON_MAX_VALUES = 4 * FEED_MAX_ENTRIES;

export interface ParsedFeed {
  /** Range feeds: inclusive ranges per family, as found (overlaps are the builder's to resolve). */
  ranges?: { v4: [bigint, bigint][]; v6: [bigint, bigint][] };
  asns?: number[];
  /** ASN lists: the name the list gives each ASN ('' when none). */
  asnNames?: Map<number, string>;
  /** The publisher's own version of the data, when the format carries one. */
  version: string | null;
  entries: number;
  malformed: number;
  /** Entries in special-purpose space, left out. */
  special: number;
  /** The first few malformed entries, for the refresh record. */
  examples: string[];
}

const scratch = new Uint8Array(16);
/** The widest prefix a feed range may have, per family. */
const WIDEST = { 4: 8, 6: 16 } as const;
/**
 * The widest prefix an entry whose address has bits past its prefix may
 * have: "193.138.218.16/8" is a /28 with a digit lost, not a /8 (which would
 * make every visitor in 193/8, carriers included, a VPN exit). No shipped
 * snapshot has such an entry at all; a narrower one (1.2.3.4/24) is read as
 * its block, as routers do.
 */
const WIDEST_WITH_HOST_BITS = { 4: 16, 6: 32 } as const;

// Special-purpose blocks (RFC 6890 and successors) as [start, end], IPv4 as
// 32-bit values, IPv6 as 128-bit values.
const SPECIAL_V4 = ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.0.2.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/3'];
// 2001::/23 holds Teredo and 2002::/16 is 6to4: relays to real people's IPv4 addresses (Vultr's list carries 2002::/16).
const SPECIAL_V6 = ['::/96', '::ffff:0:0/96', '64:ff9b::/96', '100::/64', '2001::/23', '2001:db8::/32', '2002::/16', 'fc00::/7', 'fe80::/10', 'ff00::/8'];

/**
 * An address or CIDR as an inclusive range in the 128-bit space (IPv4
 * mapped), or null; `hostBits` when the address had bits set past the prefix.
 */
export function cidrRange(text: string): { family: 4 | 6; start: bigint; end: bigint; prefix: number; hostBits: boolean } | null {
  const c = parseCidrText(text, scratch);
  if (c === null) return null;
  // An IPv4 block is read as IPv4 (::ffff:a.b.c.d written as IPv6 stays IPv6).
  const { family, prefix } = c;
  const bits = family === 4 ? 32 : 128;
  const value = bytesToBigInt(scratch);
  const base = family === 4 ? value & 0xffffffffn : value;
  const size = 1n << BigInt(bits - prefix);
  const start = base - (base % size);
  return { family, start, end: start + size - 1n, prefix, hostBits: start !== base };
}

const special = (list: string[]) => list.map((c) => cidrRange(c)!);
let specialRanges: { v4: { start: bigint; end: bigint }[]; v6: { start: bigint; end: bigint }[] } | null = null;

/** Whether a range lies inside special-purpose space (private, documentation, ...). */
function isSpecial(family: 4 | 6, start: bigint, end: bigint): boolean {
  specialRanges ??= { v4: special(SPECIAL_V4), v6: special(SPECIAL_V6) };
  return (family === 4 ? specialRanges.v4 : specialRanges.v6).some((s) => start >= s.start && end <= s.end);
}

class Collector {
  readonly #name: string;
  readonly v4: [bigint, bigint][] = [];
  readonly v6: [bigint, bigint][] = [];
  readonly asns: number[] = [];
  readonly asnNames = new Map<number, string>();
  entries = 0;
  malformed = 0;
  /** Ranges inside special-purpose space, left out. */
  special = 0;
  readonly examples: string[] = [];

  constructor(name: string) {
    this.#name = name;
  }

  /** Counts an entry; a file of more than FEED_MAX_ENTRIES is refused at the first one past it. */
  entry(): void {
    if (++this.entries > FEED_MAX_ENTRIES) throw new AppError('feed_invalid', `${this.#name} holds more than ${FEED_MAX_ENTRIES} entries`);
  }

  /** Counts a malformed entry; `what` is quoted in the examples (a JSON value as JSON, cut short). */
  bad(what: unknown): void {
    this.malformed++;
    if (this.examples.length < 5) this.examples.push(clip(typeof what === 'string' ? what : (JSON.stringify(what) ?? String(what)), 80));
  }

  /** A range entry; `from`, when `text` is not a string, is the JSON entry it was read from, quoted in the examples. */
  range(text: unknown, from?: unknown): void {
    this.entry();
    // Some publishers' prefixes carry a zero-width space (Bing's bingbot.json).
    const r = typeof text === 'string' ? cidrRange(text.replace(/[\u200b\ufeff]/g, '').trim()) : null;
    if (r === null || r.prefix < WIDEST[r.family] || (r.hostBits && r.prefix < WIDEST_WITH_HOST_BITS[r.family])) this.bad(typeof text === 'string' ? text : (from ?? text));
    else if (isSpecial(r.family, r.start, r.end)) this.special++;
    else (r.family === 4 ? this.v4 : this.v6).push([r.start, r.end]);
  }

  /** An entry that is malformed as a whole (not an address at all). */
  reject(what: unknown): void {
    this.entry();
    this.bad(what);
  }

  /** One address, no prefix length: an entry of a list of hosts (Onionoo's). */
  address(text: string): void {
    if (text.includes('/')) this.reject(text);
    else this.range(text);
  }

  asn(text: string, name = ''): void {
    this.entry();
    const m = /^(?:AS)?([0-9]{1,10})$/i.exec(text.trim());
    const asn = m ? Number(m[1]) : 0;
    if (asn < 1 || asn > 0xffffffff) {
      this.bad(text);
    } else {
      this.asns.push(asn);
      if (!this.asnNames.has(asn)) this.asnNames.set(asn, name);
    }
  }
}

/**
 * Refuses JSON that nests deeper than JSON_MAX_DEPTH or holds more than
 * JSON_MAX_VALUES values (counted by their separators), in one pass over the
 * text that stops at the first excess.
 */
function checkJsonSize(name: string, text: string): void {
  let depth = 0;
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: skip to its closing quote (a backslash escapes the next character).
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 123 || c === 91) {
      if (++depth > JSON_MAX_DEPTH) throw new AppError('feed_invalid', `${name} nests JSON deeper than ${JSON_MAX_DEPTH} levels: not a publisher's list`);
      values++;
    } else if (c === 125 || c === 93) {
      depth--;
    } else if (c === 44 || c === 58) {
      if (++values > JSON_MAX_VALUES) throw new AppError('feed_invalid', `${name} holds more than ${JSON_MAX_VALUES} JSON values: not a publisher's list`);
    }
  }
}

function json(name: string, text: string): Record<string, unknown> {
  checkJsonSize(name, text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // V8's message quotes the start of the text: the publisher's.
    throw new AppError('feed_invalid', `${name} is not valid JSON (${quoted((err as Error).message, 200)})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new AppError('feed_invalid', `${name} is not a JSON object`);
  return value as Record<string, unknown>;
}

const array = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const field = (v: unknown, key: string): unknown => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined);
const text = (v: unknown): string | null => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);
/** The publisher's version from `key` of `o`, or null (also when not PLAIN_VERSION); refused when longer than MAX_VERSION. */
function version(name: string, o: Record<string, unknown>, key: string): string | null {
  const v = text(o[key]);
  if (v !== null && v.length > MAX_VERSION) throw new AppError('feed_invalid', `${name}: its version ("${key}") is ${v.length} characters long, at most ${MAX_VERSION}`);
  return v !== null && PLAIN_VERSION.test(v) ? v : null;
}

// An Onionoo OR address: IPv4 or bracketed IPv6, then a port (or a port
// list, which the protocol allows).
const OR_ADDRESS = /^(?:([0-9.]+)|\[([0-9A-Fa-f:.]+)\]):[0-9]{1,5}(?:[,-][0-9]{1,5})*$/;

/** The relays of an Onionoo details document that are running exits, each as its addresses. */
function onionooRelays(c: Collector, relays: unknown[]): void {
  const seen = new Set<string>();
  const once = (text: string) => {
    if (seen.has(text)) return;
    seen.add(text);
    c.address(text);
  };
  for (const relay of relays) {
    if (typeof relay !== 'object' || relay === null || Array.isArray(relay)) {
      c.reject(relay);
      continue;
    }
    const { flags, running, or_addresses: or = [], exit_addresses: exits = [] } = relay as Record<string, unknown>;
    if ((flags !== undefined && !Array.isArray(flags)) || !Array.isArray(or) || !Array.isArray(exits)) {
      c.reject(relay);
      continue;
    }
    if ((Array.isArray(flags) && !flags.includes('Exit')) || running === false) continue;
    if (or.length + exits.length === 0) c.reject(relay);
    for (const a of or) {
      const m = typeof a === 'string' ? OR_ADDRESS.exec(a) : null;
      if (m) once((m[1] ?? m[2]).toLowerCase());
      else c.reject(a);
    }
    for (const a of exits) {
      if (typeof a === 'string') once(a.toLowerCase());
      else c.reject(a);
    }
  }
}

/**
 * Calls `each` with every line of `body` (ended by LF, CR LF or a lone CR)
 * that is not blank, trimmed, its comment (`#` on) cut when `comments` and
 * handed over apart; a
 * line longer than MAX_LINE is counted malformed in `c` instead, unread.
 */
function forEachLine(body: string, c: Collector, each: (line: string, comment: string) => void, comments = true): void {
  for (let start = 0; start < body.length; ) {
    let end = start;
    while (end < body.length) {
      const ch = body.charCodeAt(end);
      if (ch === 10 || ch === 13) break;
      end++;
    }
    if (end - start > MAX_LINE) {
      c.reject(`a line of ${end - start} characters: ${body.slice(start, start + 40)}`);
    } else {
      const raw = body.slice(start, end);
      const hash = comments ? raw.indexOf('#') : -1;
      const line = (hash < 0 ? raw : raw.slice(0, hash)).trim();
      if (line !== '') each(line, hash < 0 ? '' : raw.slice(hash + 1).trim());
    }
    start = end + (body.charCodeAt(end) === 13 && body.charCodeAt(end + 1) === 10 ? 2 : 1);
  }
}

/**
 * How each format is read: its entries go into the Collector; the answer is
 * the publisher's version of the data when the format carries one.
 */
const READERS: Record<FeedFormat, (body: string, name: string, c: Collector) => string | null> = {
  'aws-json': (body, name, c) => {
    const o = json(name, body);
    // Both lists or neither: a renamed key would drop a family without a malformed entry.
    for (const key of ['prefixes', 'ipv6_prefixes']) {
      if (!Array.isArray(o[key])) throw new AppError('feed_invalid', `${name} has no "${key}" array: not AWS's ip-ranges.json`);
    }
    for (const p of array(o.prefixes)) c.range(field(p, 'ip_prefix'), p);
    for (const p of array(o.ipv6_prefixes)) c.range(field(p, 'ipv6_prefix'), p);
    return version(name, o, 'syncToken');
  },
  'google-json': (body, name, c) => {
    const o = json(name, body);
    for (const p of array(o.prefixes)) {
      const v4 = field(p, 'ipv4Prefix');
      const v6 = field(p, 'ipv6Prefix');
      if (v4 !== undefined || v6 === undefined) c.range(v4, p);
      if (v6 !== undefined) c.range(v6, p);
    }
    return version(name, o, 'syncToken') ?? version(name, o, 'creationTime');
  },
  'oracle-json': (body, name, c) => {
    const o = json(name, body);
    for (const region of array(o.regions)) for (const cidr of array(field(region, 'cidrs'))) c.range(field(cidr, 'cidr'), cidr);
    return version(name, o, 'last_updated_timestamp');
  },
  'azure-json': (body, name, c) => {
    const o = json(name, body);
    const all = array(o.values).find((v) => field(v, 'name') === 'AzureCloud');
    for (const p of array(field(field(all, 'properties'), 'addressPrefixes'))) c.range(p);
    return version(name, o, 'changeNumber');
  },
  'ipverse-json': (body, name, c) => {
    const services = field(json(name, body), 'services');
    let latest = '';
    for (const service of Object.values(typeof services === 'object' && services !== null ? services : {})) {
      if (field(service, 'ip_list_authoritative') !== true) continue;
      for (const p of [...array(field(service, 'ipv4')), ...array(field(service, 'ipv6'))]) c.range(p);
      const changed = typeof service === 'object' && service !== null ? (version(name, service as Record<string, unknown>, 'last_changed_at') ?? '') : '';
      if (changed > latest) latest = changed;
    }
    return latest || null;
  },
  'onionoo-json': (body, name, c) => {
    const o = json(name, body);
    if (!Array.isArray(o.relays)) throw new AppError('feed_invalid', `${name} has no "relays" array: not an Onionoo details document`);
    onionooRelays(c, o.relays);
    return version(name, o, 'relays_published');
  },
  'cidr-lines': (body, _name, c) => {
    forEachLine(body, c, (line) => {
      const [first, next] = line.split(/[\s,;]+/, 2);
      // A range written another way ("1.1.1.0 - 1.1.1.255", "1.1.1.0 /24",
      // "1.1.1.0<tab>24"): the first field alone would be one address.
      if (!first.includes('/') && next !== undefined && (/^[-/]/.test(next) || /^[0-9]{1,3}$/.test(next) || parseIp(next, scratch) !== 0)) {
        c.reject(line);
      } else {
        c.range(first);
      }
    });
    return null;
  },
  'geofeed-csv': (body, _name, c) => {
    forEachLine(body, c, (line) => c.range(line.split(',', 1)[0].trim()));
    return null;
  },
  'asn-lines': (body, _name, c) => {
    // X4BNet: `AS16509 # Amazon`; the comment is the ASN's name.
    forEachLine(body, c, (line, comment) => c.asn(line.split(/[\s,;]/, 1)[0], comment));
    return null;
  },
  'asn-csv': (body, _name, c) => {
    // `ASN,Name` with a header line; a name may be quoted, after a stray space.
    // A `#` starts a comment only at the start of a row (a name may hold one).
    let first = true;
    forEachLine(body, c, (row) => {
      if (row.startsWith('#')) return;
      const header = first && !/^"?(AS)?[0-9]/i.test(row);
      first = false;
      if (header) return;
      const comma = row.indexOf(',');
      const asn = (comma < 0 ? row : row.slice(0, comma)).trim().replace(/^"|"$/g, '');
      c.asn(asn, comma < 0 ? '' : row.slice(comma + 1).trim().replace(/^"|"$/g, '').replace(/""/g, '"'));
    }, false);
    return null;
  },
};

/** Parses one feed file; throws AppError feed_invalid when it is unusable. `name` names it in messages. */
export function parseFeed(format: FeedFormat, data: Uint8Array, name: string): ParsedFeed {
  const c = new Collector(name);
  let version: string | null;
  try {
    version = READERS[format](decodeSource(name, data, FEED_MAX_BYTES), name, c);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('feed_invalid', `${name} could not be read as ${format}: ${quoted((err as Error).message, 200)}`);
  }
  if (c.malformed > c.entries * MAX_MALFORMED_SHARE) {
    throw new AppError('feed_invalid', `${name}: ${c.malformed} of ${c.entries} entries are malformed (e.g. ${quoted(c.examples[0], 80)})`);
  }
  if (c.entries - c.special === 0) throw new AppError('feed_invalid', `${name} holds no ${ASN_FORMATS.includes(format) ? 'ASN' : 'address range'} in the ${format} format`);
  return {
    ...(ASN_FORMATS.includes(format) ? { asns: c.asns, asnNames: c.asnNames } : { ranges: { v4: c.v4, v6: c.v6 } }),
    version,
    entries: c.entries,
    malformed: c.malformed,
    special: c.special,
    examples: c.examples,
  };
}
