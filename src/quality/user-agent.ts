// Crawlers by User-Agent: search and AI crawlers, link-preview fetchers
// (facebookexternalhit, Slackbot, WhatsApp), headless browsers and HTTP
// libraries (curl, python-requests, Go-http-client), with the patterns of
// the `isbot` package (Unlicense; one regular expression over a curated
// list, kept up to date upstream). In-app browsers (FBAN/FBAV, Instagram)
// are people and are not matched.
//
// The redirect asks once per distinct user agent per thread: UserAgentCache
// keeps the answers, so a repeated user agent costs one Map lookup. The
// cache is bounded: when full it starts afresh, so a stranger sending a new
// user agent with every request costs one pattern match each, never memory.
import { isbotMatch } from 'isbot';

export interface UserAgentVerdict {
  crawler: boolean;
  /** The product token that matched ("facebookexternalhit", "curl"), or null. */
  match: string | null;
}

const TOKEN = /[A-Za-z0-9_.-]/;

/** The whole verdict, for the IP check's answer (cold path). */
export function classifyUserAgent(ua: string): UserAgentVerdict {
  const hit = ua === '' ? null : isbotMatch(ua);
  if (hit === null) return { crawler: false, match: null };
  // Widen the pattern's hit to the product token around it: "facebook" is
  // reported as "facebookexternalhit", "bot" as "Discordbot".
  let start = ua.indexOf(hit);
  let end = start + hit.length;
  if (start < 0) return { crawler: true, match: hit };
  while (start > 0 && TOKEN.test(ua[start - 1])) start--;
  while (end < ua.length && TOKEN.test(ua[end])) end++;
  return { crawler: true, match: ua.slice(start, end).replace(/\/[0-9.]*$/, '') };
}

export class UserAgentCache {
  static readonly MAX = 10_000;
  readonly #known = new Map<string, boolean>();

  /** Whether the user agent is a crawler (empty: no; the redirect judges an empty one by level). */
  isCrawler(ua: string): boolean {
    let crawler = this.#known.get(ua);
    if (crawler === undefined) {
      crawler = ua !== '' && isbotMatch(ua) !== null;
      if (this.#known.size >= UserAgentCache.MAX) this.#known.clear();
      this.#known.set(ua, crawler);
    }
    return crawler;
  }
}
