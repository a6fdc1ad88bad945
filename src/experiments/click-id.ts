// Click ids (contract §10): stateless tokens the redirect appends as
// sg_cid=<token> when a route asks for it, and POST /v1/conversions takes
// back. Nothing is stored per click: the token carries what the conversion
// needs, under a MAC keyed by the server secret.
//
// The secret is 32 random bytes made once per store (store/experiments-store.ts
// Secrets, "click_id"): bytes 0-15 key the visitor hash, 16-31 the MAC.
//
// Token: 26 bytes, base64url without padding = 35 characters of [A-Za-z0-9_-]
//
//   0        version (high nibble, 1) | variant index 0-7 (low nibble)
//   1-5      route id, 40 bits big-endian (ids up to 1.1e12)
//   6-13     visitor hash: SipHash-2-4(secret[0..16], visitor id), hi then lo
//   14-17    issue time, seconds since the epoch, uint32 big-endian
//   18-25    MAC: SipHash-2-4(secret[16..32], bytes 0-17), hi then lo
//
// A token moved to another route or variant, or with any other byte changed,
// fails the MAC; the visitor hash reveals nothing about the cookie (it is a
// keyed hash), and the same visitor always has the same hash, which is what
// makes a conversion count once per (visitor, route, goal).
import { SipHash } from './siphash.js';

export const CLICK_ID_PARAM = 'sg_cid';
/** The name the click-id MAC key is stored under (Secrets: meta `secret:<name>`, PostgreSQL's secrets). */
export const CLICK_ID_SECRET = 'click_id';

/** Each character's value as a hex digit, -1 for any other (indices 0-127). */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX['0123456789abcdef'.charCodeAt(i)] = HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
const hexAt = (s: string, i: number): number => {
  const c = s.charCodeAt(i);
  return c < 128 ? HEX[c] : -1;
};

/**
 * Whether one `name=value` part of a query names the click id, however
 * spelt: the name as a page's query parser reads it ('+' a space, then
 * percent-decoded; a malformed escape stays as sent). Decoded here, without
 * throwing: on the redirect's path every part of a stranger's query comes
 * through here, and decodeURIComponent's exception for each lone '%' made
 * one query of 28,000 of them cost 120 ms (docs/reliability.md, finding 98).
 * Only a name of 6 to 18 characters can read as "sg_cid" (each character at
 * most one three-character escape), and only through escapes of ASCII
 * characters: a malformed or non-ASCII escape leaves a '%' or a character
 * that "sg_cid" does not have.
 */
export function isClickIdParam(part: string): boolean {
  const eq = part.indexOf('=');
  const end = eq < 0 ? part.length : eq;
  if (end < CLICK_ID_PARAM.length || end > 3 * CLICK_ID_PARAM.length) return false;
  let k = 0;
  for (let i = 0; i < end; k++) {
    if (k === CLICK_ID_PARAM.length) return false;
    let c = part.charCodeAt(i);
    if (c === 37 /* % */) {
      const hi = i + 2 < end ? hexAt(part, i + 1) : -1;
      const lo = hi >= 0 ? hexAt(part, i + 2) : -1;
      if (lo < 0 || hi > 7) return false;
      c = (hi << 4) | lo;
      i += 3;
    } else {
      if (c === 43 /* + */) c = 32;
      i++;
    }
    if (c !== CLICK_ID_PARAM.charCodeAt(k)) return false;
  }
  return k === CLICK_ID_PARAM.length;
}
const TOKEN_BYTES = 26;
const TOKEN_LENGTH = 35;
const VERSION = 1;
const BASE64URL = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', 'latin1');

export interface ClickId {
  routeId: number;
  variant: number;
  /** The visitor hash, 16 hex digits. */
  visitor: string;
  /** Issue time, seconds since the epoch. */
  issuedAt: number;
}

export class ClickIds {
  readonly #visitorKey: SipHash;
  readonly #mac: SipHash;
  /** Scratch for the visitor id's characters and for building a token (reused: no allocation per visit). */
  readonly #chars = new Uint8Array(64);
  readonly #token = new Uint8Array(TOKEN_BYTES);
  /** Scratch for verify(). */
  readonly #check = new Uint8Array(TOKEN_BYTES);
  readonly #sextets = new Uint8Array(TOKEN_LENGTH);
  /** The last visitorHash(): read by the redirect right after the call. */
  hi = 0;
  lo = 0;

  /** `secret`: 32 bytes. */
  constructor(secret: Uint8Array) {
    if (secret.length !== 32) throw new RangeError('the click-id secret is 32 bytes');
    this.#visitorKey = new SipHash(secret.subarray(0, 16));
    this.#mac = new SipHash(secret.subarray(16, 32));
  }

  /** The visitor's keyed 64-bit hash into (hi, lo). Visitor ids are ASCII (redirect/visitor.ts). */
  visitorHash(visitorId: string): void {
    const n = Math.min(visitorId.length, this.#chars.length);
    for (let i = 0; i < n; i++) this.#chars[i] = visitorId.charCodeAt(i);
    this.#visitorKey.hash(this.#chars, n);
    this.hi = this.#visitorKey.hi;
    this.lo = this.#visitorKey.lo;
  }

  /** visitorHash() of the ASCII id at bytes[offset, offset + length) (a new visitor's id, written into its Set-Cookie bytes). */
  visitorHashBytes(bytes: Uint8Array, offset: number, length: number): void {
    this.#visitorKey.hashAt(bytes, offset, length);
    this.hi = this.#visitorKey.hi;
    this.lo = this.#visitorKey.lo;
  }

  /** visitorHash() of the id at header[start, start + length) (a returning visitor's, where it lies in the Cookie header). */
  visitorHashIn(header: string, start: number, length: number): void {
    const n = Math.min(length, this.#chars.length);
    for (let i = 0; i < n; i++) this.#chars[i] = header.charCodeAt(start + i);
    this.#visitorKey.hash(this.#chars, n);
    this.hi = this.#visitorKey.hi;
    this.lo = this.#visitorKey.lo;
  }

  /** A token for a visit as a string (tests, tools); the redirect writes it straight into its Location bytes (issueInto). */
  issue(routeId: number, variant: number, hi: number, lo: number, nowSeconds: number): string {
    const out = Buffer.allocUnsafe(TOKEN_LENGTH);
    this.issueInto(out, 0, routeId, variant, hi, lo, nowSeconds);
    return out.toString('latin1');
  }

  /**
   * Writes a token for a visit as TOKEN_LENGTH base64url characters into
   * out[at ..] and returns the offset after it; (hi, lo) is the visitor hash.
   * No allocation.
   */
  issueInto(out: Uint8Array, at: number, routeId: number, variant: number, hi: number, lo: number, nowSeconds: number): number {
    const t = this.#token;
    const high = Math.floor(routeId / 0x100000000);
    const low = routeId >>> 0;
    const now = nowSeconds >>> 0;
    t[0] = (VERSION << 4) | variant;
    t[1] = high & 0xff;
    t[2] = low >>> 24;
    t[3] = (low >>> 16) & 0xff;
    t[4] = (low >>> 8) & 0xff;
    t[5] = low & 0xff;
    t[6] = hi >>> 24;
    t[7] = (hi >>> 16) & 0xff;
    t[8] = (hi >>> 8) & 0xff;
    t[9] = hi & 0xff;
    t[10] = lo >>> 24;
    t[11] = (lo >>> 16) & 0xff;
    t[12] = (lo >>> 8) & 0xff;
    t[13] = lo & 0xff;
    t[14] = now >>> 24;
    t[15] = (now >>> 16) & 0xff;
    t[16] = (now >>> 8) & 0xff;
    t[17] = now & 0xff;
    const mac = this.#mac;
    mac.hash(t, 18);
    t[18] = mac.hi >>> 24;
    t[19] = (mac.hi >>> 16) & 0xff;
    t[20] = (mac.hi >>> 8) & 0xff;
    t[21] = mac.hi & 0xff;
    t[22] = mac.lo >>> 24;
    t[23] = (mac.lo >>> 16) & 0xff;
    t[24] = (mac.lo >>> 8) & 0xff;
    t[25] = mac.lo & 0xff;
    // base64url without padding: 8 groups of 3 bytes make 32 characters, the last 2 bytes 3 more.
    let p = 0;
    for (let g = 0; g < 8; g++, p += 3) {
      const v = (t[p] << 16) | (t[p + 1] << 8) | t[p + 2];
      out[at++] = BASE64URL[v >>> 18];
      out[at++] = BASE64URL[(v >>> 12) & 63];
      out[at++] = BASE64URL[(v >>> 6) & 63];
      out[at++] = BASE64URL[v & 63];
    }
    const v = (t[p] << 8) | t[p + 1];
    out[at++] = BASE64URL[v >>> 10];
    out[at++] = BASE64URL[(v >>> 4) & 63];
    out[at++] = BASE64URL[(v << 2) & 63];
    return at;
  }

  /**
   * The click a token stands for, or null when it is malformed (not exactly
   * TOKEN_LENGTH characters of the base64url alphabet in canonical form:
   * the last character's two spare bits zero) or its MAC does not match.
   * Decoded into kept bytes: the only allocation is the answer.
   */
  verify(token: unknown): ClickId | null {
    if (typeof token !== 'string' || token.length !== TOKEN_LENGTH) return null;
    const t = this.#check;
    const six = this.#sextets;
    for (let i = 0; i < TOKEN_LENGTH; i++) {
      const c = token.charCodeAt(i);
      const v = c < 128 ? SEXTET[c] : -1;
      if (v < 0) return null;
      six[i] = v;
    }
    // Canonical form only: the last character's two spare bits are zero.
    if ((six[34] & 3) !== 0) return null;
    let p = 0;
    for (let i = 0; i < 32; i += 4) {
      const v = (six[i] << 18) | (six[i + 1] << 12) | (six[i + 2] << 6) | six[i + 3];
      t[p++] = v >>> 16;
      t[p++] = (v >>> 8) & 0xff;
      t[p++] = v & 0xff;
    }
    const v = (six[32] << 12) | (six[33] << 6) | six[34];
    t[p++] = v >>> 10;
    t[p] = (v >>> 2) & 0xff;
    if (t[0] >> 4 !== VERSION || (t[0] & 0x0f) > 7) return null;
    const mac = this.#mac;
    mac.hash(t, 18);
    const hi = ((t[18] << 24) | (t[19] << 16) | (t[20] << 8) | t[21]) >>> 0;
    const lo = ((t[22] << 24) | (t[23] << 16) | (t[24] << 8) | t[25]) >>> 0;
    if (hi !== mac.hi || lo !== mac.lo) return null;
    const word = (at: number) => ((t[at] << 24) | (t[at + 1] << 16) | (t[at + 2] << 8) | t[at + 3]) >>> 0;
    return {
      routeId: t[1] * 0x100000000 + word(2),
      variant: t[0] & 0x0f,
      visitor: word(6).toString(16).padStart(8, '0') + word(10).toString(16).padStart(8, '0'),
      issuedAt: word(14),
    };
  }
}

/** Character code → its base64url value (0-63), -1 for any other character. */
const SEXTET = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) SEXTET[BASE64URL[i]] = i;
