// The redirect's per-thread user-agent cache: the same verdicts as matching
// every time, for browsers and crawlers repeated and interleaved (user
// agents whose fingerprints collide share a table slot and must not borrow
// each other's verdict), and bounded whatever a stranger sends.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isbotMatch } from 'isbot';
import { describe, expect, it } from 'vitest';
import { UserAgentCache } from '../../../src/quality/user-agent.js';

const lists = path.resolve(import.meta.dirname, '../../../eval/lists');
const column = (file: string, n: number) => readFileSync(path.join(lists, file), 'utf8').split('\n')
  .filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t')[n]).filter(Boolean);
const browsers = column('browser-user-agents.txt', 2);
const crawlers = column('crawler-user-agents.txt', 1);

describe('UserAgentCache', () => {
  it('answers as the pattern does, first time and every time after', () => {
    const cache = new UserAgentCache();
    const all = [...browsers, ...crawlers];
    for (let round = 0; round < 3; round++) {
      for (const ua of all) expect(cache.isCrawler(ua), ua).toBe(isbotMatch(ua) !== null);
    }
    expect(cache.isCrawler('')).toBe(false);
  });

  it('keeps apart user agents whose fingerprints collide', () => {
    // Same length, same characters at every sampled position: only the
    // characters in between differ (a browser version and a crawler name).
    const cache = new UserAgentCache();
    const browser = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
    const n = browser.length;
    const sampled = new Set([n - 1, ...[1, 3, 5, 7, 9, 11, 13, 15].map((k) => (n * k) >>> 4)]);
    const chars = [...browser];
    let replaced = 0;
    for (let i = 0; i < n && replaced < 3; i++) {
      if (!sampled.has(i) && /[a-z]/.test(chars[i])) {
        chars[i] = 'bot'[replaced++];
      }
    }
    const twin = chars.join('');
    expect(twin).not.toBe(browser);
    for (let i = 0; i < 50; i++) {
      expect(cache.isCrawler(browser)).toBe(isbotMatch(browser) !== null);
      expect(cache.isCrawler(twin)).toBe(isbotMatch(twin) !== null);
    }
  });

  it('stays bounded under a stream of new user agents', () => {
    const cache = new UserAgentCache();
    const base = browsers[0];
    for (let i = 0; i < 30_000; i++) {
      cache.isCrawler(`${base} r/${i}${'x'.repeat(i % 200)}`);
      const { entries, chars } = cache.size;
      expect(entries).toBeLessThanOrEqual(UserAgentCache.MAX);
      expect(chars).toBeLessThanOrEqual(UserAgentCache.MAX_CHARS);
    }
  });

  it('matches a very long user agent every time and never keeps it', () => {
    const cache = new UserAgentCache();
    const long = `Mozilla/5.0 ${'a'.repeat(UserAgentCache.MAX_LENGTH)} Googlebot/2.1`;
    expect(cache.isCrawler(long)).toBe(true);
    expect(cache.isCrawler(long)).toBe(true);
    expect(cache.size.entries).toBe(0);
  });
});
