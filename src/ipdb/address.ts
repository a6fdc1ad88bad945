// IP address text <-> bytes. Strict: dotted-quad IPv4 without leading zeros,
// RFC 4291 IPv6 text (with "::" and an IPv4 tail), no zone ids, no brackets.
// These run on cold paths (the API and the CLI); the redirect hands the
// database the bytes uWebSockets.js gives and never parses text.

/** Parses dotted-quad IPv4 into an unsigned 32-bit integer, or -1. */
export function parseIPv4(s: string, from = 0, to = s.length): number {
  let value = 0;
  let parts = 0;
  let i = from;
  while (parts < 4) {
    const start = i;
    let octet = 0;
    while (i < to) {
      const c = s.charCodeAt(i) - 48;
      if (c < 0 || c > 9) break;
      octet = octet * 10 + c;
      i++;
      if (i - start > 3) return -1;
    }
    const len = i - start;
    if (len === 0 || octet > 255 || (len > 1 && s.charCodeAt(start) === 48)) return -1;
    value = value * 256 + octet;
    parts++;
    if (parts < 4) {
      if (i >= to || s.charCodeAt(i) !== 46) return -1;
      i++;
    }
  }
  return i === to ? value : -1;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** Parses IPv6 text into 16 bytes at out[0..15]; returns false when invalid. */
export function parseIPv6(s: string, out: Uint8Array): boolean {
  const n = s.length;
  if (n < 2 || n > 45) return false;
  const words = new Array<number>(8);
  let count = 0;
  let gap = -1;
  let i = 0;
  if (s.charCodeAt(0) === 58) {
    if (s.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
    if (i === n) {
      out.fill(0, 0, 16);
      return true;
    }
  }
  while (i < n) {
    if (count === 8) return false;
    // An IPv4 tail fills the last two words.
    let j = i;
    let value = 0;
    while (j < n && j - i < 5) {
      const h = hexValue(s.charCodeAt(j));
      if (h < 0) break;
      value = value * 16 + h;
      j++;
    }
    if (j < n && s.charCodeAt(j) === 46) {
      if (count > 6) return false;
      const v4 = parseIPv4(s, i, n);
      if (v4 < 0) return false;
      words[count++] = v4 >>> 16;
      words[count++] = v4 & 0xffff;
      i = n;
      break;
    }
    const len = j - i;
    if (len === 0 || len > 4) return false;
    words[count++] = value;
    i = j;
    if (i === n) break;
    if (s.charCodeAt(i) !== 58) return false;
    i++;
    if (i < n && s.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = count;
      i++;
      if (i === n) break;
    } else if (i === n) {
      return false;
    }
  }
  if (gap < 0 && count !== 8) return false;
  if (gap >= 0 && count > 7) return false;
  return writeWords(words, count, gap, out);
}

function writeWords(parsed: number[], count: number, gap: number, out: Uint8Array): boolean {
  const full: number[] = [];
  for (let k = 0; k < count; k++) {
    if (k === gap) for (let z = 0; z < 8 - count; z++) full.push(0);
    full.push(parsed[k]);
  }
  if (gap === count) for (let z = 0; z < 8 - count; z++) full.push(0);
  if (full.length !== 8) return false;
  for (let k = 0; k < 8; k++) {
    out[2 * k] = full[k] >>> 8;
    out[2 * k + 1] = full[k] & 0xff;
  }
  return true;
}

/**
 * Parses an IPv4 or IPv6 address into 16 bytes (IPv4 as ::ffff:a.b.c.d).
 * Returns 4 or 6, or 0 when the text is not an address.
 */
export function parseIp(s: string, out: Uint8Array): 0 | 4 | 6 {
  if (s.indexOf(':') < 0) {
    const v4 = parseIPv4(s);
    if (v4 < 0) return 0;
    writeMapped(v4, out);
    return 4;
  }
  return parseIPv6(s, out) ? 6 : 0;
}

/**
 * Parses an address or a CIDR block ("a/n"; a bare address is its own /32 or
 * /128): the address's 16 bytes at out[0..15] (IPv4 mapped, as parseIp), its
 * family, and the prefix length counted in that family's bits. Null when the
 * address is not one, or the length is not 1 to 3 digits within the family's
 * bits (no sign, no spaces). Bits past the prefix are left as written: each
 * caller decides what they mean.
 */
export function parseCidrText(text: string, out: Uint8Array): { family: 4 | 6; prefix: number } | null {
  const slash = text.indexOf('/');
  const family = parseIp(slash < 0 ? text : text.slice(0, slash), out);
  if (family === 0) return null;
  const bits = family === 4 ? 32 : 128;
  if (slash < 0) return { family, prefix: bits };
  const p = text.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(p) || Number(p) > bits) return null;
  return { family, prefix: Number(p) };
}

/** 16 bytes (an IPv6 or mapped IPv4 address, most significant first) as one 128-bit integer. */
export function bytesToBigInt(a: Uint8Array): bigint {
  let v = 0n;
  for (let k = 0; k < 16; k++) v = (v << 8n) | BigInt(a[k]);
  return v;
}

export function writeMapped(v4: number, out: Uint8Array): void {
  out.fill(0, 0, 10);
  out[10] = 0xff;
  out[11] = 0xff;
  out[12] = v4 >>> 24;
  out[13] = (v4 >>> 16) & 0xff;
  out[14] = (v4 >>> 8) & 0xff;
  out[15] = v4 & 0xff;
}

/**
 * The IPv4 address inside ::ffff:a.b.c.d, or -1 when the bytes are not
 * IPv4-mapped. The redirect calls it on every visit (the client address, the
 * database lookup): it allocates nothing and tests bytes 10-11 first, since
 * a native IPv6 address almost never has ff ff there.
 */
export function mappedIPv4(a: Uint8Array): number {
  if (a[10] !== 0xff || a[11] !== 0xff || (a[0] | a[1] | a[2] | a[3] | a[4] | a[5] | a[6] | a[7] | a[8] | a[9]) !== 0) return -1;
  return ((a[12] << 24) | (a[13] << 16) | (a[14] << 8) | a[15]) >>> 0;
}

export function formatIPv4(v: number): string {
  return `${v >>> 24}.${(v >>> 16) & 0xff}.${(v >>> 8) & 0xff}.${v & 0xff}`;
}

/** RFC 5952 text: lower case, no leading zeros, the longest zero run (≥ 2 words) as "::". */
export function formatIPv6(a: Uint8Array, at = 0): string {
  const w: number[] = [];
  for (let k = 0; k < 8; k++) w.push((a[at + 2 * k] << 8) | a[at + 2 * k + 1]);
  let bestStart = -1;
  let bestLen = 1;
  for (let k = 0; k < 8; ) {
    if (w[k] !== 0) {
      k++;
      continue;
    }
    let e = k;
    while (e < 8 && w[e] === 0) e++;
    if (e - k > bestLen) {
      bestStart = k;
      bestLen = e - k;
    }
    k = e;
  }
  const hex = (k0: number, k1: number) => w.slice(k0, k1).map((x) => x.toString(16)).join(':');
  if (bestStart < 0) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLen, 8)}`;
}
