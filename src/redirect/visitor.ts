// The sticky split. A visitor is a random id in the first-party cookie
// sg_vid; its bucket for a route is a stable hash of (route id, visitor id)
// mapped to [0, 1); the route's bucket layout maps it to a variant
// (experiments/split.ts; for a new two-variant route bucket < split_ratio →
// page A). The same visitor keeps its page on every thread and across
// restarts, and a weight change moves only the buckets the layout reassigns.
//
// On the redirect's path nothing here allocates: a returning visitor's id is
// checked and hashed where it lies in the Cookie header, in one pass
// (cookieBucket), and a new visitor's id is written straight into the bytes
// of the Set-Cookie value (NewVisitors), which uWS copies out synchronously.
import { randomFillSync } from 'node:crypto';
import { FNV_OFFSET, fnvStep } from '../fnv.js';
import { constantBytes } from '../http/respond.js';

const VISITOR_COOKIE = 'sg_vid';
const NAME = `${VISITOR_COOKIE}=`;
export const ID_LENGTH = 22; // 16 random bytes, base64url
/** Where a new visitor's id starts in NewVisitors.cookie. */
export const VISITOR_ID_OFFSET = NAME.length;
const COOKIE_ATTRIBUTES = '; Max-Age=31536000; Path=/; HttpOnly; Secure; SameSite=Lax';

/** Characters of a base64url id: 1 for A-Z a-z 0-9 - _ (indices 0-127). */
const ID_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') ID_CHAR[c.charCodeAt(0)] = 1;

/**
 * Where the characters of the next sg_vid value of an id's length start, at
 * or after `from` in a Cookie header (not yet checked), or -1. The name must
 * start the header or follow "; ".
 */
function idStart(header: string, from: number): number {
  for (let at = header.indexOf(NAME, from); at >= 0; at = header.indexOf(NAME, at + 1)) {
    if (at > 0 && header.charCodeAt(at - 1) !== 32 && header.charCodeAt(at - 1) !== 59) continue;
    const start = at + NAME.length;
    const end = start + ID_LENGTH;
    if (end > header.length || (end < header.length && header.charCodeAt(end) !== 59)) continue;
    return start;
  }
  return -1;
}

/**
 * Where the visitor id starts in a Cookie header, or -1 when there is no
 * well-formed one. The first well-formed sg_vid counts: a browser sends a
 * stale or foreign one with a longer path or a parent domain first, for good,
 * and taking that one as "no id" gave the visitor a new variant every time.
 */
export function visitorAt(header: string): number {
  for (let start = header === '' ? -1 : idStart(header, 0); start >= 0; start = idStart(header, start)) {
    let i = start;
    for (; i < start + ID_LENGTH; i++) {
      const c = header.charCodeAt(i);
      if (c > 127 || ID_CHAR[c] === 0) break;
    }
    if (i === start + ID_LENGTH) return start;
  }
  return -1;
}

/** Where the id cookieBucket last found valid starts in its header. */
let idAt = -1;

/** The start, in the header cookieBucket was last given, of the id it hashed (valid while its bucket was >= 0). */
export function lastIdStart(): number {
  return idAt;
}

/**
 * The bucket of the visitor whose id is in the Cookie header for a route
 * (the first well-formed sg_vid, as visitorAt), or -1 when there is none:
 * visitorAt and bucketAt in one pass over the id (the redirect's path).
 */
export function cookieBucket(routeId: number, header: string): number {
  next: for (let start = header === '' ? -1 : idStart(header, 0); start >= 0; start = idStart(header, start)) {
    let h = seed(routeId);
    for (let i = start; i < start + ID_LENGTH; i++) {
      const c = header.charCodeAt(i);
      if (c > 127 || ID_CHAR[c] === 0) continue next;
      h = fnvStep(h, c);
    }
    idAt = start;
    return finish(h);
  }
  return -1;
}

/** The visitor id in a Cookie header, or '' when absent or malformed. */
export function visitorFromCookie(header: string): string {
  const start = visitorAt(header);
  return start < 0 ? '' : header.slice(start, start + ID_LENGTH);
}

// FNV-1a over the route id's 4 bytes, then over the id's characters; FNV's
// low bits mix poorly for short inputs, so a murmur3 avalanche finishes it.
function seed(routeId: number): number {
  let h = fnvStep(FNV_OFFSET, routeId & 0xff);
  h = fnvStep(h, (routeId >>> 8) & 0xff);
  h = fnvStep(h, (routeId >>> 16) & 0xff);
  return fnvStep(h, routeId >>> 24);
}

function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

/** The visitor's bucket in [0, 1) for a route. */
export function bucket(routeId: number, visitorId: string): number {
  let h = seed(routeId);
  for (let i = 0; i < visitorId.length; i++) h = fnvStep(h, visitorId.charCodeAt(i));
  return finish(h);
}

/** bucket(routeId, id) for the id at header[start, start + ID_LENGTH) (from visitorAt). */
export function bucketAt(routeId: number, header: string, start: number): number {
  let h = seed(routeId);
  for (let i = start; i < start + ID_LENGTH; i++) h = fnvStep(h, header.charCodeAt(i));
  return finish(h);
}

const BASE64URL = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', 'latin1');

/**
 * New visitor ids, each written into `cookie`: the whole Set-Cookie value
 * (`sg_vid=<id>; Max-Age=…`), valid until the next call to next(). Ids are
 * 16 random bytes in base64url, taken from a pool refilled 4 KiB at a time
 * (one system call per 256 new visitors).
 */
export class NewVisitors {
  readonly cookie = Buffer.from(constantBytes(`${NAME}${'A'.repeat(ID_LENGTH)}${COOKIE_ATTRIBUTES}`));
  /** The ArrayBuffer `cookie` spans, all of it: what uWS is given (see constantBytes in http/respond.ts). */
  readonly cookieBytes = this.cookie.buffer as ArrayBuffer;
  readonly #pool = Buffer.allocUnsafe(4096);
  #poolAt = this.#pool.length;

  /** Writes a new id into `cookie` and returns its bucket for the route. */
  next(routeId: number): number {
    const pool = this.#pool;
    if (this.#poolAt + 16 > pool.length) {
      randomFillSync(pool);
      this.#poolAt = 0;
    }
    let p = this.#poolAt;
    this.#poolAt = p + 16;
    const out = this.cookie;
    let o = NAME.length;
    // Five groups of 3 bytes make 20 characters; the 16th byte makes 2 more.
    for (let g = 0; g < 5; g++, p += 3) {
      const v = (pool[p] << 16) | (pool[p + 1] << 8) | pool[p + 2];
      out[o++] = BASE64URL[v >>> 18];
      out[o++] = BASE64URL[(v >>> 12) & 63];
      out[o++] = BASE64URL[(v >>> 6) & 63];
      out[o++] = BASE64URL[v & 63];
    }
    out[o++] = BASE64URL[pool[p] >>> 2];
    out[o] = BASE64URL[(pool[p] & 3) << 4];
    let h = seed(routeId);
    for (let i = NAME.length; i < NAME.length + ID_LENGTH; i++) h = fnvStep(h, out[i]);
    return finish(h);
  }

  /** The id last written (for tests). */
  get id(): string {
    return this.cookie.toString('latin1', NAME.length, NAME.length + ID_LENGTH);
  }
}
