// What each feed has: its last good data (files under <data dir>/ipdb/feeds/,
// kept until a newer good download replaces them) and the outcome of its last
// attempt, in LMDB `meta` under feed:<name>, readable by every thread for
// GET /v1/ip/database. A feed with no good download yet is built from its
// shipped snapshot.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Stores } from '../../store/db.js';
import type { Validators } from '../fetch.js';
import type { FeedLabel } from '../format.js';
import type { HostingListSource } from '../../quality/hosting-list.js';
import type { FeedFormat } from './parse.js';
import { type FeedDefinition, snapshotFiles } from './registry.js';

export interface FeedState {
  /** The last good data: its version, when it was fetched, its entries, its files (absolute), its source. */
  version: string | null;
  fetched_at: string | null;
  entries: number;
  files: string[];
  source: string | null;
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
  version: string;
  fetchedAt: number;
  /** An upstream list of the hosting/VPN ASN list (FeedDefinition.list). */
  list?: HostingListSource;
}

export const EMPTY_STATE: FeedState = {
  version: null, fetched_at: null, entries: 0, files: [], source: null, validators: {},
  last_attempt_at: null, last_outcome: null, last_error: null, next_due_at: null,
};

const key = (name: string) => `feed:${name}`;

export function feedDir(dataDir: string): string {
  return path.join(dataDir, 'ipdb', 'feeds');
}

export function feedState(stores: Stores | null, name: string): FeedState {
  return { ...EMPTY_STATE, ...((stores?.meta.get(key(name)) as Partial<FeedState> | undefined) ?? {}) };
}

export async function saveFeedState(stores: Stores, name: string, state: FeedState): Promise<void> {
  await stores.meta.put(key(name), state);
}

/** Whether the feed's last good download is still on disk. */
export function hasGoodData(state: FeedState): boolean {
  return state.files.length > 0 && state.files.every((f) => existsSync(f));
}

/**
 * What the builder folds in for each feed: its last good download, else its
 * snapshot; a feed with neither is left out.
 */
export function feedFiles(feeds: readonly FeedDefinition[], stores: Stores | null): FeedFile[] {
  const out: FeedFile[] = [];
  for (const f of feeds) {
    const state = feedState(stores, f.name);
    if (hasGoodData(state)) {
      out.push({ name: f.name, label: f.label, format: f.format, files: state.files, version: state.version ?? 'unknown', fetchedAt: Date.parse(state.fetched_at ?? '') || 0, list: f.list });
    } else if (f.snapshot) {
      out.push({ name: f.name, label: f.label, format: f.snapshot.format, files: snapshotFiles(f), version: `snapshot ${f.snapshot.date}`, fetchedAt: Date.parse(f.snapshot.date), list: f.list });
    }
  }
  return out;
}
