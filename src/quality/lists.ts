// The built-in lists (src/quality/lists/*.json, data kept in the
// repository), read and checked once. A malformed list stops start-up with a
// message naming the file and the entry.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const LEVELS = ['off', 'low', 'medium', 'high'] as const;
export type Level = (typeof LEVELS)[number];
export const LEVEL_INDEX: Record<Level, number> = { off: 0, low: 1, medium: 2, high: 3 };

export const BLACKLIST_CATEGORIES = ['datacenter', 'cloud', 'hosting', 'vpn', 'proxy', 'cdn', 'transit'] as const;
export type BlacklistCategory = (typeof BLACKLIST_CATEGORIES)[number];

export interface BlacklistEntry {
  asn: number;
  provider: string;
  category: BlacklistCategory;
  /** The lowest level at which the entry intercepts. */
  level: 'low' | 'medium' | 'high';
  source: string;
}

export interface CarrierAsn {
  asn: number;
  name: string;
  country: string;
  kind: string;
}

export interface Keywords {
  strong: string[];
  weak: string[];
  vpn_proxy: string[];
  carrier: string[];
}

export interface BuiltInLists {
  blacklist: BlacklistEntry[];
  carriers: CarrierAsn[];
  keywords: Keywords;
}

// src/quality/lists from both src/quality and dist/quality.
const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/quality/lists');

function read(file: string): unknown {
  try {
    return JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
  } catch (err) {
    throw new Error(`the built-in list ${file} could not be read: ${(err as Error).message}`);
  }
}

const isAsn = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0 && (v as number) <= 0xffffffff;

function checkBlacklist(raw: unknown): BlacklistEntry[] {
  if (!Array.isArray(raw)) throw new Error('asn-blacklist.json must be an array');
  const seen = new Set<number>();
  return raw.map((e, i) => {
    const where = `asn-blacklist.json entry ${i}`;
    if (!isAsn(e?.asn)) throw new Error(`${where}: asn must be an integer from 1 to 4294967295`);
    if (seen.has(e.asn)) throw new Error(`${where}: AS${e.asn} is listed twice`);
    seen.add(e.asn);
    if (!BLACKLIST_CATEGORIES.includes(e.category)) throw new Error(`${where}: category must be one of ${BLACKLIST_CATEGORIES.join(', ')}`);
    if (!['low', 'medium', 'high'].includes(e.level)) throw new Error(`${where}: level must be low, medium or high`);
    if (typeof e.provider !== 'string' || typeof e.source !== 'string') throw new Error(`${where}: provider and source must be strings`);
    return { asn: e.asn, provider: e.provider, category: e.category, level: e.level, source: e.source };
  });
}

function checkWords(raw: unknown, name: string): string[] {
  if (!Array.isArray(raw) || !raw.every((w) => typeof w === 'string' && w === w.toLowerCase().trim() && w !== '')) {
    throw new Error(`keywords.json ${name} must be an array of lowercase words`);
  }
  return raw as string[];
}

let cached: BuiltInLists | null = null;

export function builtInLists(): BuiltInLists {
  if (cached) return cached;
  const carriersRaw = read('carrier-asns.json');
  if (!Array.isArray(carriersRaw)) throw new Error('carrier-asns.json must be an array');
  const carriers = carriersRaw.map((c, i) => {
    if (!isAsn(c?.asn)) throw new Error(`carrier-asns.json entry ${i}: asn must be an integer from 1 to 4294967295`);
    return { asn: c.asn, name: String(c.name ?? ''), country: String(c.country ?? ''), kind: String(c.kind ?? '') };
  });
  const k = read('keywords.json') as Record<string, unknown>;
  cached = {
    blacklist: checkBlacklist(read('asn-blacklist.json')),
    carriers,
    keywords: {
      strong: checkWords(k.strong, 'strong'),
      weak: checkWords(k.weak, 'weak'),
      vpn_proxy: checkWords(k.vpn_proxy, 'vpn_proxy'),
      carrier: checkWords(k.carrier, 'carrier'),
    },
  };
  return cached;
}

/**
 * ASNs no ASN feed may list, whatever the upstream lists say: the explicit
 * carriers (real people; public hosting lists carry some of them) and the
 * curated entries that intercept only at high (CDN, relay and transit
 * networks that real people's traffic crosses).
 */
export function excludedFromAsnFeeds(lists: BuiltInLists = builtInLists()): number[] {
  return [...new Set([...lists.carriers.map((c) => c.asn), ...lists.blacklist.filter((e) => e.level === 'high').map((e) => e.asn)])];
}

export function parseLevel(value: unknown): Level | null {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value) ? (value as Level) : null;
}
