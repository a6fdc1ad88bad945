// Crawlers by User-Agent: search and AI crawlers, link-preview fetchers
// (facebookexternalhit, Slackbot, WhatsApp), headless browsers and HTTP
// libraries (curl, python-requests, Go-http-client), with the patterns of
// the `isbot` package (Unlicense; one regular expression over a curated
// list, kept up to date upstream). In-app browsers (FBAN/FBAV, Instagram)
// are people and are not matched.
//
// The redirect asks once per distinct user agent per thread: UserAgentCache
// keeps the answers. A repeated user agent is found without hashing all of
// it: a fingerprint of its length and nine of its characters picks a set of
// four recent user agents, compared most recently used first (a string
// comparison each). Real user agents come in families that differ only in a
// version or a device name, which such a fingerprint does not see, so a set
// holds four of a family and keeps the busiest in front. Behind the sets a
// Map holds every answer. Both are bounded: the Map starts afresh when it
// holds MAX user agents or MAX_CHARS characters, and a user agent longer than
// MAX_LENGTH is matched every time and never kept. So a stranger sending a
// new user agent with every request costs one pattern match each, never
// memory.
import { isbotMatch } from 'isbot';
import { FNV_OFFSET, fnvStep } from '../fnv.js';

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
  // A pattern that takes a whole simple user agent ("curl/7.68.0",
  // "Slackbot-LinkExpanding 1.0") takes its version too: dropped.
  return { crawler: true, match: ua.slice(start, end).replace(/(?:\/|\s+)v?[0-9][0-9._]*$/, '') };
}

const SETS = 256; // a power of two
const WAYS = 4;

export class UserAgentCache {
  static readonly MAX = 10_000;
  /** Characters the Map may hold (at most two bytes each), so at most about 4 MB a thread. */
  static readonly MAX_CHARS = 2_000_000;
  /** Longer user agents are matched every time (real browsers' are under 400 characters). */
  static readonly MAX_LENGTH = 1024;
  readonly #known = new Map<string, boolean>();
  #chars = 0;
  /** SETS x WAYS recent user agents ('' = empty way), most recently used first in each set, and their verdicts. */
  readonly #recent: string[] = new Array<string>(SETS * WAYS).fill('');
  readonly #recentCrawler = new Uint8Array(SETS * WAYS);

  /** Whether the user agent is a crawler (empty: no; the redirect judges an empty one by level). */
  isCrawler(ua: string): boolean {
    const n = ua.length;
    if (n === 0) return false;
    // The length, the last character and eight spread over the string.
    let h = fnvStep(FNV_OFFSET, n);
    h = fnvStep(h, ua.charCodeAt(n - 1));
    for (let k = 1; k < 16; k += 2) h = fnvStep(h, ua.charCodeAt((n * k) >>> 4));
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    const set = ((h ^ (h >>> 12)) & (SETS - 1)) * WAYS;
    const recent = this.#recent;
    const verdicts = this.#recentCrawler;
    let way = 0;
    while (way < WAYS && recent[set + way] !== ua) way++;
    let crawler: boolean;
    if (way < WAYS) {
      crawler = verdicts[set + way] === 1;
      if (way === 0) return crawler;
    } else {
      const known = this.#known.get(ua);
      if (known !== undefined) {
        crawler = known;
      } else {
        crawler = isbotMatch(ua) !== null;
        if (n > UserAgentCache.MAX_LENGTH) return crawler;
        if (this.#known.size >= UserAgentCache.MAX || this.#chars + n > UserAgentCache.MAX_CHARS) {
          this.#known.clear();
          this.#chars = 0;
        }
        this.#known.set(ua, crawler);
        this.#chars += n;
      }
      way = WAYS - 1; // the least recently used way makes room
    }
    // To the front of its set.
    for (let w = way; w > 0; w--) {
      recent[set + w] = recent[set + w - 1];
      verdicts[set + w] = verdicts[set + w - 1];
    }
    recent[set] = ua;
    verdicts[set] = crawler ? 1 : 0;
    return crawler;
  }

  /** User agents and characters the Map holds (for tests). */
  get size(): { entries: number; chars: number } {
    return { entries: this.#known.size, chars: this.#chars };
  }
}
