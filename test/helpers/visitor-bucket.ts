// A visitor id whose bucket for a route is a chosen value: the bucket hash
// (src/redirect/visitor.ts: FNV-1a over the route id and the id, then
// murmur3's finaliser) is not keyed, so anyone can aim at a bucket, and a
// test can aim at a layout's edge. The finaliser is inverted; then the id's
// last four characters meet in the middle: two stepped forward from a random
// 18-character start, two stepped back from the wanted hash.
import { FNV_OFFSET, fnvStep } from '../../src/fnv.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The inverse of an odd multiplier modulo 2^32 (Newton's iteration). */
function inverse(a: number): number {
  let x = a;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(a, x));
  return x;
}
const FNV_PRIME_INVERSE = inverse(0x01000193);

/** The inverse of h ^= h >>> s: h ^ h >>> s ^ h >>> 2s ... while the shift stays under 32 (JavaScript takes shifts mod 32). */
function unshift(h: number, s: number): number {
  let x = h;
  for (let k = s; k < 32; k += s) x ^= h >>> k;
  return x;
}

function unfinish(bucket: number): number {
  let h = Math.round(bucket * 4294967296) | 0;
  h = unshift(h, 16);
  h = Math.imul(h, inverse(0xc2b2ae35));
  h = unshift(h, 13);
  h = Math.imul(h, inverse(0x85ebca6b));
  return unshift(h, 16);
}

/** A 22-character visitor id whose bucket for `routeId` is `bucket` (a multiple of 2^-32). */
export function visitorWithBucket(routeId: number, bucket: number): string {
  const want = unfinish(bucket);
  const back = new Map<number, string>();
  for (const c1 of ALPHABET) for (const c2 of ALPHABET) back.set(Math.imul(Math.imul(want, FNV_PRIME_INVERSE) ^ c2.charCodeAt(0), FNV_PRIME_INVERSE) ^ c1.charCodeAt(0), c1 + c2);
  let h0 = fnvStep(FNV_OFFSET, routeId & 0xff);
  h0 = fnvStep(fnvStep(fnvStep(h0, (routeId >>> 8) & 0xff), (routeId >>> 16) & 0xff), routeId >>> 24);
  for (let n = 0; ; n++) {
    let start = '';
    let h = h0;
    for (let i = 0; i < 18; i++) {
      const c = ALPHABET[(Math.imul(n + 1, 0x9e3779b1) >>> (i % 26)) & 63];
      start += c;
      h = fnvStep(h, c.charCodeAt(0));
    }
    for (const c1 of ALPHABET) {
      const h1 = fnvStep(h, c1.charCodeAt(0));
      for (const c2 of ALPHABET) {
        const end = back.get(fnvStep(h1, c2.charCodeAt(0)));
        if (end !== undefined) return start + c1 + c2 + end;
      }
    }
  }
}
