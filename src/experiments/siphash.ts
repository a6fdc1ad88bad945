// SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
// 2012), 64-bit output, on 32-bit halves so that the redirect can key-hash a
// visitor id and MAC a click id without allocating and without a native call
// (node:crypto's HMAC costs an object and about 2 µs per call; this is a few
// hundred nanoseconds). SipHash is a pseudo-random function designed as a MAC
// for short messages: with the 128-bit key secret, a tag is forged with
// probability 2^-64 per try.
//
// A 64-bit value is two uint32 halves (hi, lo). After hash(), the result is
// in the fields `hi` and `lo`.

export class SipHash {
  hi = 0;
  lo = 0;
  // The key as four little-endian uint32 words: k0 = (k0h, k0l), k1 = (k1h, k1l).
  readonly #k0l: number;
  readonly #k0h: number;
  readonly #k1l: number;
  readonly #k1h: number;
  /** #lastWord's answer. */
  #mh = 0;
  #ml = 0;

  /** `key`: 16 bytes. */
  constructor(key: Uint8Array) {
    if (key.length !== 16) throw new RangeError('a SipHash key is 16 bytes');
    const w = (i: number) => (key[i] | (key[i + 1] << 8) | (key[i + 2] << 16) | (key[i + 3] << 24)) >>> 0;
    this.#k0l = w(0);
    this.#k0h = w(4);
    this.#k1l = w(8);
    this.#k1h = w(12);
  }

  /** Hashes bytes[0 .. length) into (hi, lo). */
  hash(bytes: Uint8Array, length: number): void {
    this.hashAt(bytes, 0, length);
  }

  /** The last word, into (#mh, #ml): the `left` (0..7) bytes after the full words, and the length's low byte on top. */
  #lastWord(bytes: Uint8Array, at: number, left: number, length: number): void {
    let ml = 0;
    let mh = (length & 0xff) << 24;
    for (let i = 0; i < left; i++) {
      if (i < 4) ml |= bytes[at + i] << (8 * i);
      else mh |= bytes[at + i] << (8 * (i - 4));
    }
    this.#ml = ml >>> 0;
    this.#mh = mh >>> 0;
  }

  /** Hashes bytes[offset .. offset + length) into (hi, lo). */
  hashAt(bytes: Uint8Array, offset: number, length: number): void {
    // v0..v3 as (high, low) pairs.
    let v0h = (this.#k0h ^ 0x736f6d65) >>> 0;
    let v0l = (this.#k0l ^ 0x70736575) >>> 0;
    let v1h = (this.#k1h ^ 0x646f7261) >>> 0;
    let v1l = (this.#k1l ^ 0x6e646f6d) >>> 0;
    let v2h = (this.#k0h ^ 0x6c796765) >>> 0;
    let v2l = (this.#k0l ^ 0x6e657261) >>> 0;
    let v3h = (this.#k1h ^ 0x74656462) >>> 0;
    let v3l = (this.#k1l ^ 0x79746573) >>> 0;
    const full = offset + length - (length % 8);
    let mh = 0;
    let ml = 0;
    // A pass per 8-byte word (the last partial, with the length): v3 ^= m, two
    // rounds, v0 ^= m; then the finalization: v2 ^= 0xff, four rounds.
    for (let at = offset; at <= full + 8; at += 8) {
      const finish = at > full;
      if (finish) {
        v2l = (v2l ^ 0xff) >>> 0;
      } else {
        if (at < full) {
          ml = (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
          mh = (bytes[at + 4] | (bytes[at + 5] << 8) | (bytes[at + 6] << 16) | (bytes[at + 7] << 24)) >>> 0;
        } else {
          this.#lastWord(bytes, at, offset + length - full, length);
          ml = this.#ml;
          mh = this.#mh;
        }
        v3h = (v3h ^ mh) >>> 0;
        v3l = (v3l ^ ml) >>> 0;
      }
      for (let r = 0, rounds = finish ? 4 : 2; r < rounds; r++) {
        // One SipRound (paper, fig. 2.1) on locals (docs/performance.md, "Figures behind code comments").
        // A 64-bit add is two 32-bit adds and the low half's carry, computed
        // without a comparison: the top bit of (a & b) | ((a | b) & ~sum) is
        // the carry out of a + b. Visitor ids are random, so a compare-and-branch
        // here mispredicted about half the time (2.3x slower a hash).
        let lo = (v0l + v1l) >>> 0;
        v0h = (v0h + v1h + (((v0l & v1l) | ((v0l | v1l) & ~lo)) >>> 31)) >>> 0;
        v0l = lo;
        let th = ((v1h << 13) | (v1l >>> 19)) >>> 0;
        v1l = ((v1l << 13) | (v1h >>> 19)) >>> 0;
        v1h = th;
        v1h = (v1h ^ v0h) >>> 0;
        v1l = (v1l ^ v0l) >>> 0;
        th = v0h;
        v0h = v0l;
        v0l = th;
        lo = (v2l + v3l) >>> 0;
        v2h = (v2h + v3h + (((v2l & v3l) | ((v2l | v3l) & ~lo)) >>> 31)) >>> 0;
        v2l = lo;
        th = ((v3h << 16) | (v3l >>> 16)) >>> 0;
        v3l = ((v3l << 16) | (v3h >>> 16)) >>> 0;
        v3h = th;
        v3h = (v3h ^ v2h) >>> 0;
        v3l = (v3l ^ v2l) >>> 0;
        lo = (v0l + v3l) >>> 0;
        v0h = (v0h + v3h + (((v0l & v3l) | ((v0l | v3l) & ~lo)) >>> 31)) >>> 0;
        v0l = lo;
        th = ((v3h << 21) | (v3l >>> 11)) >>> 0;
        v3l = ((v3l << 21) | (v3h >>> 11)) >>> 0;
        v3h = th;
        v3h = (v3h ^ v0h) >>> 0;
        v3l = (v3l ^ v0l) >>> 0;
        lo = (v2l + v1l) >>> 0;
        v2h = (v2h + v1h + (((v2l & v1l) | ((v2l | v1l) & ~lo)) >>> 31)) >>> 0;
        v2l = lo;
        th = ((v1h << 17) | (v1l >>> 15)) >>> 0;
        v1l = ((v1l << 17) | (v1h >>> 15)) >>> 0;
        v1h = th;
        v1h = (v1h ^ v2h) >>> 0;
        v1l = (v1l ^ v2l) >>> 0;
        th = v2h;
        v2h = v2l;
        v2l = th;
      }
      if (!finish) {
        v0h = (v0h ^ mh) >>> 0;
        v0l = (v0l ^ ml) >>> 0;
      }
    }
    this.hi = (v0h ^ v1h ^ v2h ^ v3h) >>> 0;
    this.lo = (v0l ^ v1l ^ v2l ^ v3l) >>> 0;
  }
}
