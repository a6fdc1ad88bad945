// The checks a refresh's candidate database (new ASN data) passes before it
// replaces the serving one (contract §7), run in the build process
// (build.worker.ts), off the serving threads and the main thread. A
// publisher, or whoever took over its host, decides every byte of a source;
// these bound what one bad download can do (docs/reliability.md, findings
// 107 and 109). Any refusal is that source's failure: the next source is
// tried, and the serving database stays when none passes.
import { AppError } from '../errors.js';
import type { IpDatabase } from './database.js';

/**
 * Addresses whose owner does not change, with that owner: the public
 * resolvers of Google, Cloudflare, Quad9 and Cisco OpenDNS (checked against
 * the shipped @ip-location-db/asn 2.3.2026061719 and both 2025 versions).
 * Spread over four /8s of IPv4 and two IPv6 /32s, so data that hands most of
 * the space to one network contradicts at least one of them.
 */
const WELL_KNOWN: readonly (readonly [string, number])[] = [
  ['8.8.8.8', 15169],
  ['1.1.1.1', 13335],
  ['9.9.9.9', 19281],
  ['208.67.222.222', 36692],
  ['2001:4860:4860::8888', 15169],
  ['2606:4700:4700::1111', 13335],
];

/** A new database must keep at least this share of the current one's ranges (per family). */
const MIN_RANGE_FRACTION = 0.5;

/**
 * The largest share of the serving database's announced space, per family,
 * that new data may give to another ASN (IPv6 counted in /64s, 6to4 left
 * out: see SIX_TO_FOUR). Measured between published versions of the
 * package: in 9 days (2025-04-02 to 04-11) 0.09% of the IPv4 space and 0.07%
 * of the IPv6 space moved, in 14 months (2025-04-11 to 2026-06-17) 4.1% and
 * 4.0%. The serving data can be the shipped package, as old as the release,
 * so the bound allows some six times the 14 months' drift; data that makes
 * every address one network's moves nearly all of it.
 */
const MAX_MOVED_SHARE = 0.25;

/**
 * The largest share of the serving database's announced space that new
 * data may leave unannounced, per family: an address without an ASN is not
 * judged by one, so withdrawn space makes ASN-based detection fail open.
 * Between the same versions, 0.04% of the IPv4 and 0.06% of the IPv6 space
 * in 9 days, 1.5% and 12.9% in 14 months. IPv6 space is held in few large
 * blocks: one network (AS398500, 22 /22s) made 9.6 points of the 12.9. Some
 * six and four times the 14 months' figures.
 */
const MAX_LOST_SHARE = { 4: 0.1, 6: 0.5 } as const;

/**
 * A candidate may be at most this many times the serving file's size, or
 * GROWTH_FLOOR, whichever is larger. The package's database is 16 MB with
 * the shipped feeds; its ASN data alone made 13.8 MB in April 2025 and
 * 14.8 MB in June 2026. The floor lets a first refresh over it (or over a
 * small test database) take a larger publisher's data. At a swap the first
 * thread to open the file validates all of it while the others wait on the
 * reader's lock (native OpenShared), so the size is every thread's stall:
 * 8 ms for the real file here, 1.1 s for the review's 840 MB.
 */
const MAX_GROWTH = 2;
const GROWTH_FLOOR = 64 * 1024 * 1024;

/** The largest candidate a serving database of `size` bytes lets in. */
export const candidateSizeLimit = (size: number): number => Math.max(MAX_GROWTH * size, GROWTH_FLOOR);

/** Refuses a candidate of `bytes` bytes much larger than the serving database (null: none to compare with). */
export function checkCandidateSize(bytes: number, current: IpDatabase | null): void {
  if (current === null) return;
  const limit = candidateSizeLimit(current.info.size);
  if (bytes > limit) {
    throw new AppError('ipdb_candidate_refused', `it is ${bytes} bytes, more than ${MAX_GROWTH} times the serving database's ${current.info.size} (at most ${limit})`);
  }
}

/** Refuses a candidate that contradicts the well-known owners, or (against `current`) loses ranges, moves address space or withdraws it. */
export function checkCandidate(candidate: IpDatabase, current: IpDatabase | null): void {
  for (const [ip, expected] of WELL_KNOWN) {
    // The ASN data's answer (a feed's range around the address has no ASN).
    const asn = candidate.asn(candidate.lookupText(ip));
    if (asn === 0) throw new AppError('ipdb_candidate_refused', `it does not resolve ${ip}`);
    if (asn !== expected) throw new AppError('ipdb_candidate_refused', `it gives ${ip} to AS${asn}, not to AS${expected}`);
  }
  if (current === null) return;
  for (const family of ['v4', 'v6'] as const) {
    const now = current.info.ranges[family];
    const next = candidate.info.ranges[family];
    if (next < now * MIN_RANGE_FRACTION) {
      throw new AppError('ipdb_candidate_refused', `it has ${next} ${family} ranges, under ${MIN_RANGE_FRACTION * 100}% of the serving database's ${now}`);
    }
  }
  for (const family of [4, 6] as const) {
    const { announced, moved, lost } = compareSpace(current, candidate, family);
    if (announced === 0) continue;
    const what = family === 4 ? 'announced IPv4 addresses' : 'announced IPv6 /64 blocks';
    if (moved > announced * MAX_MOVED_SHARE) {
      throw new AppError('ipdb_candidate_refused', `it gives ${moved} of the serving database's ${announced} ${what} (${percent(moved, announced)}) to other ASNs, more than ${MAX_MOVED_SHARE * 100}%`);
    }
    if (lost > announced * MAX_LOST_SHARE[family]) {
      throw new AppError('ipdb_candidate_refused', `it leaves ${lost} of the serving database's ${announced} ${what} (${percent(lost, announced)}) unannounced, more than ${MAX_LOST_SHARE[family] * 100}%`);
    }
  }
}

function percent(part: number, whole: number): string {
  return `${((100 * part) / whole).toFixed(1)}%`;
}

/**
 * 6to4 (2002::/16, RFC 3056) as the first 32 bits of its start and end: its
 * addresses carry IPv4 ones, and its announcer is whichever relay network
 * (AS33651 in 2025, AS6939 in 2026: 22% of the announced IPv6 space moved
 * at once). The comparison leaves it out.
 */
const SIX_TO_FOUR = [0x2002_0000, 0x2003_0000] as const;

/**
 * A family's ranges in the comparison's unit (IPv4: one address; IPv6: one
 * /64, 2^64 of which fill the family, more than a double holds exactly):
 * each start as hi * 2^32 + lo units, with the family's end appended, and
 * each range's ASN (0: unannounced). An IPv6 start is cut to its /64, so
 * ranges that start in one /64 are empty but the last, which takes the
 * whole /64: data split finer than /64s gains at most one /64 per range.
 * IPv6 leaves out 6to4 (unannounced on both sides).
 */
interface Owners {
  hi: Float64Array;
  lo: Uint32Array;
  asns: Uint32Array;
}

function owners(db: IpDatabase, family: 4 | 6): Owners {
  if (family === 4) {
    const starts = db.rangeStarts(4);
    const n = starts.length;
    const hi = new Float64Array(n + 1);
    const lo = new Uint32Array(n + 1);
    const asns = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      lo[i] = starts[i];
      asns[i] = db.asn(db.lookup4(starts[i]));
    }
    hi[n] = 1;
    return { hi, lo, asns };
  }
  const bytes = db.rangeStarts(6);
  const n = bytes.length >>> 4;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Room for the two edges of 6to4 and the end.
  const hi = new Float64Array(n + 3);
  const lo = new Uint32Array(n + 3);
  const asns = new Uint32Array(n + 2);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const h = view.getUint32(16 * i);
    const asn = db.asn(db.lookupBytes(bytes.subarray(16 * i, 16 * i + 16)));
    hi[k] = h;
    lo[k] = view.getUint32(16 * i + 4);
    asns[k++] = h >= SIX_TO_FOUR[0] && h < SIX_TO_FOUR[1] ? 0 : asn;
    // A range across an edge of 6to4 is cut there. An edge equal to the
    // next range's /64 leaves an empty piece, which counts nothing.
    const nextHi = i + 1 < n ? view.getUint32(16 * (i + 1)) : 2 ** 32;
    for (const edge of SIX_TO_FOUR) {
      if (h < edge && edge <= nextHi) {
        hi[k] = edge;
        lo[k] = 0;
        asns[k++] = edge === SIX_TO_FOUR[0] ? 0 : asn;
      }
    }
  }
  hi[k] = 2 ** 32;
  lo[k] = 0;
  return { hi: hi.subarray(0, k + 1), lo: lo.subarray(0, k + 1), asns: asns.subarray(0, k) };
}

/**
 * In units of the family (see Owners): the space `from` gives an ASN
 * (announced), how much of it `to` gives another ASN (moved) and how much
 * it leaves unannounced (lost). A merge of the two range lists, both tiling
 * the family from 0; a piece's size, (hi difference) * 2^32 + lo
 * difference, is exact up to 2^53 units and within a part in 2^53 beyond.
 * Both families of two of the package's databases (467,000 IPv4 and
 * 178,000 IPv6 ranges each): about 90 ms, first run, against 2-3 s for the
 * build.
 */
function compareSpace(from: IpDatabase, to: IpDatabase, family: 4 | 6): { announced: number; moved: number; lost: number } {
  const a = owners(from, family);
  const b = owners(to, family);
  let announced = 0;
  let moved = 0;
  let lost = 0;
  let atHi = 0;
  let atLo = 0;
  for (let i = 0, j = 0; i < a.asns.length && j < b.asns.length; ) {
    const aHi = a.hi[i + 1];
    const aLo = a.lo[i + 1];
    const bHi = b.hi[j + 1];
    const bLo = b.lo[j + 1];
    const aFirst = aHi < bHi || (aHi === bHi && aLo <= bLo);
    const endHi = aFirst ? aHi : bHi;
    const endLo = aFirst ? aLo : bLo;
    const x = a.asns[i];
    if (x !== 0) {
      const size = (endHi - atHi) * 2 ** 32 + (endLo - atLo);
      const y = b.asns[j];
      announced += size;
      if (y === 0) lost += size;
      else if (y !== x) moved += size;
    }
    atHi = endHi;
    atLo = endLo;
    if (aHi === endHi && aLo === endLo) i++;
    if (bHi === endHi && bLo === endLo) j++;
  }
  return { announced, moved, lost };
}
