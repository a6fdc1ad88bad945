// Reading feed files in their publishers' formats:
//
//   aws-json       ip-ranges.json: prefixes[].ip_prefix, ipv6_prefixes[].ipv6_prefix; version syncToken
//   google-json    cloud.json, goog.json, googlebot.json and the bots that copy
//                  the shape (Bing, OpenAI, Apple): prefixes[].ipv4Prefix / .ipv6Prefix;
//                  version syncToken or creationTime
//   oracle-json    public_ip_ranges.json: regions[].cidrs[].cidr; version last_updated_timestamp
//   azure-json     Service Tags: values[name = AzureCloud].properties.addressPrefixes; version changeNumber
//   cidr-lines     one CIDR or address a line (Tor's bulk exit list, X4BNet, Cloudflare);
//                  `#` starts a comment, a line may carry more fields after the first
//   geofeed-csv    RFC 8805: prefix,country,region,city,postal; `#` comments
//   asn-lines      one ASN a line, `AS123` or `123` first, anything after it ignored
//   asn-csv        a CSV whose first column is an ASN; a header line is skipped
//
// Every entry is checked; a file is refused when it yields nothing, or when
// more than MAX_MALFORMED_SHARE of its entries are malformed (a page of HTML
// served in place of the list, a format change upstream). Malformed entries
// of an accepted file are skipped and counted. Host bits set in a CIDR are
// cleared (lists often write 1.2.3.4/24 for 1.2.3.0/24).
import { AppError } from '../../errors.js';
import { parseIp } from '../address.js';
import { decodeSource } from '../sources.js';

export const FEED_FORMATS = ['aws-json', 'google-json', 'oracle-json', 'azure-json', 'cidr-lines', 'geofeed-csv', 'asn-lines', 'asn-csv'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];
export const ASN_FORMATS: readonly FeedFormat[] = ['asn-lines', 'asn-csv'];

export const MAX_MALFORMED_SHARE = 0.01;

export interface ParsedFeed {
  /** Range feeds: inclusive ranges per family, as found (overlaps are the builder's to resolve). */
  ranges?: { v4: [bigint, bigint][]; v6: [bigint, bigint][] };
  asns?: number[];
  /** The publisher's own version of the data, when the format carries one. */
  version: string | null;
  entries: number;
  malformed: number;
  /** The first few malformed entries, for the refresh record. */
  examples: string[];
}

const scratch = new Uint8Array(16);
const V4_MAPPED = 0xffff00000000n;

/** An address or CIDR as an inclusive range in the 128-bit space (IPv4 mapped), or null. */
export function cidrRange(text: string): { family: 4 | 6; start: bigint; end: bigint } | null {
  const slash = text.indexOf('/');
  const addr = slash < 0 ? text : text.slice(0, slash);
  const version = parseIp(addr, scratch);
  if (version === 0) return null;
  let value = 0n;
  for (let k = 0; k < 16; k++) value = (value << 8n) | BigInt(scratch[k]);
  const family: 4 | 6 = (value >> 32n) === V4_MAPPED >> 32n && version === 4 ? 4 : 6;
  const bits = family === 4 ? 32 : 128;
  let prefix = bits;
  if (slash >= 0) {
    const p = text.slice(slash + 1);
    if (!/^[0-9]{1,3}$/.test(p) || Number(p) > bits) return null;
    prefix = Number(p);
  }
  const base = family === 4 ? value & 0xffffffffn : value;
  const size = 1n << BigInt(bits - prefix);
  const start = base - (base % size);
  return { family, start, end: start + size - 1n };
}

class Collector {
  readonly v4: [bigint, bigint][] = [];
  readonly v6: [bigint, bigint][] = [];
  readonly asns: number[] = [];
  entries = 0;
  malformed = 0;
  readonly examples: string[] = [];

  bad(what: string): void {
    this.malformed++;
    if (this.examples.length < 5) this.examples.push(what.length > 80 ? `${what.slice(0, 77)}...` : what);
  }

  range(text: unknown): void {
    this.entries++;
    const r = typeof text === 'string' ? cidrRange(text.trim()) : null;
    if (r === null) this.bad(String(text));
    else (r.family === 4 ? this.v4 : this.v6).push([r.start, r.end]);
  }

  asn(text: string): void {
    this.entries++;
    const m = /^(?:AS)?([0-9]{1,10})$/i.exec(text.trim());
    const asn = m ? Number(m[1]) : 0;
    if (asn < 1 || asn > 0xffffffff) this.bad(text);
    else this.asns.push(asn);
  }
}

function json(name: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new AppError('feed_invalid', `${name} is not valid JSON (${(err as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new AppError('feed_invalid', `${name} is not a JSON object`);
  return value as Record<string, unknown>;
}

const array = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const field = (v: unknown, key: string): unknown => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined);
const text = (v: unknown): string | null => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);

/** Lines without comments and blank lines, each with its first field. */
function firstFields(body: string, separator: RegExp): string[] {
  const out: string[] = [];
  for (const raw of body.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line !== '') out.push(line.split(separator, 1)[0].trim());
  }
  return out;
}

/** Parses one feed file; throws AppError feed_invalid when it is unusable. `name` names it in messages. */
export function parseFeed(format: FeedFormat, data: Uint8Array, name: string): ParsedFeed {
  const body = decodeSource(name, data);
  const c = new Collector();
  let version: string | null = null;
  switch (format) {
    case 'aws-json': {
      const o = json(name, body);
      version = text(o.syncToken);
      for (const p of array(o.prefixes)) c.range(field(p, 'ip_prefix'));
      for (const p of array(o.ipv6_prefixes)) c.range(field(p, 'ipv6_prefix'));
      break;
    }
    case 'google-json': {
      const o = json(name, body);
      version = text(o.syncToken) ?? text(o.creationTime);
      for (const p of array(o.prefixes)) c.range(field(p, 'ipv4Prefix') ?? field(p, 'ipv6Prefix'));
      break;
    }
    case 'oracle-json': {
      const o = json(name, body);
      version = text(o.last_updated_timestamp);
      for (const region of array(o.regions)) for (const cidr of array(field(region, 'cidrs'))) c.range(field(cidr, 'cidr'));
      break;
    }
    case 'azure-json': {
      const o = json(name, body);
      version = text(o.changeNumber);
      const all = array(o.values).find((v) => field(v, 'name') === 'AzureCloud');
      for (const p of array(field(field(all, 'properties'), 'addressPrefixes'))) c.range(p);
      break;
    }
    case 'cidr-lines':
      for (const f of firstFields(body, /[\s,;]/)) c.range(f);
      break;
    case 'geofeed-csv':
      for (const f of firstFields(body, /,/)) c.range(f);
      break;
    case 'asn-lines':
      for (const f of firstFields(body, /[\s,;]/)) c.asn(f);
      break;
    case 'asn-csv': {
      const fields = firstFields(body, /,/);
      // A header line ("ASN,Entity") is not an entry.
      if (fields.length > 0 && !/^(AS)?[0-9]/i.test(fields[0])) fields.shift();
      for (const f of fields) c.asn(f.replace(/^"|"$/g, ''));
      break;
    }
  }
  if (c.malformed > c.entries * MAX_MALFORMED_SHARE) {
    throw new AppError('feed_invalid', `${name}: ${c.malformed} of ${c.entries} entries are malformed (e.g. "${c.examples[0]}")`);
  }
  if (c.entries === 0) throw new AppError('feed_invalid', `${name} holds no ${ASN_FORMATS.includes(format) ? 'ASN' : 'address range'} in the ${format} format`);
  return {
    ...(ASN_FORMATS.includes(format) ? { asns: c.asns } : { ranges: { v4: c.v4, v6: c.v6 } }),
    version,
    entries: c.entries,
    malformed: c.malformed,
    examples: c.examples,
  };
}
