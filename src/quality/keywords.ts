// Whole-word, case-insensitive keyword matching on organization names. Runs
// once per organization when a database is loaded, never per request.
//
// A name is split into words of letters and digits (any script); a keyword of
// several words matches those words in sequence. "HAProxy" is one word, so
// "proxy" does not match it; "Colombia" is not "colo".

const WORD = /[\p{L}\p{N}]+/gu;

export function words(name: string): string[] {
  return name.toLowerCase().match(WORD) ?? [];
}

export class KeywordSet {
  /** First word → the keywords starting with it, as word arrays (longest first). */
  readonly #byFirst = new Map<string, { phrase: string; parts: string[] }[]>();

  constructor(keywords: readonly string[]) {
    for (const phrase of keywords) {
      const parts = words(phrase);
      if (parts.length === 0) continue;
      const list = this.#byFirst.get(parts[0]) ?? [];
      list.push({ phrase, parts });
      list.sort((a, b) => b.parts.length - a.parts.length);
      this.#byFirst.set(parts[0], list);
    }
  }

  /** The first keyword found in the word list, or null. */
  match(ws: readonly string[]): string | null {
    for (let i = 0; i < ws.length; i++) {
      const candidates = this.#byFirst.get(ws[i]);
      if (!candidates) continue;
      for (const c of candidates) {
        let ok = c.parts.length <= ws.length - i;
        for (let k = 1; ok && k < c.parts.length; k++) ok = ws[i + k] === c.parts[k];
        if (ok) return c.phrase;
      }
    }
    return null;
  }
}
