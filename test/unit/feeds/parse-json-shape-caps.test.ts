// A JSON feed is measured before JSON.parse builds it: 64 MiB of `[[[...` or
// of `{},{},...` (65 KB gzipped) took the refresh's thread past 3 GB of heap
// for 20 s and ended a server whose heap limit was 1 GB (the files review of
// 2026-11-27). Nesting past 16 levels, or more than 4,000,000 values, refuses
// the file naming why; publishers' documents nest at most 4 deep. Brackets
// and separators inside strings do not count.
import { expect, it } from 'vitest';
import { parseFeed } from '../../../src/ipdb/feeds/parse.js';

const doc = (text: string) => Buffer.from(text);

it('refuses JSON nested deeper than 16 levels, naming the file', () => {
  const deep = `{"prefixes":${'['.repeat(16)}${']'.repeat(16)}}`;
  expect(() => parseFeed('google-json', doc(deep), 'googlebot (deep)')).toThrow(/googlebot \(deep\) nests JSON deeper than 16 levels/);
});

it('refuses JSON of more than 4,000,000 values before parsing it', () => {
  const wide = `{"prefixes":[${'{},'.repeat(4_000_000)}{}]}`;
  expect(() => parseFeed('google-json', doc(wide), 'googlebot (wide)')).toThrow(/googlebot \(wide\) holds more than 4000000 JSON values/);
});

it('reads a document whose strings hold brackets and separators', () => {
  const tricky = JSON.stringify({ syncToken: '1', note: `${'[{'.repeat(40)}${',:'.repeat(10)}\\"`, prefixes: [{ ipv4Prefix: '8.8.8.0/24' }] });
  expect(parseFeed('google-json', doc(tricky), 'googlebot').ranges!.v4).toHaveLength(1);
});
