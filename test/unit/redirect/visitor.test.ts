// The sticky split's visitor ids and buckets. Buckets are a stored contract
// in effect (a visitor keeps its page across restarts and versions): the
// golden values below were computed by the first implementation. A returning
// visitor's id is hashed where it lies in the Cookie header, and a new
// visitor's id is written into the Set-Cookie bytes: both must give the
// bucket the id's string gives.
import { describe, expect, it } from 'vitest';
import { bucket, bucketAt, cookieBucket, ID_LENGTH, NewVisitors, visitorAt, visitorFromCookie } from '../../../src/redirect/visitor.js';

describe('bucket', () => {
  it.each<[number, string, number]>([
    [1, 'AAAAAAAAAAAAAAAAAAAAAA', 0.3164591589011252],
    [1, 'q7PZc1m2X_-YHk3wE9vLaA', 0.29175327927805483],
    [7, 'bench000001QQQQQQQQQQQ', 0.8513631378300488],
    [7, 'Zz09-_Zz09-_Zz09-_Zz09', 0.5101630960125476],
    [65536, 'AAAAAAAAAAAAAAAAAAAAAA', 0.9426877535879612],
    [2147483647, 'Zz09-_Zz09-_Zz09-_Zz09', 0.0789180074352771],
  ])('route %i, visitor %s → %f', (route, id, expected) => {
    expect(bucket(route, id)).toBe(expected);
    const header = `a=1; sg_vid=${id}; b=2`;
    expect(bucketAt(route, header, visitorAt(header))).toBe(expected);
    expect(cookieBucket(route, header)).toBe(expected);
  });
});

describe('visitorAt', () => {
  const id = 'AAAAAAAAAAAAAAAAAAAAAA';
  it.each<[string, string]>([
    [`sg_vid=${id}`, id],
    [`a=1; sg_vid=${id}; b=2`, id],
    [`a=1;sg_vid=${id}`, id],
    [`xsg_vid=${id}`, ''],
    [`xsg_vid=${id}; sg_vid=${id.replace(/A/g, 'B')}`, id.replace(/A/g, 'B')],
    [`sg_vid=${id.slice(1)}`, ''],
    [`sg_vid=${id}A`, ''],
    [`sg_vid=${id.slice(2)}+A`, ''],
    [`sg_vid=${id} `, ''],
    // The first well-formed one counts: a malformed or empty sg_vid sent first (a stale
    // cookie with a longer path) left the visitor without an id on every visit.
    [`sg_vid=legacy; sg_vid=${id}`, id],
    [`sg_vid=; sg_vid=${id}`, id],
    [`sg_vid=${id.slice(2)}+A; sg_vid=${id.replace(/A/g, 'C')}; sg_vid=${id}`, id.replace(/A/g, 'C')],
    ['', ''],
  ])('%j → %j', (header, expected) => {
    expect(visitorFromCookie(header)).toBe(expected);
    const at = visitorAt(header);
    expect(at < 0 ? '' : header.slice(at, at + ID_LENGTH)).toBe(expected);
    expect(cookieBucket(9, header)).toBe(expected === '' ? -1 : bucket(9, expected));
  });
});

describe('cookieBucket', () => {
  it('agrees with visitorFromCookie and bucket on random headers', () => {
    const alphabet = 'ABCXYZabcxyz0189-_+/=; %\u00e9';
    let s = 0x9e3779b9;
    const rand = () => {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      return (s >>>= 0);
    };
    const valid = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // Half of them well-formed ids, half 20-24 characters of anything.
    const id = () => (rand() % 2
      ? Array.from({ length: ID_LENGTH }, () => valid[rand() % valid.length]).join('')
      : Array.from({ length: 20 + (rand() % 5) }, () => alphabet[rand() % alphabet.length]).join(''));
    const shapes = [
      () => `sg_vid=${id()}`, () => `a=1; sg_vid=${id()}`, () => `sg_vid=${id()}; b=2`, () => `xsg_vid=${id()}; sg_vid=${id()}`,
      () => `sg_vid=${id()};sg_vid=${id()}`, () => id(),
    ];
    for (let n = 0; n < 20_000; n++) {
      const header = shapes[rand() % shapes.length]();
      const visitor = visitorFromCookie(header);
      expect(cookieBucket(n, header), header).toBe(visitor === '' ? -1 : bucket(n, visitor));
    }
  });
});

describe('NewVisitors', () => {
  it('writes 16 random bytes as base64url into the cookie, and returns the id\'s bucket', () => {
    const v = new NewVisitors();
    const seen = new Set<string>();
    const prefix = 'sg_vid=';
    const attributes = '; Max-Age=31536000; Path=/; HttpOnly; Secure; SameSite=Lax';
    for (let n = 0; n < 2000; n++) {
      const route = (n * 2654435761) >>> 0;
      const b = v.next(route);
      const text = v.cookie.toString('latin1');
      expect(text.startsWith(prefix) && text.endsWith(attributes)).toBe(true);
      const id = v.id;
      expect(text).toBe(`${prefix}${id}${attributes}`);
      // The id is base64url of 16 bytes: decoding and encoding again gives it back.
      const raw = Buffer.from(id, 'base64url');
      expect(raw.length).toBe(16);
      expect(raw.toString('base64url')).toBe(id);
      expect(b).toBe(bucket(route, id));
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
  });
});
