// Fetching feeds from their publishers: each feed's sources in order until one
// yields a good download (failover), a conditional request while the last
// good files exist, a size cap, the format's own checks (parse.ts), the
// feed's cap on an entry's width and the growth rule (limits.ts, on the
// download with the memory it leaves for a feed with keepDays), and a
// sanity check against the last good data. A good download replaces the
// cached files durably; a failure leaves them, and the feed keeps serving
// its last good data and says why in its state.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { moveDurably, writeFileDurably } from '../../durable-file.js';
import { readRegularFile } from '../../regular-file.js';
import { AppError, FetchError } from '../../errors.js';
import { log } from '../../log.js';
import type { StateStore } from '../../store/state-store.js';
import { dueAfterClockStep } from '../refresh-state.js';
import { displayUrl, type FetchLimits, fetchSource, inOrder, type SourceFailure } from '../fetch.js';
import { baseInForce, type Cover, type CoverRecord, coverOf, coverRecord, coversAfter, growthError, pastCap, smallestCover } from './limits.js';
import { FEED_MAX_BYTES, parseFeed } from './parse.js';
import { FEEDS, type FeedDefinition, snapshotFiles, snapshotRecent } from './registry.js';
import { type PreviousData, recentAfter } from './recent.js';
import { EMPTY_STATE, feedDir, feedFile, feedPath, feedState, type FeedState, hasGoodData, saveIfCurrent } from './state.js';

/** Where feeds are fetched to and installed, their state, the download limits, and the server's stop. */
interface UpdateOptions {
  state: StateStore;
  dataDir: string;
  /** A scratch directory. */
  work: string;
  limits: FetchLimits;
  stop?: AbortSignal;
}

/** A refresh's outcome when the feed's state was saved by someone else while it downloaded (state.ts, saveIfCurrent). */
const CHANGED_MEANWHILE = 'the feed was reset (`splitguard ipdb reset-feed`) or refreshed by another process while it downloaded: this download is not taken';

/** A new download must keep at least this share of the last good data's entries. */
const MIN_ENTRY_FRACTION = 0.5;

/**
 * Entries the feeds' downloads may hold together (their last good data; the
 * shipped snapshots, about 220,000 entries in all, are not counted). One feed
 * may hold FEED_MAX_ENTRIES, but ten publishers each sending that many (ten
 * million random IPv6 addresses) made the database's build run out of memory
 * after four minutes, the process at 5 GB, and then fail at every refresh,
 * since the feeds stayed unchanged (attack review of 2026-11-29). A download
 * that would pass this with the other feeds' data is refused, and its feed
 * keeps its last good data.
 */
export const FEEDS_MAX_ENTRIES = 1_000_000;

export interface FeedOutcome {
  feed: string;
  outcome: 'updated' | 'unchanged' | 'failed';
  source: string | null;
  error: string | null;
  ms: number;
}

/**
 * The feeds whose next refresh is due (or that never had one) at `now`,
 * among those with a source to fetch from (`sources` gives none for a feed
 * the configuration turns off).
 */
export function dueFeeds(feeds: readonly FeedDefinition[], state: StateStore, now: number, sources: (feed: FeedDefinition) => readonly string[]): FeedDefinition[] {
  return feeds.filter((f) => {
    if (sources(f).length === 0) return false;
    const due = feedDueAt(f, state, now);
    return due === null || due <= now;
  });
}

/** When `feed` is next due as the schedule reads it (dueAfterClockStep); null when no time is stored (due at once). */
export function feedDueAt(feed: FeedDefinition, state: StateStore, now: number): number | null {
  const due = Date.parse(feedState(state, feed.name).next_due_at ?? '');
  return Number.isNaN(due) ? null : dueAfterClockStep(due, now, feed.refreshHours * 3_600_000);
}

/**
 * Fetches `feeds` one after the other into `work` (a scratch directory) and
 * installs the good downloads under <data dir>/ipdb/feeds/. `sources`
 * replaces a feed's sources (configuration); an empty list means the feed is
 * not fetched at all.
 */
export async function updateFeeds(
  feeds: readonly FeedDefinition[],
  options: UpdateOptions & { sources: (feed: FeedDefinition) => readonly string[] },
): Promise<FeedOutcome[]> {
  const outcomes: FeedOutcome[] = [];
  for (const feed of feeds) {
    if (options.stop?.aborted) throw new AppError('stopped');
    const sources = options.sources(feed);
    if (sources.length === 0) continue;
    outcomes.push(await updateFeed(feed, sources, options));
  }
  return outcomes;
}

type Ranges = { v4: [bigint, bigint][]; v6: [bigint, bigint][] };

/** The ranges of a feed's files, or null when one cannot be read or parsed. */
function rangesOf(format: Parameters<typeof parseFeed>[0], files: readonly string[], name: string): Ranges | null {
  const ranges: Ranges = { v4: [], v6: [] };
  try {
    for (const file of files) {
      const parsed = parseFeed(format, readRegularFile(file), name);
      for (const r of parsed.ranges?.v4 ?? []) ranges.v4.push(r);
      for (const r of parsed.ranges?.v6 ?? []) ranges.v6.push(r);
    }
  } catch {
    return null;
  }
  return ranges;
}

/** `ranges` with those of `more` (null: none). */
const joined = (ranges: Ranges, more: Readonly<Record<'v4' | 'v6', readonly [bigint, bigint][]>> | null): Ranges => (more ? { v4: [...ranges.v4, ...more.v4], v6: [...ranges.v6, ...more.v6] } : ranges);

/**
 * What the feed holds: `good` when its last good download is on disk, still
 * parses and keeps within the feed's cap, and that data's cover with its
 * memory's (else its snapshot's, with the snapshot's memory). Only a good
 * download is asked for conditionally: a damaged one (a bad sector, a stray
 * write) is fetched again in full, as a missing one is, or a 304 would keep
 * it, and the build its snapshot, until the publisher's list changed. A
 * download taken before the caps with an entry past them (a hostile list) is
 * not protected by the shrink rule. An unreadable memory counts as empty, as
 * recent.ts reads it.
 */
function heldData(feed: FeedDefinition, state: FeedState, dataDir: string): { good: boolean; cover: Cover } {
  const memory = (file: string | null) => (feed.keepDays && file !== null ? rangesOf('cidr-lines', [file], feed.name) : null);
  if (hasGoodData(state, dataDir)) {
    const ranges = rangesOf(feed.format, state.files.map((f) => feedPath(dataDir, f)), feed.name);
    const past = ranges && pastCap(feed, ranges);
    if (past) log('warn', 'feed_kept_data_past_cap', { feed: feed.name, error: past });
    if (ranges && !past) return { good: true, cover: coverOf(joined(ranges, memory(state.recent === null ? null : feedPath(dataDir, state.recent)))) };
  }
  const snapshot = feed.snapshot ? rangesOf(feed.snapshot.format, snapshotFiles(feed), feed.name) : null;
  return { good: false, cover: coverOf(joined(snapshot ?? { v4: [], v6: [] }, memory(snapshotRecent(feed)))) };
}

async function updateFeed(
  feed: FeedDefinition,
  sources: readonly string[],
  options: UpdateOptions,
): Promise<FeedOutcome> {
  const t0 = performance.now();
  const before = feedState(options.state, feed.name);
  const { good, cover: held } = heldData(feed, before, options.dataDir);
  const now = new Date();
  const next = new Date(now.getTime() + feed.refreshHours * 3_600_000).toISOString();
  const attempt: Attempt = { feed, before, good, held, now, next, parsing: null };
  const errors: string[] = [];
  const failed = ({ source, error }: SourceFailure) => {
    const message = (error as Error).message;
    // A download's or a parse's error that names this source's one URL is not prefixed with it again.
    const named = error instanceof FetchError ? error.url : attempt.parsing;
    errors.push(named === source ? message : `${source}: ${message}`);
    log('warn', 'feed_source_failed', { feed: feed.name, source, error: message });
  };
  // A stop ends inOrder with `stopped`: the feed's state stays as it was, so it is due again at the next start.
  const answered = await inOrder(sources, (location, source) => fetchFrom(location, source, attempt, options), failed, options.stop);
  const ms = Math.round(performance.now() - t0);
  if (answered?.value === 'superseded') return { feed: feed.name, outcome: 'failed', source: answered.source, error: CHANGED_MEANWHILE, ms };
  if (answered !== null) return { feed: feed.name, outcome: answered.value, source: answered.source, error: null, ms };
  const error = errors.join('; ');
  await saveIfCurrent(options.state, feed.name, before, { ...EMPTY_STATE, ...before, last_attempt_at: now.toISOString(), last_outcome: 'failed', last_error: error, next_due_at: next });
  return { feed: feed.name, outcome: 'failed', source: null, error, ms };
}

/** One feed's refresh as its sources are tried: what it had before, and the URL being parsed when a parse fails (named in the error). */
interface Attempt {
  feed: FeedDefinition;
  before: FeedState;
  /** The last good download reads back: the publisher is asked conditionally, and the new one is checked against it. */
  good: boolean;
  /** The cover of the last good download, else of the snapshot, each with its memory. */
  held: Cover;
  now: Date;
  next: string;
  parsing: string | null;
}

/**
 * Fetches the feed from one source and installs it, or says it is
 * unchanged; 'superseded' when its state was saved by someone else
 * meanwhile, and nothing of the download is kept. Throws what went wrong.
 */
async function fetchFrom(
  location: string,
  source: string,
  attempt: Attempt,
  options: UpdateOptions,
): Promise<'updated' | 'unchanged' | 'superseded'> {
  const { feed, before, good, held, now, next } = attempt;
  const dir = path.join(options.work, `feed-${feed.name}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  attempt.parsing = null;
  const fetched = await fetchSource(location, dir, good ? before.validators : {}, { ...options.limits, maxBytes: FEED_MAX_BYTES }, options.stop);
  if (fetched.unchanged) {
    const saved = await saveIfCurrent(options.state, feed.name, before, { ...before, confirmed_at: now.toISOString(), last_attempt_at: now.toISOString(), last_outcome: 'unchanged', last_error: null, next_due_at: next });
    return saved ? 'unchanged' : 'superseded';
  }
  let entries = 0;
  const versions: string[] = [];
  const digest = createHash('sha256');
  const ranges: Ranges = { v4: [], v6: [] };
  for (const part of fetched.parts) {
    const bytes = readFileSync(part.file!);
    attempt.parsing = displayUrl(part.url);
    const parsed = parseFeed(feed.format, bytes, `${feed.name} (${attempt.parsing})`);
    attempt.parsing = null;
    entries += parsed.entries - parsed.malformed - parsed.special;
    for (const r of parsed.ranges?.v4 ?? []) ranges.v4.push(r);
    for (const r of parsed.ranges?.v6 ?? []) ranges.v6.push(r);
    if (parsed.version) versions.push(parsed.version);
    digest.update(bytes);
  }
  const past = pastCap(feed, ranges);
  if (past) throw new Error(past);
  // What is folded in: the download and, for a feed with keepDays, the memory it leaves (recent.ts).
  const memory = feed.keepDays ? memoryAfter(options.dataDir, feed, before, ranges, now.getTime()) : null;
  const cover = coverOf(joined(ranges, memory?.ranges ?? null));
  // After `ipdb reset-feed` (no good download then) the publisher's list is taken whole.
  const grown = before.reset_at === null ? growthError(feed, cover, held, before.covers, before.base, now.getTime(), coverOf(ranges)) : null;
  if (grown) throw new Error(grown);
  if (good && entries < before.entries * MIN_ENTRY_FRACTION) {
    throw new Error(`${entries} entries, under ${MIN_ENTRY_FRACTION * 100}% of the ${before.entries} of the last good download; if the publisher's list did shrink, \`splitguard ipdb reset-feed ${feed.name}\` takes it`);
  }
  const others = FEEDS.reduce((sum, f) => (f.name === feed.name ? sum : sum + feedState(options.state, f.name).entries), 0);
  if (entries + others > FEEDS_MAX_ENTRIES) {
    throw new Error(`${entries} entries, which with the ${others} the other feeds hold pass the ${FEEDS_MAX_ENTRIES} all feeds may hold together`);
  }
  const files = installParts(options.dataDir, feed.name, fetched.parts.map((p) => p.file!));
  const recent = memory ? installRecent(options.dataDir, feed, memory, now.getTime()) : null;
  const state: FeedState = {
    version: versions.length > 0 ? versions.join(' | ') : digest.digest('hex').slice(0, 12),
    fetched_at: now.toISOString(),
    entries,
    files,
    source,
    recent,
    validators: Object.fromEntries(fetched.parts.map((p) => [p.url, p.validators])),
    covers: coversAfter(coversTaken(before, good, held, now.getTime()), cover, now.getTime()),
    base: baseAfter(before, held, cover, now.getTime()),
    reset_at: null,
    confirmed_at: now.toISOString(),
    last_attempt_at: now.toISOString(),
    last_outcome: 'updated',
    last_error: null,
    next_due_at: next,
    revision: before.revision,
  };
  if (!(await saveIfCurrent(options.state, feed.name, before, state))) {
    for (const file of [...files, recent]) if (file !== null) rmSync(feedPath(options.dataDir, file), { force: true });
    return 'superseded';
  }
  // Only this data directory's own files go (a state copied from another directory names that one's files by absolute path).
  const kept = new Set([...files, recent].map((f) => f && path.basename(f)));
  for (const old of [...before.files, before.recent]) if (old !== null && !kept.has(path.basename(old))) rmSync(feedPath(options.dataDir, old), { force: true });
  return 'updated';
}

/**
 * Moves the downloaded parts into the feed cache under new names (the
 * previous files stay until the state names the new ones); returns the names.
 */
function installParts(dataDir: string, name: string, parts: string[]): string[] {
  const dir = feedDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const stamp = Date.now().toString(36);
  return parts.map((part, i) => {
    const file = `${name}.${stamp}.${i}`;
    moveDurably(part, path.join(dir, file));
    return file;
  });
}

/**
 * The covers the growth rule keeps before a download taken now: none after
 * `ipdb reset-feed`; with the snapshot's (`held`) when the download replaces
 * the snapshot, so that the feed's first week is measured against it and not
 * against a first download up to MAX_GROWTH times larger (limits.ts).
 */
function coversTaken(before: FeedState, good: boolean, held: Cover, now: number): CoverRecord[] {
  if (before.reset_at !== null) return [];
  return good ? before.covers : coversAfter(before.covers, held, now);
}

/**
 * The feed's base after a download taken now (FeedState.base): a reset's
 * download is the new base; otherwise the base stays while in force, and
 * the first download (or the first in a state from before bases were
 * kept, or once the base is BASE_DAYS old) takes what the weekly rule
 * measured it against: the snapshot's cover, or the week's smallest.
 */
function baseAfter(before: FeedState, held: Cover, cover: Cover, now: number): CoverRecord {
  if (before.reset_at !== null) return coverRecord(cover, now);
  return baseInForce(before.base, now) ?? coverRecord(smallestCover(held, before.covers, now), now);
}

/**
 * The memory of a feed with keepDays after a download of `current`
 * (recent.ts): what the previous data held (the last good download, else the
 * snapshot) and the new one lacks.
 */
function memoryAfter(dataDir: string, feed: FeedDefinition, before: FeedState, current: Ranges, now: number): ReturnType<typeof recentAfter> {
  const held = feedFile(feed, before, dataDir);
  // A download was last known current when last confirmed (fetched, or a
  // 304 since), or at its download in a state from before confirmed_at; a
  // snapshot at its date.
  const seenAt = hasGoodData(before, dataDir) ? Date.parse(before.confirmed_at ?? '') || (held?.fetchedAt ?? 0) : (held?.fetchedAt ?? 0);
  const previous: PreviousData = { files: held?.files ?? [], format: held?.format ?? feed.format, seenAt, recent: held?.recent ?? null };
  return recentAfter(previous, current, now, feed.keepDays!, feed.name);
}

/** Writes a feed's memory (memoryAfter) as its recent file; nothing to remember writes no file. */
function installRecent(dataDir: string, feed: FeedDefinition, memory: ReturnType<typeof recentAfter>, now: number): string | null {
  if (memory.entries === 0) return null;
  const file = `${feed.name}.recent.${now.toString(36)}`;
  writeFileDurably(path.join(feedDir(dataDir), file), memory.text);
  return file;
}
