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
 * The largest share of the serving database's announced IPv4 space that new
 * data may give to another ASN. Measured between published versions of the
 * package: 0.09% of it moved in 9 days (2025-04-02 to 04-11), 4.1% in 14
 * months (2025-04-11 to 2026-06-17). The serving data can be the shipped
 * package, as old as the release, so the bound allows some six times the
 * 14 months' drift; data that makes every address one network's moves
 * nearly all of it.
 */
const MAX_MOVED_SHARE = 0.25;

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

/** Refuses a candidate of `bytes` bytes much larger than the serving database (null: none to compare with). */
export function checkCandidateSize(bytes: number, current: IpDatabase | null): void {
  if (current === null) return;
  const limit = Math.max(MAX_GROWTH * current.info.size, GROWTH_FLOOR);
  if (bytes > limit) {
    throw new AppError('ipdb_candidate_refused', `it is ${bytes} bytes, more than ${MAX_GROWTH} times the serving database's ${current.info.size} (at most ${limit})`);
  }
}

/** Refuses a candidate that contradicts the well-known owners, or (against `current`) loses ranges or moves address space. */
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
  const { announced, moved } = movedIPv4(current, candidate);
  if (announced > 0 && moved > announced * MAX_MOVED_SHARE) {
    const percent = ((100 * moved) / announced).toFixed(1);
    throw new AppError(
      'ipdb_candidate_refused',
      `it gives ${moved} of the serving database's ${announced} announced IPv4 addresses (${percent}%) to other ASNs, more than ${MAX_MOVED_SHARE * 100}%`,
    );
  }
}

/** The IPv4 ranges' starts and ASNs (0: unannounced). Every database's ranges tile IPv4 from 0, so a merge of two compares every address. */
function owners(db: IpDatabase): { starts: Float64Array; asns: Uint32Array } {
  const starts: number[] = [];
  const asns: number[] = [];
  for (const { start, record } of db.ranges(4)) {
    starts.push(Number(start));
    asns.push(db.asn(record));
  }
  return { starts: Float64Array.from(starts), asns: Uint32Array.from(asns) };
}

/**
 * The IPv4 addresses `from` gives an ASN (announced), and how many of them
 * `to` gives another ASN (moved; addresses `to` leaves unannounced are not
 * counted: losing ranges is the range check's). A merge of the two range
 * lists: about 90 ms for two of the package's databases (467,000 IPv4
 * ranges each), against 2-3 s for the build.
 */
function movedIPv4(from: IpDatabase, to: IpDatabase): { announced: number; moved: number } {
  const a = owners(from);
  const b = owners(to);
  const END = 2 ** 32;
  let announced = 0;
  let moved = 0;
  let i = 0;
  let j = 0;
  for (let at = 0; at < END; ) {
    const endA = i + 1 < a.starts.length ? a.starts[i + 1] : END;
    const endB = j + 1 < b.starts.length ? b.starts[j + 1] : END;
    const end = Math.min(endA, endB);
    const x = a.asns[i];
    const y = b.asns[j];
    if (x !== 0) {
      announced += end - at;
      if (y !== 0 && y !== x) moved += end - at;
    }
    at = end;
    if (end === endA) i++;
    if (end === endB) j++;
  }
  return { announced, moved };
}
