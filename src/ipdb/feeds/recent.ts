// Feeds that remember: Tor exits come and go by the hour, and an address that
// left the list this morning is often back tonight. A feed with `keepDays`
// folds in every address its data held in the last keepDays days, not only
// the newest download's. After each good download, the addresses of the
// previous data that the new one lacks go to the feed's recent file with the
// time they were last seen; those last seen more than keepDays ago are dropped.
//
// The recent file is cidr-lines (the builder reads it so, ignoring what
// follows the first field): one CIDR a line, then the time it was last seen,
//   185.220.101.1/32 2026-11-23T10:00:00.000Z
// It is written by the refresh only and replaced whole, never edited.
import { DAY_MS } from '../../days.js';
import { log } from '../../log.js';
import { readRegularFile } from '../../regular-file.js';
import { cidrRange, FEED_MAX_ENTRIES, type FeedFormat, parseFeed } from './parse.js';

/** Data a feed held before a download: its files, and when they were last known to be current. */
export interface PreviousData {
  files: readonly string[];
  format: FeedFormat;
  seenAt: number;
  /** Its recent file, if any. */
  recent: string | null;
}

type Ranges = { v4: readonly [bigint, bigint][]; v6: readonly [bigint, bigint][] };

/** An aligned range as CIDR text (IPv6 written as eight hextets, uncompressed). */
export function rangeCidr(family: 4 | 6, start: bigint, end: bigint): string {
  const bits = family === 4 ? 32 : 128;
  let prefix = bits;
  for (let size = end - start + 1n; size > 1n; size >>= 1n) prefix--;
  if (family === 4) return `${[24n, 16n, 8n, 0n].map((s) => (start >> s) & 0xffn).join('.')}/${prefix}`;
  const hextets: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) hextets.push(((start >> s) & 0xffffn).toString(16));
  return `${hextets.join(':')}/${prefix}`;
}

const keyOf = (family: 4 | 6, start: bigint, end: bigint) => `${family}:${start.toString(16)}-${end.toString(16)}`;

type Kept = Map<string, { family: 4 | 6; at: bigint; cidr: string; seen: number }>;

/**
 * Notes a range as seen at `seen`, unless it was seen later already. Only
 * single addresses are remembered: Tor's lists hold nothing else, and a wide
 * range that a hostile list once carried (every /8) would stay for keepDays.
 */
function note(into: Kept, family: 4 | 6, start: bigint, end: bigint, seen: number): void {
  if (start !== end) return;
  const key = keyOf(family, start, end);
  if ((into.get(key)?.seen ?? -Infinity) < seen) into.set(key, { family, at: start, cidr: rangeCidr(family, start, end), seen });
}

/** A recent file's entries; lines that are not "<CIDR> <ISO time>" are skipped (the file is rebuilt from what is readable). */
function readRecent(file: string, into: Kept): void {
  for (const line of readRegularFile(file).toString('latin1').split('\n')) {
    const [cidr, time] = line.trim().split(/\s+/);
    const range = cidr && !cidr.startsWith('#') ? cidrRange(cidr) : null;
    const seen = Date.parse(time ?? '');
    if (range && !Number.isNaN(seen)) note(into, range.family, range.start, range.end, seen);
  }
}

/**
 * The recent file's text after a download of `current` at `now`: the
 * previous data's addresses (and its recent ones) that `current` lacks,
 * seen within `keepDays`, newest first, at most FEED_MAX_ENTRIES of them (the
 * oldest are dropped first: the file is read as a feed, and a publisher that
 * rotates its whole list every hour would otherwise grow it without bound).
 * `entries` is their count, `ranges` the addresses (each [a, a]), which the
 * growth rule counts with `current` (limits.ts).
 */
export function recentAfter(previous: PreviousData, current: Ranges, now: number, keepDays: number, feedName: string): { text: string; entries: number; ranges: Ranges } {
  const kept: Kept = new Map();
  if (previous.recent) {
    try {
      readRecent(previous.recent, kept);
    } catch (err) {
      // Unreadable, it costs only the addresses it remembered.
      log('warn', 'feed_recent_unreadable', { feed: feedName, file: previous.recent, error: (err as Error).message });
    }
  }
  for (const file of previous.files) {
    try {
      const parsed = parseFeed(previous.format, readRegularFile(file), `${feedName} (previous data)`);
      for (const [start, end] of parsed.ranges?.v4 ?? []) note(kept, 4, start, end, previous.seenAt);
      for (const [start, end] of parsed.ranges?.v6 ?? []) note(kept, 6, start, end, previous.seenAt);
    } catch (err) {
      log('warn', 'feed_recent_unreadable', { feed: feedName, file, error: (err as Error).message });
    }
  }
  const now4 = new Set(current.v4.map(([s, e]) => keyOf(4, s, e)));
  const now6 = new Set(current.v6.map(([s, e]) => keyOf(6, s, e)));
  const oldest = now - keepDays * DAY_MS;
  const chosen = [...kept]
    .filter(([key, { seen }]) => seen >= oldest && !(key.startsWith('4:') ? now4 : now6).has(key))
    .map(([, v]) => v)
    .sort((a, b) => b.seen - a.seen || (a.cidr < b.cidr ? -1 : 1))
    .slice(0, FEED_MAX_ENTRIES);
  const lines = chosen.map((v) => `${v.cidr} ${new Date(v.seen).toISOString()}`);
  const ranges = { v4: [] as [bigint, bigint][], v6: [] as [bigint, bigint][] };
  for (const v of chosen) (v.family === 4 ? ranges.v4 : ranges.v6).push([v.at, v.at]);
  const header = `# ${feedName}: addresses of the last ${keepDays} days no longer in the newest download, each with when it was last seen (src/ipdb/feeds/recent.ts)\n`;
  return { text: header + lines.map((l) => `${l}\n`).join(''), entries: lines.length, ranges };
}
