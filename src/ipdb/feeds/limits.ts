// What a feed's download may say beyond its format (parse.ts): how wide one
// entry may be (the feed's cap, registry.ts), and how much more address space
// it may cover than the feed's data did. A 1 MB list can otherwise label the
// whole internet (the hostile-publisher review of 2026-11-29): a `tor` list
// of every /8 made every carrier a Tor exit.
//
// Cover is the address space a feed's data holds together, overlaps counted
// once, per family: for a feed with keepDays (Tor's), its download and the
// addresses its memory keeps (recent.ts), since both are folded in; a growth
// rule on the download alone let a publisher rotating a new set of addresses
// each hour fill the memory with a million of them (the review of finding
// 108). The feed's state keeps the cover of each download taken in the last
// COVER_DAYS days ({at, v4, v6}, decimal strings: an IPv6 cover passes 2^53),
// and the cover of the snapshot a feed's first download replaced; a new
// download is measured against the smallest of them and of its last good
// data, so that a list grown by MAX_GROWTH at every refresh (Tor's is hourly)
// still needs a week per step. And for BASE_DAYS, against the feed's base:
// the cover its growth started from (the snapshot's when a first download
// replaced it, a reset's download, the week's smallest when the base was
// BASE_DAYS old), so that a list grown MAX_GROWTH times a week, every week,
// grows MAX_GROWTH times a quarter instead of 16 times more the second week
// and 64 the third, while an honest list's growth is taken as its base
// ages.
import { DAY_MS } from '../../days.js';
import type { FeedDefinition } from './registry.js';
import { rangeCidr } from './recent.js';

type Ranges = { v4: readonly [bigint, bigint][]; v6: readonly [bigint, bigint][] };

export interface Cover {
  v4: bigint;
  v6: bigint;
}

/** A download's cover as the feed's state keeps it. */
export interface CoverRecord {
  at: string;
  v4: string;
  v6: string;
}

/** A download may cover this many times what the feed's data covered at its smallest in COVER_DAYS. */
const MAX_GROWTH = 4n;
const COVER_DAYS = 7;
/** How long a feed's base bounds its growth before it moves to the week's smallest cover. */
const BASE_DAYS = 90;
/**
 * Below this, growth is not counted: a range list of two /24s may become a
 * /16. A /16 of IPv4 and a /48 of IPv6.
 */
const COVER_FLOOR: Cover = { v4: 1n << 16n, v6: 1n << 80n };
/**
 * The floor of a list of single addresses (FeedDefinition.hosts): 4,096
 * addresses of each family, so a list of 20 VPN servers may become 4,096.
 * The shipped lists hold at most 1,663 IPv4 and 1,004 IPv6 addresses where
 * Tor's memory counts (`tor`: 1,372 exits and 279 remembered of a week
 * replayed; `tor-onionoo`: 1,368 and 916, with 295 and 88 remembered), 1,469
 * IPv4 (PIA) and 1,028 IPv6 (AirVPN) among the VPN providers', 481 among
 * the crawlers' and probes'; NordVPN's 8,468 are past it, and grow by
 * MAX_GROWTH of themselves, as do Tor's (MAX_GROWTH times `tor`'s 1,651 is 6,604).
 * With a range list's /16, a `tor` publisher could add 65,536 addresses of
 * its choosing at every refresh.
 */
const HOST_COVER_FLOOR: Cover = { v4: 4096n, v6: 4096n };

/** The prefix length of an aligned range. */
function prefixOf(family: 4 | 6, start: bigint, end: bigint): number {
  let prefix = family === 4 ? 32 : 128;
  for (let size = end - start + 1n; size > 1n; size >>= 1n) prefix--;
  return prefix;
}

/**
 * The first entry wider than the feed's cap, named with the cap, or null.
 * One such entry refuses the whole download: the list is not what its
 * publisher sends, and the rest of it is no more to be trusted.
 */
export function pastCap(feed: FeedDefinition, ranges: Ranges): string | null {
  for (const family of [4, 6] as const) {
    const cap = family === 4 ? feed.widest.v4 : feed.widest.v6;
    for (const [start, end] of family === 4 ? ranges.v4 : ranges.v6) {
      if (prefixOf(family, start, end) < cap) {
        return `entry ${rangeCidr(family, start, end)} is wider than the /${cap} an IPv${family} entry of feed ${feed.name} may be`;
      }
    }
  }
  return null;
}

function covered(ranges: readonly [bigint, bigint][]): bigint {
  const sorted = [...ranges].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let total = 0n;
  let end = -1n;
  for (const [s, e] of sorted) {
    if (e <= end) continue;
    total += e - (s > end ? s : end + 1n) + 1n;
    end = e;
  }
  return total;
}

export function coverOf(ranges: Ranges): Cover {
  return { v4: covered(ranges.v4), v6: covered(ranges.v6) };
}

export function coverRecord(cover: Cover, at: number): CoverRecord {
  return { at: new Date(at).toISOString(), v4: cover.v4.toString(), v6: cover.v6.toString() };
}

const coverOfRecord = (r: CoverRecord): Cover => ({ v4: BigInt(r.v4), v6: BigInt(r.v6) });

const ofTheWeek = (records: readonly CoverRecord[], now: number) => records.filter((r) => Date.parse(r.at) >= now - COVER_DAYS * DAY_MS);

/** The smallest cover, per family, of `held` and the records of the last COVER_DAYS at `now`: what the weekly rule measures against. */
export function smallestCover(held: Cover, records: readonly CoverRecord[], now: number): Cover {
  const recent = ofTheWeek(records, now).map(coverOfRecord);
  const least = (family: 'v4' | 'v6') => recent.reduce((min, r) => (r[family] < min ? r[family] : min), held[family]);
  return { v4: least('v4'), v6: least('v6') };
}

/** The feed's base while it bounds growth at `now` (for BASE_DAYS after it was taken), else null. */
export function baseInForce(base: CoverRecord | null, now: number): CoverRecord | null {
  return base !== null && Date.parse(base.at) >= now - BASE_DAYS * DAY_MS ? base : null;
}

/** The records of the last COVER_DAYS at `now`, with `cover` (taken at `now`) added. */
export function coversAfter(records: readonly CoverRecord[], cover: Cover, now: number): CoverRecord[] {
  return [...ofTheWeek(records, now), coverRecord(cover, now)];
}

/**
 * Why data covering `cover` is refused against the feed's data, `held` (its
 * last good data or snapshot, with its memory), `records` (the covers of
 * its data taken) and `base` (FeedState.base; null before a feed's first
 * download, or in a state from before bases were kept), or null when it is
 * not. For a feed with keepDays, `cover` is the download's with the memory
 * it would leave, and `downloaded` the download's alone: the error names the
 * addresses only the memory holds.
 */
export function growthError(feed: FeedDefinition, cover: Cover, held: Cover, records: readonly CoverRecord[], base: CoverRecord | null, now: number, downloaded: Cover = cover): string | null {
  const floor = feed.hosts ? HOST_COVER_FLOOR : COVER_FLOOR;
  const week = smallestCover(held, records, now);
  const inForce = baseInForce(base, now);
  const start = inForce === null ? null : coverOfRecord(inForce);
  for (const family of ['v4', 'v6'] as const) {
    const allowed = (from: bigint) => (MAX_GROWTH * from > floor[family] ? MAX_GROWTH * from : floor[family]);
    const remembered = cover[family] - downloaded[family];
    const covers = `covers ${cover[family]} IP${family} addresses${remembered > 0n ? ` with the ${remembered} only its memory of the last ${feed.keepDays} days holds` : ''}`;
    const reset = `if the publisher's list did grow, \`splitguard ipdb reset-feed ${feed.name}\` takes it`;
    if (cover[family] > allowed(week[family])) {
      return `${covers}, more than ${MAX_GROWTH} times the ${week[family]} the feed's data covered at its smallest in ${COVER_DAYS} days (${allowed(week[family])} allowed); ${reset}`;
    }
    if (start !== null && cover[family] > allowed(start[family])) {
      return `${covers}, more than ${MAX_GROWTH} times the ${start[family]} its data covered when taken as its base on ${inForce!.at.slice(0, 10)} (${allowed(start[family])} allowed for ${BASE_DAYS} days from then); ${reset}`;
    }
  }
  return null;
}
