// The refresh's state in LMDB `meta`, readable by every thread without
// loading the refresh machinery (piscina, the fetchers): the last outcome,
// the next due time, the validators of accepted downloads, and the database
// generation that moves whenever a new database is installed.
import type { Stores } from '../store/db.js';
import type { FeedOutcome } from './feeds/update.js';

export interface SourceOutcome {
  source: string;
  outcome: 'updated' | 'unchanged' | 'failed';
  error: string | null;
  ms: number;
}

export interface RefreshRecord {
  trigger: string;
  started_at: string;
  finished_at: string;
  outcome: 'updated' | 'unchanged' | 'failed';
  source: string | null;
  version: string | null;
  nodes: SourceOutcome[];
  /** The feeds this refresh fetched, each with its outcome. */
  feeds: FeedOutcome[];
  error: string | null;
}

export const META_LAST = 'ipdb_last_refresh';
export const META_NEXT = 'ipdb_next_refresh';
export const META_VALIDATORS = 'ipdb_validators';
export const META_GENERATION = 'ipdb_generation';

export function lastRefresh(stores: Stores): RefreshRecord | null {
  return (stores.meta.get(META_LAST) as RefreshRecord | undefined) ?? null;
}

export function nextRefreshAt(stores: Stores): number | null {
  return (stores.meta.get(META_NEXT) as number | undefined) ?? null;
}

export function databaseGeneration(stores: Stores): number {
  return (stores.meta.get(META_GENERATION) as number | undefined) ?? 0;
}

