// What each feed has: its last good data (files under <data dir>/ipdb/feeds/,
// kept until a newer good download replaces them) and the outcome of its last
// attempt, stored as feed:<name> (store/state-store.ts), readable by every thread for
// GET /v1/ip/database. A feed with no good download yet is built from its
// shipped snapshot.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { StateStore } from '../../store/state-store.js';
import type { Validators } from '../fetch.js';
import type { FeedLabel } from '../format.js';
import type { HostingListSource } from '../../quality/hosting-list.js';
import type { FeedFormat } from './parse.js';
import { type FeedDefinition, snapshotFiles, snapshotRecent } from './registry.js';

export interface FeedState {
  /** The last good data: its version, when it was fetched, its entries, its files (absolute), its source. */
  version: string | null;
  fetched_at: string | null;
  entries: number;
  files: string[];
  source: string | null;
  /** For a feed with keepDays: its recent file (recent.ts, absolute; null when it remembers nothing). */
  recent: string | null;
  /** Validators of the last good download, per URL (sent only while its files exist). */
  validators: Record<string, Validators>;
  last_attempt_at: string | null;
  last_outcome: 'updated' | 'unchanged' | 'failed' | null;
  last_error: string | null;
  next_due_at: string | null;
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
}

export const EMPTY_STATE: FeedState = {
  version: null, fetched_at: null, entries: 0, files: [], source: null, recent: null, validators: {},
  last_attempt_at: null, last_outcome: null, last_error: null, next_due_at: null,
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

/** Whether the feed's last good download is still on disk. */
export function hasGoodData(state: FeedState): boolean {
  return state.files.length > 0 && state.files.every((f) => existsSync(f));
}

/**
 * What the builder folds in for a feed: its last good download, else its
 * snapshot; null for a feed with neither.
 */
export function feedFile(f: FeedDefinition, state: FeedState): FeedFile | null {
  if (hasGoodData(state)) {
    const recent = state.recent !== null && existsSync(state.recent) ? { recent: state.recent } : {};
    return { name: f.name, label: f.label, format: f.format, files: state.files, ...recent, version: state.version ?? 'unknown', fetchedAt: Date.parse(state.fetched_at ?? '') || 0, list: f.list };
  }
  if (!f.snapshot) return null;
  const recent = snapshotRecent(f);
  return { name: f.name, label: f.label, format: f.snapshot.format, files: snapshotFiles(f), ...(recent ? { recent } : {}), version: `snapshot ${f.snapshot.date}`, fetchedAt: Date.parse(f.snapshot.date), list: f.list };
}

/** feedFile for every feed, leaving out those with nothing to fold in. */
export function feedFiles(feeds: readonly FeedDefinition[], store: StateStore | null): FeedFile[] {
  return feeds.map((f) => feedFile(f, feedState(store, f.name))).filter((f): f is FeedFile => f !== null);
}
