// The built-in lists (src/quality/lists/*.json and hosting-asns.csv, data
// kept in the repository), read and checked once. A malformed list stops
// start-up with a message naming the file and the entry (or line).
import { splitCsvLine } from '../csv.js';
import { AppError } from '../errors.js';
import { readFileSync } from 'node:fs';
import { type HostingListInput, parseReview, ROW_SOURCES } from './hosting-list.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CarrierWords, keywordShape, words } from './keywords.js';

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
  /** Hosting words and stems, and (appended by the checker) every `hosting_brands` entry. */
  strong: string[];
  /**
   * Names of well-known hosting and data-centre operators, whole words only
   * ("xtom", "internet vikings"): matched as `strong` words (the checker
   * appends them to `strong`), kept apart so that their share can be measured.
   */
  hosting_brands: string[];
  weak: string[];
  vpn_proxy: string[];
  carrier: string[];
  /** Words no stem matches ("echostar" is not "…host…"). */
  false_friends: string[];
  /** Hosting words and stems a carrier word cannot cancel ("PowerHost Telecom"). */
  outweigh_carrier: string[];
}

const HOSTING_ASN_CATEGORIES = ['hosting', 'vpn'] as const;
type HostingAsnCategory = (typeof HOSTING_ASN_CATEGORIES)[number];

/** A row of hosting-asns.csv: a hosting or VPN ASN from the public lists. */
export interface HostingAsn {
  asn: number;
  name: string;
  category: HostingAsnCategory;
  sources: string[];
}

export interface BuiltInLists {
  blacklist: BlacklistEntry[];
  carriers: CarrierAsn[];
  keywords: Keywords;
  hostingAsns: HostingAsn[];
}

// src/quality/lists from both src/quality and dist/quality.
const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/quality/lists');

function readText(file: string): string {
  try {
    return readFileSync(path.join(dir, file), 'utf8');
  } catch (err) {
    throw new AppError('list_invalid', `the built-in list ${file} could not be read: ${(err as Error).message}`);
  }
}

function read(file: string): unknown {
  const text = readText(file);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('list_invalid', `the built-in list ${file} could not be read: ${(err as Error).message}`);
  }
}

const isAsn = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0 && (v as number) <= 0xffffffff;

function checkBlacklist(raw: unknown): BlacklistEntry[] {
  if (!Array.isArray(raw)) throw new AppError('list_invalid', 'asn-blacklist.json must be an array');
  const seen = new Set<number>();
  return raw.map((e, i) => {
    const where = `asn-blacklist.json entry ${i}`;
    if (!isAsn(e?.asn)) throw new AppError('list_invalid', `${where}: asn must be an integer from 1 to 4294967295`);
    if (seen.has(e.asn)) throw new AppError('list_invalid', `${where}: AS${e.asn} is listed twice`);
    seen.add(e.asn);
    if (!BLACKLIST_CATEGORIES.includes(e.category)) throw new AppError('list_invalid', `${where}: category must be one of ${BLACKLIST_CATEGORIES.join(', ')}`);
    if (!['low', 'medium', 'high'].includes(e.level)) throw new AppError('list_invalid', `${where}: level must be low, medium or high`);
    if (typeof e.provider !== 'string' || typeof e.source !== 'string') throw new AppError('list_invalid', `${where}: provider and source must be strings`);
    return { asn: e.asn, provider: e.provider, category: e.category, level: e.level, source: e.source };
  });
}

/**
 * A keywords.json list: lowercase keywords, each whole words ("data center")
 * or, where `stems` allows, a one-word stem with a star at its start, end or
 * both ("host*", "*hosting", "*vps*"; keywords.ts). Errors name the entry.
 */
function checkWords(raw: unknown, name: string, stems: boolean): string[] {
  if (!Array.isArray(raw)) throw new AppError('list_invalid', `keywords.json ${name} must be an array of lowercase words`);
  const seen = new Set<string>();
  raw.forEach((w, i) => {
    const where = `keywords.json ${name}[${i}]`;
    if (typeof w !== 'string' || w !== w.toLowerCase().trim() || w === '') throw new AppError('list_invalid', `${where} must be a lowercase word`);
    const shape = keywordShape(w);
    if (shape === null) throw new AppError('list_invalid', `${where} (${JSON.stringify(w)}) must be whole words or one word with a leading and/or trailing *`);
    if (shape !== 'words' && !stems) throw new AppError('list_invalid', `${where} (${JSON.stringify(w)}) must be whole words: ${name} takes no stems`);
    if (seen.has(w)) throw new AppError('list_invalid', `${where} (${JSON.stringify(w)}) is listed twice`);
    seen.add(w);
  });
  return raw as string[];
}

/** keywords.json false_friends: single whole words. */
function checkFalseFriends(raw: unknown): string[] {
  const list = checkWords(raw, 'false_friends', false);
  list.forEach((w, i) => {
    if (words(w).length !== 1 || words(w)[0] !== w) throw new AppError('list_invalid', `keywords.json false_friends[${i}] (${JSON.stringify(w)}) must be one word of letters and digits`);
  });
  return list;
}

/** keywords.json: the keyword lists (its `notes` are for people and not read). */
export function checkKeywords(raw: unknown): Keywords {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new AppError('list_invalid', 'keywords.json must be an object');
  const k = raw as Record<string, unknown>;
  const strong = checkWords(k.strong, 'strong', true);
  // Optional: a brand is matched like a strong whole word.
  const brands = k.hosting_brands === undefined ? [] : checkWords(k.hosting_brands, 'hosting_brands', false);
  brands.forEach((w, i) => {
    if (strong.includes(w)) throw new AppError('list_invalid', `keywords.json hosting_brands[${i}] (${JSON.stringify(w)}) is also a strong word`);
  });
  return {
    strong: [...strong, ...brands],
    hosting_brands: brands,
    weak: checkWords(k.weak, 'weak', true),
    vpn_proxy: checkWords(k.vpn_proxy, 'vpn_proxy', true),
    carrier: checkWords(k.carrier, 'carrier', false),
    false_friends: checkFalseFriends(k.false_friends),
    outweigh_carrier: checkWords(k.outweigh_carrier, 'outweigh_carrier', true),
  };
}

const HOSTING_HEADER = 'asn,name,category,sources';

/**
 * hosting-asns.csv: a header, then one `asn,name,category,sources` row a
 * line, unique by ASN, none of them on the curated blacklist (which wins) or
 * on the carrier list. `text` is the file's content; errors name the line.
 */
export function checkHostingAsns(text: string, blacklist: readonly BlacklistEntry[], carriers: readonly CarrierAsn[], file = 'hosting-asns.csv'): HostingAsn[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines[0]?.replace(/\r$/, '') !== HOSTING_HEADER) throw new AppError('list_invalid', `${file} line 1: the header must be ${HOSTING_HEADER}`);
  const listed = new Set(blacklist.map((e) => e.asn));
  const carrierAsns = new Set(carriers.map((c) => c.asn));
  const seen = new Set<number>();
  const out: HostingAsn[] = [];
  for (let i = 1; i < lines.length; i++) {
    const where = `${file} line ${i + 1}`;
    const f = splitCsvLine(lines[i].replace(/\r$/, ''));
    if (!f || f.length !== 4) throw new AppError('list_invalid', `${where}: expected 4 fields (${HOSTING_HEADER})`);
    const [asnText, name, category, sources] = f;
    const asn = /^[1-9][0-9]{0,9}$/.test(asnText) ? Number(asnText) : NaN;
    if (!isAsn(asn)) throw new AppError('list_invalid', `${where}: asn must be an integer from 1 to 4294967295`);
    if (seen.has(asn)) throw new AppError('list_invalid', `${where}: AS${asn} is listed twice`);
    seen.add(asn);
    if (listed.has(asn)) throw new AppError('list_invalid', `${where}: AS${asn} is on asn-blacklist.json, which decides it`);
    if (carrierAsns.has(asn)) throw new AppError('list_invalid', `${where}: AS${asn} is on carrier-asns.json`);
    if (name.trim() === '') throw new AppError('list_invalid', `${where}: name must not be empty`);
    if (!(HOSTING_ASN_CATEGORIES as readonly string[]).includes(category)) throw new AppError('list_invalid', `${where}: category must be ${HOSTING_ASN_CATEGORIES.join(' or ')}`);
    const ids = sources.split(';');
    if (sources === '' || !ids.every((s) => (ROW_SOURCES as readonly string[]).includes(s))) {
      throw new AppError('list_invalid', `${where}: sources must be ;-separated ids among ${ROW_SOURCES.join(', ')}`);
    }
    out.push({ asn, name, category: category as HostingAsnCategory, sources: ids });
  }
  return out;
}

let cached: BuiltInLists | null = null;

export function builtInLists(): BuiltInLists {
  if (cached) return cached;
  const carriersRaw = read('carrier-asns.json');
  if (!Array.isArray(carriersRaw)) throw new AppError('list_invalid', 'carrier-asns.json must be an array');
  const carriers = carriersRaw.map((c, i) => {
    if (!isAsn(c?.asn)) throw new AppError('list_invalid', `carrier-asns.json entry ${i}: asn must be an integer from 1 to 4294967295`);
    return { asn: c.asn, name: String(c.name ?? ''), country: String(c.country ?? ''), kind: String(c.kind ?? '') };
  });
  const blacklist = checkBlacklist(read('asn-blacklist.json'));
  let hostingAsns: HostingAsn[] | null = null;
  cached = {
    blacklist,
    carriers,
    // Parsed when first read (tests, eval:detection): serving never reads it
    // (database builds compile the list from the upstream lists, ipdb/files.ts),
    // and every server thread would hold its 2,000 rows.
    get hostingAsns() {
      hostingAsns ??= checkHostingAsns(readText('hosting-asns.csv'), blacklist, carriers);
      return hostingAsns;
    },
    keywords: checkKeywords(read('keywords.json')),
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

/**
 * The carriers as the build knows them: the built-in carrier list, and the
 * ASNs whose organization name carries a carrier word that no hosting word
 * outweighs (keywords.ts CarrierWords, the classifier's rule), from the ASN
 * data's name of each ASN. Aggregate `hosting` range feeds and the Tor feeds'
 * memories spare them (ipdb/build.ts carrierAsns); the publishers' own
 * ranges, the current VPN and Tor lists and the ASN feeds do not.
 */
export function carrierAsns(names: ReadonlyMap<number, string>, lists: BuiltInLists = builtInLists()): number[] {
  const rule = new CarrierWords(lists.keywords);
  const out = new Set(lists.carriers.map((c) => c.asn));
  for (const [asn, name] of names) if (rule.match(words(name)) !== null) out.add(asn);
  return [...out];
}

/** What the hosting/VPN ASN list is judged against (quality/hosting-list.ts), from the built-in lists. */
export function hostingListRules(lists: BuiltInLists = builtInLists()): Omit<HostingListInput, 'lists' | 'names'> {
  return {
    carrierWords: lists.keywords.carrier,
    carriers: new Set(lists.carriers.map((c) => c.asn)),
    curated: new Set(lists.blacklist.map((e) => e.asn)),
    curatedHosters: new Map(lists.blacklist.filter((e) => e.level !== 'high').map((e) => [e.asn, e.category === 'vpn' || e.category === 'proxy' ? 'vpn' : 'hosting'])),
    review: parseReview(readFileSync(path.join(dir, 'hosting-asns-review.csv'), 'utf8'), 'hosting-asns-review.csv'),
  };
}

export function parseLevel(value: unknown): Level | null {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value) ? (value as Level) : null;
}
