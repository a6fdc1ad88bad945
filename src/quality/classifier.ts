// The IP quality classifier (contract §6): a database plus the lists, with
// every per-organization answer computed up front so that classifying a
// visitor costs one byte read after the lookup.
//
// Tables, one entry per database record (record 0 = "not in the database"):
//   strong/weak/vpn/carrierWord  index of the first matching keyword, or -1
//                                (carrierWord is -1 when the name also holds
//                                an outweigh_carrier word: keywords.json)
//   carrierAsn                   1 when the record's ASN is a listed carrier
//   packed[record]               one u16 per record: the decision at level index
//                                L = 0..3 (RULE_* below) in bits 3L .. 3L+2
//                                (level 0, off, is always RULE_PASS), the
//                                blacklist entry's level index in bits 12-13
//                                (0 = none) and its kind in bits 14-15 (0 none,
//                                1 vpn or proxy, 2 any other category)
// (one u16 instead of separate bytes saves about 0.4 MB per server thread).
// The keyword tables depend on the database only; the blacklist tables and
// the verdicts are recomputed (a few ms) whenever the operator's blacklist
// changes, and a new Classifier is made for a new database.
//
// The signals, in the order they decide (contract §6, §6a):
//   relay        an address in a relay's egress ranges (real people behind
//                iCloud Private Relay) is intercepted only at high, whatever
//                else its record says.
//   blacklist    the curated list, the operator's entries, and the ASNs the
//                database's ASN feeds list (the hosting list, from medium);
//                decisive at its level.
//   range feed   the record's addresses are in a feed's published ranges:
//                tor, vpn, crawler intercept from low; cloud, hosting from
//                medium. No whitelist cancels a feed.
//   keywords     strong and VPN words from medium, weak words at high, each
//                cancelled by the carrier whitelist.
// The user agent is judged apart, by the redirect (user-agent.ts).
import type { FeedInfo, IpDatabase, LookupResult } from '../ipdb/database.js';
import type { FeedLabel } from '../ipdb/format.js';
import { classifyUserAgent, type UserAgentVerdict } from './user-agent.js';
import { CarrierWords, KeywordSet, words } from './keywords.js';
import { type BlacklistCategory, type BuiltInLists, LEVEL_INDEX, type Level } from './lists.js';

/** Verdict codes: what decided a visitor at a level. */
export const RULE_PASS = 0;
export const RULE_ASN_BLACKLIST = 1;
export const RULE_ORG_KEYWORD = 2;
export const RULE_VPN_PROXY = 3;
/** Passed because the carrier whitelist cancelled a keyword hit. */
export const RULE_CARRIER_WHITELIST = 4;
export const RULE_RANGE_FEED = 5;

/** The level index from which a range feed label intercepts (relay: only at high, and nothing else applies). */
const FEED_LEVEL: Record<FeedLabel, number> = { tor: 1, vpn: 1, crawler: 1, cloud: 2, hosting: 2, relay: 3 };
const FEED_CATEGORY: Record<FeedLabel, Category> = { tor: 'vpn_proxy', vpn: 'vpn_proxy', cloud: 'datacenter', hosting: 'datacenter', crawler: 'datacenter', relay: 'other' };

export type Category = 'datacenter' | 'vpn_proxy' | 'carrier' | 'other' | 'unknown';

export interface ActiveBlacklistEntry {
  asn: number;
  category: BlacklistCategory;
  level: 'low' | 'medium' | 'high';
  /**
   * False for a built-in entry the operator disabled: it intercepts nothing,
   * and its ASN's addresses are spared the range feeds too, so that
   * disabling an ASN lets it through (the operator's word over any list).
   */
  enabled?: boolean;
}

/** An ASN that an ASN feed of the database lists (the hosting list), with its organization there. */
export interface ListedAsn {
  asn: number;
  organization: string;
  feed: FeedInfo;
}

/** The lookup's answer plus the classification (contract §6). */
export interface CheckResult extends LookupResult {
  category: Category;
  signals: {
    asn_blacklist: boolean;
    org_keyword: string | null;
    vpn_proxy: string | null;
    carrier_whitelist: string | null;
    range_feed: { feed: string; label: FeedLabel } | null;
    /** Filled when the check was asked with a user agent. */
    user_agent: UserAgentVerdict | null;
  };
  intercept: { low: boolean; medium: boolean; high: boolean };
  level: Level;
  intercepted: boolean;
  database: { version: string; built_at: string };
}

/**
 * Per-record keyword answers for one database. Computing them matches every
 * organization name (about 0.2 s for the full database), so it is done once
 * per database, in shared memory, and handed to every thread.
 */
export interface KeywordTables {
  strong: Int16Array;
  weak: Int16Array;
  vpn: Int16Array;
  carrierWord: Int16Array;
  carrierAsn: Uint8Array;
}

/** The keyword tables of a database, in SharedArrayBuffers (cheap to post to other threads). */
export function computeKeywordTables(db: IpDatabase, lists: BuiltInLists): KeywordTables {
  const n = db.recordCount;
  const i16 = () => new Int16Array(new SharedArrayBuffer(2 * n)).fill(-1);
  const t: KeywordTables = {
    strong: i16(),
    weak: i16(),
    vpn: i16(),
    carrierWord: i16(),
    carrierAsn: new Uint8Array(new SharedArrayBuffer(n)),
  };
  const k = lists.keywords;
  // A carrier word does not speak for a name that also carries a hosting
  // word it cannot outweigh ("PowerHost Telecom"): such a name has no
  // carrier word. Carrier ASNs are unaffected.
  const sets: [{ match(ws: readonly string[]): string | null }, string[], Int16Array][] = [
    [new KeywordSet(k.strong, k.false_friends), k.strong, t.strong],
    [new KeywordSet(k.weak, k.false_friends), k.weak, t.weak],
    [new KeywordSet(k.vpn_proxy, k.false_friends), k.vpn_proxy, t.vpn],
    [new CarrierWords(k), k.carrier, t.carrierWord],
  ];
  const carrierAsns = new Set(lists.carriers.map((c) => c.asn));
  // Organizations repeat across records: match each distinct name once.
  const seen = new Map<string, number[]>();
  for (let r = 1; r < n; r++) {
    if (carrierAsns.has(db.asn(r))) t.carrierAsn[r] = 1;
    const org = db.organization(r);
    let hits = seen.get(org);
    if (!hits) {
      const ws = words(org);
      hits = sets.map(([set, list]) => {
        const m = set.match(ws);
        return m === null ? -1 : list.indexOf(m);
      });
      seen.set(org, hits);
    }
    for (let k = 0; k < sets.length; k++) sets[k][2][r] = hits[k];
  }
  return t;
}

export class Classifier {
  readonly database: IpDatabase;
  /** The ASNs the database's ASN feeds list, by ASN (the operator's blacklist shows them as built-in entries). */
  readonly listed: ReadonlyMap<number, ListedAsn>;
  readonly #lists: BuiltInLists;
  readonly #keywordTables: KeywordTables;
  /** Per record: blacklist level and kind, and the verdict at each level (layout above). */
  #packed: Uint16Array;
  /** ASNs whose built-in entry the operator disabled: no blacklist entry and no range feed applies to them. */
  #spared: ReadonlySet<number> = new Set();

  /** `blacklist`: the entries in force (the curated list, the operator's, and `listed`, minus what the operator disabled). */
  constructor(database: IpDatabase, lists: BuiltInLists, blacklist: Iterable<ActiveBlacklistEntry> | ((listed: ReadonlyMap<number, ListedAsn>) => Iterable<ActiveBlacklistEntry>), keywordTables?: KeywordTables) {
    this.database = database;
    this.#lists = lists;
    this.#keywordTables = keywordTables ?? computeKeywordTables(database, lists);
    this.listed = listedAsns(database);
    this.#packed = this.#tables(typeof blacklist === 'function' ? blacklist(this.listed) : blacklist);
  }

  setBlacklist(blacklist: Iterable<ActiveBlacklistEntry>): void {
    this.#packed = this.#tables(blacklist);
  }

  /** The per-record table for a blacklist: level, kind, and the verdict at each level. */
  #tables(blacklist: Iterable<ActiveBlacklistEntry>): Uint16Array {
    const byAsn = new Map<number, ActiveBlacklistEntry>();
    const spared = new Set<number>();
    for (const e of blacklist) {
      if (e.enabled === false) spared.add(e.asn);
      else byAsn.set(e.asn, e);
    }
    this.#spared = spared;
    const db = this.database;
    const n = db.recordCount;
    const packed = new Uint16Array(n);
    const tables = this.#keywordTables;
    for (let r = 1; r < n; r++) {
      const entry = byAsn.get(db.asn(r));
      const feed = this.#rangeFeed(r);
      // Most records match nothing: every verdict passes (RULE_PASS is 0 and
      // the array starts zeroed). Skipping them keeps a thread's first build,
      // run before the code is optimised, at a few ms (docs/performance.md).
      if (entry === undefined && feed === null && tables.vpn[r] < 0 && tables.strong[r] < 0 && tables.weak[r] < 0) continue;
      const blLevel = entry ? LEVEL_INDEX[entry.level] : 0;
      const blKind = !entry ? 0 : entry.category === 'vpn' || entry.category === 'proxy' ? 1 : 2;
      let bits = (blLevel << 12) | (blKind << 14);
      const carrier = tables.carrierAsn[r] === 1 || tables.carrierWord[r] >= 0;
      const feedLevel = feed === null ? 4 : FEED_LEVEL[feed.label];
      const relay = feed?.label === 'relay';
      for (let level = 1; level <= 3; level++) {
        let rule = RULE_PASS;
        if (relay) rule = level >= feedLevel ? RULE_RANGE_FEED : RULE_PASS;
        else if (blLevel !== 0 && level >= blLevel) rule = RULE_ASN_BLACKLIST;
        else if (level >= feedLevel) rule = RULE_RANGE_FEED;
        else if (level >= 2 && tables.vpn[r] >= 0) rule = RULE_VPN_PROXY;
        else if (level >= 2 && tables.strong[r] >= 0) rule = RULE_ORG_KEYWORD;
        else if (level >= 3 && tables.weak[r] >= 0) rule = RULE_ORG_KEYWORD;
        if ((rule === RULE_VPN_PROXY || rule === RULE_ORG_KEYWORD) && carrier) rule = RULE_CARRIER_WHITELIST;
        bits |= rule << (3 * level);
      }
      packed[r] = bits;
    }
    return packed;
  }

  /** The record's range feed, unless the operator spared its ASN (disabled its built-in entry). */
  #rangeFeed(record: number): FeedInfo | null {
    const feed = this.database.rangeFeed(record);
    return feed !== null && this.#spared.has(this.database.asn(record)) ? null : feed;
  }

  /** The decision for a record at a level index (0 off .. 3 high): a RULE_* code. Hot path. */
  verdict(record: number, level: number): number {
    return (this.#packed[record] >>> (3 * level)) & 7;
  }

  #blacklistLevel(record: number): number {
    return (this.#packed[record] >>> 12) & 3;
  }

  category(record: number): Category {
    if (record === 0) return 'unknown';
    // A publisher's own ranges say what an address is; an aggregate hosting
    // list says less than the blacklist entry of its ASN.
    const feed = this.#rangeFeed(record);
    if (feed !== null && feed.label !== 'hosting') return FEED_CATEGORY[feed.label];
    const bl = this.#packed[record] >>> 14;
    if (bl !== 0) return bl === 1 ? 'vpn_proxy' : 'datacenter';
    if (feed !== null) return FEED_CATEGORY[feed.label];
    if (this.database.asn(record) === 0) return 'unknown';
    const tables = this.#keywordTables;
    if (tables.carrierAsn[record] === 1 || tables.carrierWord[record] >= 0) return 'carrier';
    if (tables.vpn[record] >= 0) return 'vpn_proxy';
    if (tables.strong[record] >= 0) return 'datacenter';
    return 'other';
  }

  /**
   * The full check result for address text (contract §6, §6a), or null when
   * the text is not an address. With `userAgent` (undefined: not asked) the
   * answer also says what the redirect would make of that user agent, and
   * `intercept` covers both.
   */
  check(ip: string, level: Level, userAgent?: string): CheckResult | null {
    const found = this.database.describe(ip);
    if (!found) return null;
    const db = this.database;
    const record = db.lookupText(ip);
    const tables = this.#keywordTables;
    const k = this.#lists.keywords;
    const keywordHit = tables.strong[record] >= 0 || tables.weak[record] >= 0 || tables.vpn[record] >= 0;
    const carrier = tables.carrierAsn[record] === 1 || tables.carrierWord[record] >= 0;
    const agent = userAgent === undefined ? null : classifyUserAgent(userAgent);
    const byAgent = (lvl: number) => agent !== null && (agent.crawler || (userAgent === '' && lvl >= 3));
    const intercept = {
      low: isIntercept(this.verdict(record, 1)) || byAgent(1),
      medium: isIntercept(this.verdict(record, 2)) || byAgent(2),
      high: isIntercept(this.verdict(record, 3)) || byAgent(3),
    };
    const feed = this.#rangeFeed(record);
    return {
      ...found,
      category: this.category(record),
      signals: {
        asn_blacklist: this.#blacklistLevel(record) !== 0,
        org_keyword: record === 0 ? null : (k.strong[tables.strong[record]] ?? k.weak[tables.weak[record]] ?? null),
        vpn_proxy: record === 0 ? null : (k.vpn_proxy[tables.vpn[record]] ?? null),
        // Reported only where it cancelled a keyword hit: never beside a
        // blacklisted ASN, which it cannot override.
        carrier_whitelist:
          record !== 0 && keywordHit && carrier && this.#blacklistLevel(record) === 0 && feed === null
            ? (k.carrier[tables.carrierWord[record]] ?? `AS${db.asn(record)}`)
            : null,
        range_feed: feed === null ? null : { feed: feed.name, label: feed.label },
        user_agent: agent,
      },
      intercept,
      level,
      intercepted: level === 'off' ? false : intercept[level],
      database: { version: db.info.version, built_at: db.info.builtAt },
    };
  }
}

export function isIntercept(rule: number): boolean {
  return rule === RULE_ASN_BLACKLIST || rule === RULE_ORG_KEYWORD || rule === RULE_VPN_PROXY || rule === RULE_RANGE_FEED;
}

/** Every ASN an ASN feed of the database lists, with the organization of its first record. */
function listedAsns(db: IpDatabase): Map<number, ListedAsn> {
  const out = new Map<number, ListedAsn>();
  for (let r = 1; r < db.recordCount; r++) {
    const feed = db.asnFeed(r);
    const asn = db.asn(r);
    if (feed !== null && !out.has(asn)) out.set(asn, { asn, organization: db.organization(r), feed });
  }
  return out;
}
