// The hosting/VPN ASN list: the union of public hosting and VPN ASN lists
// (brianhama/bad-asn-list, X4BNet lists_vpn, O-X-L risk-db-lists), minus
// what a list of hosters must never hold. The same rules make the shipped
// src/quality/lists/hosting-asns.csv (scripts/compile-hosting-asns.js) and
// the list every database build folds in from the lists' latest downloads
// (ipdb/files.ts), so a refresh adds what the upstream lists add, under the
// same scrutiny.
//
// Rules, in order, for every ASN of the union:
//   1. on the curated blacklist                   -> left out (the curated entry wins)
//   2. a listed carrier                           -> left out (a review "keep" for one is an error)
//   3. a "drop" in hosting-asns-review.csv        -> left out
//   4. held (a carrier word in its organization name, listed by O-X-L as ISP
//      or education, a CDN/transit name, a known ISP brand or an institution
//      word, or an organization that also holds an ISP or carrier ASN):
//      kept only with a "keep" in the review; otherwise left out, undecided
//   5. otherwise kept.
//   6. siblings: the ASN data often names one organization for many ASNs
//      ("GoDaddy.com, LLC" holds seventeen) where the lists name a few. An
//      ASN no list names is kept too, with source `sibling` and its
//      sibling's category, under rules 1-4, when its organization name is
//      exactly that of a kept row or of a curated hoster (intercepting from
//      low or medium). Exact names only: looser matches link unrelated
//      organizations (measured in docs/detection.md, "Siblings").
// category: the review's, else `vpn` when a VPN list has it or its names name
// a VPN operator, else `hosting`.
import { AppError } from '../errors.js';

/** The lists the union is made of, by their id in the `sources` column. */
const HOSTING_SOURCES = ['brianhama', 'x4b-dc', 'x4b-vpn', 'oxl-hosting', 'oxl-vpn'] as const;
/** Lists that are evidence against: an ASN on them is held. */
const NEGATIVE_SOURCES = ['oxl-isp', 'oxl-education'] as const;
export type HostingListSource = (typeof HOSTING_SOURCES)[number] | (typeof NEGATIVE_SOURCES)[number];
/** What the `sources` column of a row may name: a list, or `sibling` (rule 6). */
export const ROW_SOURCES = [...HOSTING_SOURCES, 'sibling'] as const;
const VPN_SOURCES: readonly HostingListSource[] = ['x4b-vpn', 'oxl-vpn'];

export interface ReviewDecision {
  decision: 'keep' | 'drop';
  category: 'hosting' | 'vpn' | '';
}

export interface HostingListInput {
  /** Per source id: ASN -> the name the list gives it. */
  lists: Partial<Record<HostingListSource, ReadonlyMap<number, string>>>;
  /** ASN -> its organization in the ASN data (the most frequent one). */
  names: ReadonlyMap<number, string>;
  carrierWords: readonly string[];
  carriers: ReadonlySet<number>;
  curated: ReadonlySet<number>;
  /** Curated entries that intercept from low or medium, by category: the seeds of rule 6 besides the kept rows. */
  curatedHosters: ReadonlyMap<number, 'hosting' | 'vpn'>;
  review: ReadonlyMap<number, ReviewDecision>;
}

interface HostingListEntry {
  asn: number;
  name: string;
  category: 'hosting' | 'vpn';
  sources: string;
}

export interface HostingListResult {
  rows: HostingListEntry[];
  left: { blacklist: number; carrier: number; reviewDrop: number; undecided: string[] };
  /** Review entries neither a list nor rule 6 names any more. */
  stale: number[];
  union: number;
}

const EXTRA_CARRIER_WORDS = ['telco', 'kabel', 'adsl', 'vdsl', 'gpon', '4g', '5g', '3g', 'provedor', 'residential'];
const CDN_NAME = /cloudflare|akamai|fastly|hurricane electric|centurylink|lumen|level 3|cogent|zscaler|incapsula|imperva|edgecast|limelight|edgio|stackpath|cdn77|bunny|gcore|g-core/i;
const ISP_OR_INSTITUTION =
  /\b(charter|comcast|cox communications|spectrum|frontier communications|windstream communications|mediacom|altice|suddenlink|tata teleservices|reliance jio|bharti|hathway|chinanet|china telecom|china unicom|china mobile|unicom|rostelecom|megafon|vimpelcom|beeline|kyivstar|turk telekom|ttnet|superonline|vodafone|orange|telia|telenor|telstra|optus|airtel|mtn|globacom|safaricom|claro|telcel|movistar|telefonica|vivo|tim s|college|university|universidad|universidade|universitat|school|bank|ministry|government|research and education|academic|educational|education network|nren|janet|renater|dfn-verein|garr|rediris|surfnet|switch)\b/i;
const VPN_OPERATOR = /vpn|tefincom|packethub|privax|surfshark|mullvad|windscribe|proton ag|datacamp/i;
/** Linode's ASN carries Akamai's name since the takeover; it is a hoster. */
const CDN_NAME_EXCEPT = new Set([63949]);

const tokens = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * The carrier words and phrases `name` holds, a phrase ("internet service
 * provider", "banda larga") as consecutive words of the name: a token-by-token
 * test alone never finds a phrase, and would let such an ISP into the list.
 */
function carrierWordsIn(name: string, carrierWords: ReadonlySet<string>): string[] {
  const words = tokens(name);
  const found = new Set(words.filter((t) => carrierWords.has(t)));
  const spaced = ` ${words.join(' ')} `;
  for (const phrase of carrierWords) if (phrase.includes(' ') && spaced.includes(` ${tokens(phrase).join(' ')} `)) found.add(phrase);
  return [...found];
}


function heldReasons(asn: number, name: string, carrierWords: ReadonlySet<string>, neg: { isp: ReadonlyMap<number, string>; education: ReadonlyMap<number, string> }, ispNamed: ReadonlyMap<string, number[]>): string[] {
  const r: string[] = [];
  const words = carrierWordsIn(name, carrierWords);
  if (words.length) r.push(`carrier word (${words.join('/')})`);
  if (neg.isp.has(asn)) r.push('O-X-L lists it as ISP');
  if (neg.education.has(asn)) r.push('O-X-L lists it as education');
  if (!CDN_NAME_EXCEPT.has(asn) && CDN_NAME.test(name)) r.push('CDN/relay/transit name');
  const m = ISP_OR_INSTITUTION.exec(name);
  if (m) r.push(`ISP brand or institution word (${m[0]})`);
  const twin = ispNamed.get(name)?.find((a) => a !== asn);
  if (twin !== undefined) r.push(`its organization also holds AS${twin}, an ISP or carrier`);
  return r;
}

export function compileHostingList(input: HostingListInput): HostingListResult {
  const none = new Map<number, string>();
  const neg = { isp: input.lists['oxl-isp'] ?? none, education: input.lists['oxl-education'] ?? none };
  const carrierWords = new Set([...input.carrierWords, ...EXTRA_CARRIER_WORDS]);
  // Organizations (by their exact name in the ASN data) that also hold an ASN
  // O-X-L lists as ISP or a listed carrier: a hosting ASN under such a name
  // has often changed hands (X4BNet's "Empire Host" is now VERO S.A, a
  // Brazilian ISP), so it is held for review.
  const ispNamed = new Map<string, number[]>();
  for (const [asn, name] of input.names) {
    if (!neg.isp.has(asn) && !input.carriers.has(asn)) continue;
    if (/^AS\d+$/.test(name)) continue;
    ispNamed.set(name, [...(ispNamed.get(name) ?? []), asn]);
  }
  const union = new Map<number, { sources: string[]; names: string[] }>();
  for (const id of HOSTING_SOURCES) {
    for (const [asn, name] of input.lists[id] ?? []) {
      if (asn === 0) continue;
      let e = union.get(asn);
      if (!e) union.set(asn, (e = { sources: [], names: [] }));
      e.sources.push(id);
      e.names.push(name);
    }
  }
  const rows: HostingListEntry[] = [];
  const left = { blacklist: 0, carrier: 0, reviewDrop: 0, undecided: [] as string[] };
  // Rules 1-4; the name, or null when the ASN is left out.
  const admit = (asn: number, name: string, sources: string): string | null => {
    const r = input.review.get(asn);
    if (input.curated.has(asn)) {
      left.blacklist++;
      return null;
    }
    if (input.carriers.has(asn)) {
      if (r?.decision === 'keep') throw new AppError('list_invalid', `hosting-asns-review.csv keeps AS${asn}, which is a listed carrier`);
      left.carrier++;
      return null;
    }
    if (r?.decision === 'drop') {
      left.reviewDrop++;
      return null;
    }
    const held = heldReasons(asn, name, carrierWords, neg, ispNamed);
    if (held.length && r?.decision !== 'keep') {
      left.undecided.push(`AS${asn} ${name} [${sources}]: ${held.join('; ')}`);
      return null;
    }
    return name;
  };
  for (const asn of [...union.keys()].sort((a, b) => a - b)) {
    const e = union.get(asn)!;
    // No name anywhere (some O-X-L rows, never announced): the data set's own placeholder form.
    const name = admit(asn, input.names.get(asn) ?? e.names.find((n) => n) ?? `AS${asn}`, e.sources.join(';'));
    if (name === null) continue;
    const text = `${name} ${e.names.join(' ')}`.replace(/https?:\/\/\S+/g, '');
    const category = input.review.get(asn)?.category || (e.sources.some((s) => VPN_SOURCES.includes(s as HostingListSource)) || VPN_OPERATOR.test(text) ? 'vpn' : 'hosting');
    rows.push({ asn, name, category, sources: e.sources.join(';') });
  }

  // Rule 6. Placeholder names ("AS64500") name no organization.
  const byName = new Map<string, 'hosting' | 'vpn'>();
  const seed = (name: string | undefined, category: 'hosting' | 'vpn') => {
    if (name !== undefined && !/^AS\d+$/.test(name) && !byName.has(name)) byName.set(name, category);
  };
  for (const [asn, category] of input.curatedHosters) seed(input.names.get(asn), category);
  for (const r of rows) seed(r.name, r.category);
  const siblings: HostingListEntry[] = [];
  const considered = new Set(union.keys());
  for (const [asn, orgName] of input.names) {
    if (union.has(asn)) continue;
    const category = byName.get(orgName);
    if (category === undefined) continue;
    considered.add(asn);
    if (admit(asn, orgName, 'sibling') !== null) siblings.push({ asn, name: orgName, category: input.review.get(asn)?.category || category, sources: 'sibling' });
  }
  rows.push(...siblings);
  rows.sort((a, b) => a.asn - b.asn);
  const stale = [...input.review.keys()].filter((a) => !considered.has(a));
  return { rows, left, stale, union: union.size };
}

/** The review file (asn,decision,category,name,reason), checked line by line. */
export function parseReview(text: string, file: string): Map<number, ReviewDecision> {
  const out = new Map<number, ReviewDecision>();
  const all = text.split(/\r?\n/);
  if (all[0] !== 'asn,decision,category,name,reason') throw new AppError('list_invalid', `${file} line 1: header must be asn,decision,category,name,reason`);
  all.slice(1).forEach((line, i) => {
    if (!line) return;
    const [asn, decision, category] = line.split(',');
    const where = `${file} line ${i + 2}`;
    if (!/^\d+$/.test(asn)) throw new AppError('list_invalid', `${where}: asn must be a number`);
    if (decision !== 'keep' && decision !== 'drop') throw new AppError('list_invalid', `${where}: decision must be keep or drop`);
    if (decision === 'keep' && category !== 'hosting' && category !== 'vpn') throw new AppError('list_invalid', `${where}: a keep needs category hosting or vpn`);
    if (out.has(Number(asn))) throw new AppError('list_invalid', `${where}: AS${asn} is reviewed twice`);
    out.set(Number(asn), { decision, category: category as ReviewDecision['category'] });
  });
  return out;
}
