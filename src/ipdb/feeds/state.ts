// What each feed has: its last good data (files under <data dir>/ipdb/feeds/,
// kept until a newer good download replaces them) and the outcome of its last
// attempt, stored as feed:<name> (store/state-store.ts), readable by every thread for
// GET /v1/ip/database. A feed with no good download yet is built from its
// shipped snapshot.
//
// The state names its files by their names in the feed directory, resolved
// against the data directory that reads them (feedPath): a copied, moved or
// restored data directory reads and replaces its own files, never those of
// the directory it came from. States written before held absolute paths;
// their last component is the name.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { isRegularFile } from '../../regular-file.js';
import type { StateStore } from '../../store/state-store.js';
import type { Validators } from '../fetch.js';
import type { FeedLabel } from '../format.js';
import type { HostingListSource } from '../../quality/hosting-list.js';
import type { CoverRecord } from './limits.js';
import type { FeedFormat } from './parse.js';
import { type FeedDefinition, snapshotFiles, snapshotRecent } from './registry.js';

export interface FeedState {
  /** The last good data: its version, when it was fetched, its entries, its files (names in the feed directory), its source. */
  version: string | null;
  fetched_at: string | null;
  entries: number;
  files: string[];
  source: string | null;
  /** For a feed with keepDays: its recent file (recent.ts, a name in the feed directory; null when it remembers nothing). */
  recent: string | null;
  /** Validators of the last good download, per URL (sent only while its files exist). */
  validators: Record<string, Validators>;
  /** The covers of the data taken in the last week (a download with its memory; the snapshot a first download replaced), for the growth rule (limits.ts). */
  covers: CoverRecord[];
  /**
   * The cover the feed's growth is measured from (limits.ts): set by its
   * first download, by a reset's, and by the first download after it is
   * BASE_DAYS old. Null before the first download, and in a state written
   * before it was kept (its next download sets it).
   */
  base: CoverRecord | null;
  /**
   * When `splitguard ipdb reset-feed` dropped the feed's data: the next
   * download is taken without the shrink and growth rules (null otherwise).
   */
  reset_at: string | null;
  /**
   * When the last good data was last known to be the publisher's current
   * list: its download, or a later 304. A failed attempt leaves it: the
   * Tor memory dates what the data held by it (recent.ts), and an outage
   * must not make old exits look recent. Null in a state written before it
   * was kept: its download's time stands in (memoryAfter, update.ts).
   */
  confirmed_at: string | null;
  last_attempt_at: string | null;
  last_outcome: 'updated' | 'unchanged' | 'failed' | null;
  last_error: string | null;
  next_due_at: string | null;
  /**
   * How many times the state was saved (0 in a state from before it was
   * kept). A refresh saves only over the revision it read (saveIfCurrent),
   * so neither a reset nor another refresh saved meanwhile is undone.
   */
  revision: number;
}

/** A feed as the builder reads it (build.worker.ts). */
export interface FeedFile {
  name: string;
  label: FeedLabel;
  format: FeedFormat;
  files: string[];
  /** A recent file (recent.ts), read as cidr-lines with the feed's own files. */
  recent?: string;
  version: string;
  fetchedAt: number;
  /** An upstream list of the hosting/VPN ASN list (FeedDefinition.list). */
  list?: HostingListSource;
  /** For a download: the feed's snapshot, folded in instead if the download cannot be read at build time. */
  fallback?: FeedFile;
}

export const EMPTY_STATE: FeedState = {
  version: null, fetched_at: null, entries: 0, files: [], source: null, recent: null, validators: {}, covers: [], base: null, reset_at: null,
  confirmed_at: null, last_attempt_at: null, last_outcome: null, last_error: null, next_due_at: null, revision: 0,
};

const key = (name: string) => `feed:${name}`;

export function feedDir(dataDir: string): string {
  return path.join(dataDir, 'ipdb', 'feeds');
}

export function feedState(state: StateStore | null, name: string): FeedState {
  return { ...EMPTY_STATE, ...(state?.get<Partial<FeedState>>(key(name)) ?? {}) };
}

export function saveFeedState(store: StateStore, name: string, state: FeedState): Promise<void> {
  return store.put(key(name), state);
}

/** The revision of a stored state (0 when none is stored, or it predates revisions). */
const revisionOf = (stored: Partial<FeedState> | undefined): number => stored?.revision ?? 0;

/**
 * Saves the state a refresh made from `before` unless the state was saved
 * since `before` was read: by `ipdb reset-feed` or by another refresh
 * (`ipdb refresh` beside the server), each run while this one downloaded.
 * Theirs stands, and this refresh's result is not taken. Whether it saved.
 */
export function saveIfCurrent(store: StateStore, name: string, before: FeedState, state: FeedState): Promise<boolean> {
  return store.update<Partial<FeedState>>(key(name), (current) => (revisionOf(current) === before.revision ? { ...state, revision: before.revision + 1 } : undefined));
}

/**
 * Drops the feed's last good data and its recent file, and marks it reset:
 * the database folds in its snapshot from the next build, and the next
 * download is taken whole (update.ts). The files dropped are those of the
 * state the reset replaced, read in its transaction, so that a refresh
 * saving meanwhile leaves none behind. Returns their names.
 */
export async function resetFeed(store: StateStore, dataDir: string, name: string, now: Date): Promise<string[]> {
  let replaced = EMPTY_STATE;
  await store.update<Partial<FeedState>>(key(name), (current) => {
    replaced = { ...EMPTY_STATE, ...current };
    return { ...EMPTY_STATE, reset_at: now.toISOString(), revision: revisionOf(current) + 1 };
  });
  const dropped = [...replaced.files, ...(replaced.recent === null ? [] : [replaced.recent])].map((f) => path.basename(f));
  for (const file of dropped) rmSync(feedPath(dataDir, file), { force: true });
  return dropped;
}

/** Where a file the state names lies in `dataDir`. */
export function feedPath(dataDir: string, stored: string): string {
  return path.join(feedDir(dataDir), path.basename(stored));
}

/** Whether the feed's last good download is still in `dataDir`, as regular files. */
export function hasGoodData(state: FeedState, dataDir: string): boolean {
  return state.files.length > 0 && state.files.every((f) => isRegularFile(feedPath(dataDir, f)));
}

/**
 * What the builder folds in for a feed: its last good download, else its
 * snapshot; null for a feed with neither.
 */
export function feedFile(f: FeedDefinition, state: FeedState, dataDir: string): FeedFile | null {
  const snapshot = snapshotFile(f);
  if (hasGoodData(state, dataDir)) {
    const recentFile = state.recent === null ? null : feedPath(dataDir, state.recent);
    const recent = recentFile !== null && isRegularFile(recentFile) ? { recent: recentFile } : {};
    return { name: f.name, label: f.label, format: f.format, files: state.files.map((file) => feedPath(dataDir, file)), ...recent, version: state.version ?? 'unknown', fetchedAt: Date.parse(state.fetched_at ?? '') || 0, list: f.list, ...(snapshot ? { fallback: snapshot } : {}) };
  }
  return snapshot;
}

function snapshotFile(f: FeedDefinition): FeedFile | null {
  if (!f.snapshot) return null;
  const recent = snapshotRecent(f);
  return { name: f.name, label: f.label, format: f.snapshot.format, files: snapshotFiles(f), ...(recent ? { recent } : {}), version: `snapshot ${f.snapshot.date}`, fetchedAt: Date.parse(f.snapshot.date), list: f.list };
}

/** feedFile for every feed, leaving out those with nothing to fold in. */
export function feedFiles(feeds: readonly FeedDefinition[], store: StateStore | null, dataDir: string): FeedFile[] {
  return feeds.map((f) => feedFile(f, feedState(store, f.name), dataDir)).filter((f): f is FeedFile => f !== null);
}
