// Click ids (src/experiments/click-id.ts): at most 40 URL-safe characters,
// they give back the route, variant, visitor hash and time they were issued
// for, and any change (another route or variant, any flipped bit, another
// server's secret, a non-canonical spelling) makes them invalid.
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { ClickIds } from '../../../src/experiments/click-id.js';

const secret = randomBytes(32);
const ids = new ClickIds(secret);

function issueFor(routeId: number, variant: number, visitor: string, at = 1_763_900_000): string {
  ids.visitorHash(visitor);
  return ids.issue(routeId, variant, ids.hi, ids.lo, at);
}

it('is at most 40 characters of [A-Za-z0-9_-] and round-trips', () => {
  for (const [route, variant] of [[1, 0], [7, 7], [2 ** 32 + 5, 3], [2 ** 40 - 1, 1]]) {
    const token = issueFor(route, variant, 'AAAAAAAAAAAAAAAAAAAAAA');
    expect(token).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
    const back = ids.verify(token)!;
    expect(back).toMatchObject({ routeId: route, variant, issuedAt: 1_763_900_000 });
    expect(back.visitor).toMatch(/^[0-9a-f]{16}$/);
  }
});

it('gives one visitor one hash and two visitors two', () => {
  const a1 = ids.verify(issueFor(1, 0, 'visitor-one-aaaaaaaaaa'))!.visitor;
  const a2 = ids.verify(issueFor(2, 1, 'visitor-one-aaaaaaaaaa', 1_800_000_000))!.visitor;
  const b = ids.verify(issueFor(1, 0, 'visitor-two-aaaaaaaaaa'))!.visitor;
  expect(a1).toBe(a2);
  expect(b).not.toBe(a1);
});

it('refuses every single-bit change, a token of another secret, and malformed strings', () => {
  const token = issueFor(42, 2, 'BBBBBBBBBBBBBBBBBBBBBB');
  const bytes = Buffer.from(token, 'base64url');
  for (let bit = 0; bit < bytes.length * 8; bit++) {
    const changed = Buffer.from(bytes);
    changed[bit >> 3] ^= 1 << (bit & 7);
    expect(ids.verify(changed.toString('base64url')), `bit ${bit}`).toBeNull();
  }
  const other = new ClickIds(randomBytes(32));
  other.visitorHash('BBBBBBBBBBBBBBBBBBBBBB');
  expect(ids.verify(other.issue(42, 2, other.hi, other.lo, 1_763_900_000))).toBeNull();
  // The last character carries 2 spare bits: a spelling with them set decodes to the same bytes but is refused.
  const last = token.at(-1)!;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const sibling = token.slice(0, -1) + alphabet[alphabet.indexOf(last) + 1];
  expect(Buffer.from(sibling, 'base64url').equals(bytes)).toBe(true);
  expect(ids.verify(sibling)).toBeNull();
  for (const bad of ['', 'x', token.slice(1), `${token}A`, token.replace(/.$/, '='), 42, null, { token }]) expect(ids.verify(bad)).toBeNull();
});

it('a token moved to another route or variant fails its MAC', () => {
  const token = issueFor(42, 1, 'CCCCCCCCCCCCCCCCCCCCCC');
  const bytes = Buffer.from(token, 'base64url');
  const moved = Buffer.from(bytes);
  moved.writeUInt32BE(43, 2);
  expect(ids.verify(moved.toString('base64url'))).toBeNull();
  const otherVariant = Buffer.from(bytes);
  otherVariant[0] = (otherVariant[0] & 0xf0) | 0;
  expect(ids.verify(otherVariant.toString('base64url'))).toBeNull();
});

it('hashes a visitor id the same from a string, from bytes at an offset, and from inside a Cookie header', () => {
  const id = 'Abc-_0123456789xyzXYZ9';
  ids.visitorHash(id);
  const want = [ids.hi, ids.lo];
  const bytes = Buffer.from(`sg_vid=${id}; Max-Age=1`, 'latin1');
  ids.visitorHashBytes(bytes, 7, 22);
  expect([ids.hi, ids.lo]).toEqual(want);
  const header = `theme=dark; sg_vid=${id}; lang=en`;
  ids.visitorHashIn(header, header.indexOf(id), 22);
  expect([ids.hi, ids.lo]).toEqual(want);
});
