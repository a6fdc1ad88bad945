// The effective ASN blacklist: the built-in entries, minus those the operator
// disabled, plus the operator's custom entries (store/blacklist-changes.ts).
// Every change goes through the change feed; server threads follow it and
// rebuild their classifier (quality/state.ts), so a change is seen
// everywhere within a second.
//
// Built-in entries are the curated list (src/quality/lists/asn-blacklist.json)
// and the ASNs the serving database's ASN feeds list (the hosting list,
// refreshed with the feeds; `listed`, from Classifier.listed), which
// intercept from medium. A curated entry wins over a listed one.
import { AppError, invalidParameter } from '../errors.js';
import type { BlacklistChanges } from '../store/blacklist-changes.js';
import type { BlacklistChange } from '../store/db.js';
import type { ActiveBlacklistEntry, ListedAsn } from './classifier.js';
import { BLACKLIST_CATEGORIES, type BlacklistCategory, type BlacklistEntry, builtInLists } from './lists.js';

export interface BlacklistView {
  asn: number;
  provider: string;
  category: string;
  level: 'low' | 'medium' | 'high';
  built_in: boolean;
  enabled: boolean;
  source: string | null;
  note: string | null;
  updated_at: string | null;
}

const NO_LISTED: ReadonlyMap<number, ListedAsn> = new Map();

/** The built-in entries: the curated list, then the listed ASNs it does not hold. */
export function builtInEntries(listed: ReadonlyMap<number, ListedAsn> = NO_LISTED): BlacklistEntry[] {
  const curated = builtInLists().blacklist;
  if (listed.size === 0) return curated;
  const out = [...curated];
  const have = new Set(curated.map((e) => e.asn));
  for (const l of listed.values()) {
    if (have.has(l.asn)) continue;
    out.push({
      asn: l.asn, provider: l.organization, category: l.feed.label === 'vpn' ? 'vpn' : 'hosting', level: 'medium',
      source: `feed ${l.feed.name} (version ${l.feed.version})`,
    });
  }
  return out;
}

/** One entry as the API shows it: a built-in entry `e` with the operator's change `c`, or a custom entry (`e` undefined). */
function viewOf(e: BlacklistEntry | undefined, c: BlacklistChange | undefined): BlacklistView {
  if (e) {
    return {
      asn: e.asn, provider: e.provider, category: e.category, level: e.level, built_in: true,
      enabled: !c?.disabled, source: e.source, note: c?.note || null, updated_at: c?.updatedAt ?? null,
    };
  }
  return {
    asn: c!.asn, provider: c!.provider, category: c!.category, level: c!.level, built_in: false,
    enabled: !c!.disabled, source: null, note: c!.note || null, updated_at: c!.updatedAt,
  };
}

/** Every entry, built-in and custom, enabled or not, ordered by ASN. */
export function listBlacklist(stored: BlacklistChanges, listed?: ReadonlyMap<number, ListedAsn>): BlacklistView[] {
  const changes = new Map<number, BlacklistChange>();
  for (const value of stored.all()) changes.set(value.asn, value);
  const out: BlacklistView[] = [];
  for (const e of builtInEntries(listed)) {
    out.push(viewOf(e, changes.get(e.asn)));
    changes.delete(e.asn);
  }
  for (const c of changes.values()) {
    if (c.builtIn) continue; // a change for a built-in entry that a release removed
    out.push(viewOf(undefined, c));
  }
  return out.sort((a, b) => a.asn - b.asn);
}

/**
 * The entries the classifier applies (`stored` null: the built-in ones, as
 * shipped), the operator's disabled built-in entries among them with
 * `enabled: false` (they spare their ASN; see ActiveBlacklistEntry).
 */
export function activeBlacklist(stored: BlacklistChanges | null, listed?: ReadonlyMap<number, ListedAsn>): ActiveBlacklistEntry[] {
  if (!stored) return builtInEntries(listed);
  return listBlacklist(stored, listed)
    .filter((e) => e.enabled || e.built_in)
    .map((e) => ({ asn: e.asn, category: e.category as BlacklistCategory, level: e.level, enabled: e.enabled }));
}

export interface CustomEntryInput {
  asn: unknown;
  provider: unknown;
  category: unknown;
  level?: unknown;
  note?: unknown;
}

export async function addCustomEntry(stored: BlacklistChanges, input: CustomEntryInput, listed?: ReadonlyMap<number, ListedAsn>): Promise<BlacklistView> {
  const asn = input.asn;
  if (!Number.isInteger(asn) || (asn as number) < 1 || (asn as number) > 0xffffffff) throw invalidParameter('asn', 'must be an integer from 1 to 4294967295');
  if (typeof input.provider !== 'string' || input.provider.trim() === '' || input.provider.trim().length > 200) throw invalidParameter('provider', 'must be a string of 1 to 200 characters');
  if (!BLACKLIST_CATEGORIES.includes(input.category as BlacklistCategory)) throw invalidParameter('category', `must be one of ${BLACKLIST_CATEGORIES.join(', ')}`);
  // Optional means absent: null is a wrong type, as for every other field.
  const level = input.level === undefined ? 'low' : input.level;
  if (level !== 'low' && level !== 'medium' && level !== 'high') throw invalidParameter('level', 'must be low, medium or high');
  const note = input.note === undefined ? '' : input.note;
  if (typeof note !== 'string' || note.length > 500) throw invalidParameter('note', 'must be a string of at most 500 characters');
  if (builtInEntries(listed).some((e) => e.asn === asn)) throw invalidParameter('asn', 'is a built-in entry: enable or disable it instead');
  const change: BlacklistChange = {
    asn: asn as number, builtIn: false, disabled: false, provider: input.provider.trim(),
    category: input.category as string, level, note, updatedAt: new Date().toISOString(),
  };
  if (!(await stored.add(change))) throw invalidParameter('asn', 'is already on the blacklist');
  return listBlacklist(stored, listed).find((e) => e.asn === change.asn)!;
}

/**
 * Enables or disables a built-in or custom entry; not_found when the ASN is
 * on neither list. The stored entry is read and written in one transaction,
 * so a concurrent removal or edit is either before or after this one, and the
 * answer is this edit's result.
 */
export async function setEnabled(stored: BlacklistChanges, asn: number, enabled: boolean, note?: string, listed?: ReadonlyMap<number, ListedAsn>): Promise<BlacklistView> {
  const builtIn = builtInEntries(listed).find((e) => e.asn === asn);
  const seed: BlacklistChange | null = builtIn
    ? { asn, builtIn: true, disabled: false, provider: builtIn.provider, category: builtIn.category, level: builtIn.level, note: '', updatedAt: '' }
    : null;
  const written = await stored.setEnabled(asn, { disabled: !enabled, note, updatedAt: new Date().toISOString() }, seed);
  if (!written) throw new AppError('not_found', `AS${asn} is not on the blacklist`);
  return viewOf(builtIn, written);
}

/** Removes a custom entry; built-in entries can only be disabled. */
export async function removeCustomEntry(stored: BlacklistChanges, asn: number, listed?: ReadonlyMap<number, ListedAsn>): Promise<void> {
  if (builtInEntries(listed).some((e) => e.asn === asn)) throw invalidParameter('asn', 'is a built-in entry: disable it instead of removing it');
  if (!(await stored.remove(asn))) throw new AppError('not_found', `AS${asn} is not on the blacklist`);
}
