// The sticky split. A visitor is a random id in the first-party cookie
// sg_vid; its bucket for a route is a stable hash of (route id, visitor id)
// mapped to [0, 1). bucket < split_ratio → page A. The same visitor keeps its
// page on every thread and across restarts, and raising the ratio only moves
// visitors whose bucket now falls under it: from B to A, never back.
import { randomFillSync } from 'node:crypto';

export const VISITOR_COOKIE = 'sg_vid';
const ID_LENGTH = 22; // 16 random bytes, base64url
const COOKIE_ATTRIBUTES = '; Max-Age=31536000; Path=/; HttpOnly; Secure; SameSite=Lax';

/** The visitor id in a Cookie header, or '' when absent or malformed. */
export function visitorFromCookie(header: string): string {
  if (header === '') return '';
  let at = header.indexOf(`${VISITOR_COOKIE}=`);
  // The name must start the header or follow "; ".
  while (at > 0 && header.charCodeAt(at - 1) !== 32 && header.charCodeAt(at - 1) !== 59) {
    at = header.indexOf(`${VISITOR_COOKIE}=`, at + 1);
  }
  if (at < 0) return '';
  const start = at + VISITOR_COOKIE.length + 1;
  const end = start + ID_LENGTH;
  if (end > header.length || (end < header.length && header.charCodeAt(end) !== 59)) return '';
  for (let i = start; i < end; i++) {
    const c = header.charCodeAt(i);
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95;
    if (!ok) return '';
  }
  return header.slice(start, end);
}

// Random bytes come from a pool refilled 4 KiB at a time: one system call
// per 256 new visitors instead of one each.
const pool = Buffer.allocUnsafe(4096);
let poolAt = pool.length;

export function newVisitorId(): string {
  if (poolAt + 16 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += 16;
  return pool.toString('base64url', poolAt - 16, poolAt);
}

export function visitorCookie(id: string): string {
  return `${VISITOR_COOKIE}=${id}${COOKIE_ATTRIBUTES}`;
}

/** The visitor's bucket in [0, 1) for a route: FNV-1a over the route id's 4 bytes and the id's characters. */
export function bucket(routeId: number, visitorId: string): number {
  let h = 0x811c9dc5;
  h = Math.imul(h ^ (routeId & 0xff), 0x01000193);
  h = Math.imul(h ^ ((routeId >>> 8) & 0xff), 0x01000193);
  h = Math.imul(h ^ ((routeId >>> 16) & 0xff), 0x01000193);
  h = Math.imul(h ^ (routeId >>> 24), 0x01000193);
  for (let i = 0; i < visitorId.length; i++) h = Math.imul(h ^ visitorId.charCodeAt(i), 0x01000193);
  // FNV's low bits mix poorly for short inputs: finish with a murmur3 avalanche.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}
