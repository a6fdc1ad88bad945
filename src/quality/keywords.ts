// Keyword matching on organization names, case-insensitive. Runs once per
// organization when a database is loaded, never per request.
//
// A name is split into words of letters and digits (any script). A keyword
// is one of:
//   word, "two words"   whole words: a phrase matches those words in sequence
//   "host*"             a stem at the start of a word: "hostroyale"
//   "*hosting"          a stem at the end of a word:   "egihosting"
//   "*vps*"             a stem anywhere in a word:      "bluevpsnet"
// A stem never matches a word on the false-friend list ("echostar",
// "ghost"): those words are compared whole, like any other. Without a stem,
// "HAProxy" is one word, so "proxy" does not match it, and "Colombia" is not
// "colo". The match reported is the keyword as listed ("*hosting"), so the
// IP check names the rule that fired.

const WORD = /[\p{L}\p{N}]+/gu;

export function words(name: string): string[] {
  return name.toLowerCase().match(WORD) ?? [];
}

/** A keyword's shape: whole words, or a one-word stem anchored at the start, the end, or neither. */
export type KeywordShape = 'words' | 'prefix' | 'suffix' | 'inside';

const STEM = /^(\*?)([\p{L}\p{N}]+)(\*?)$/u;

/** The shape of a keyword as written, or null when it is not a valid keyword (stars in a phrase, a bare star). */
export function keywordShape(keyword: string): KeywordShape | null {
  if (!keyword.includes('*')) return words(keyword).length > 0 ? 'words' : null;
  const m = STEM.exec(keyword);
  if (!m || (!m[1] && !m[3])) return null;
  return m[1] && m[3] ? 'inside' : m[1] ? 'suffix' : 'prefix';
}

interface Stem {
  keyword: string;
  stem: string;
  shape: 'prefix' | 'suffix' | 'inside';
}

export class KeywordSet {
  /** First word → the phrases starting with it, as word arrays (longest first). */
  readonly #byFirst = new Map<string, { phrase: string; parts: string[] }[]>();
  readonly #stems: Stem[] = [];
  readonly #falseFriends: ReadonlySet<string>;

  /**
   * `keywords` in the notation above; `falseFriends` are words no stem
   * matches. Throws on a malformed keyword (lists.ts checks them first).
   */
  constructor(keywords: readonly string[], falseFriends: readonly string[] = []) {
    this.#falseFriends = new Set(falseFriends);
    for (const keyword of keywords) {
      const shape = keywordShape(keyword);
      if (shape === null) throw new Error(`not a keyword: ${JSON.stringify(keyword)}`);
      if (shape !== 'words') {
        this.#stems.push({ keyword, stem: keyword.replaceAll('*', '').toLowerCase(), shape });
        continue;
      }
      const parts = words(keyword);
      const list = this.#byFirst.get(parts[0]) ?? [];
      list.push({ phrase: keyword, parts });
      list.sort((a, b) => b.parts.length - a.parts.length);
      this.#byFirst.set(parts[0], list);
    }
  }

  /**
   * The first keyword found in the word list, or null. Words are scanned in
   * order; at each word, whole-word phrases are tried before stems, and
   * stems in list order.
   */
  match(ws: readonly string[]): string | null {
    for (let i = 0; i < ws.length; i++) {
      const w = ws[i];
      const candidates = this.#byFirst.get(w);
      if (candidates) {
        for (const c of candidates) {
          let ok = c.parts.length <= ws.length - i;
          for (let k = 1; ok && k < c.parts.length; k++) ok = ws[i + k] === c.parts[k];
          if (ok) return c.phrase;
        }
      }
      if (this.#stems.length === 0 || this.#falseFriends.has(w)) continue;
      for (const s of this.#stems) {
        if (s.shape === 'prefix' ? w.startsWith(s.stem) : s.shape === 'suffix' ? w.endsWith(s.stem) : w.includes(s.stem)) return s.keyword;
      }
    }
    return null;
  }
}

/**
 * The carrier-word rule of organization names: a carrier word speaks for a
 * name unless the name also carries a hosting word that outweighs it
 * ("PowerHost Telecom"). The classifier's whitelist and the builder's
 * hosting aggregates read names by this one rule.
 */
export class CarrierWords {
  readonly #carrier: KeywordSet;
  readonly #outweigh: KeywordSet;

  constructor(keywords: { carrier: readonly string[]; outweigh_carrier: readonly string[]; false_friends: readonly string[] }) {
    this.#carrier = new KeywordSet(keywords.carrier);
    this.#outweigh = new KeywordSet(keywords.outweigh_carrier, keywords.false_friends);
  }

  /** The carrier word that speaks for the words of a name, or null (none, or outweighed). */
  match(ws: readonly string[]): string | null {
    const m = this.#carrier.match(ws);
    return m !== null && this.#outweigh.match(ws) === null ? m : null;
  }
}
