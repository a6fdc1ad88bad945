// The refresh's state (store/state-store.ts), readable by every thread
// without loading the refresh machinery (piscina, the fetchers): the last
// outcome, the next due time, the validators of accepted downloads, and the
// database generation that moves whenever a new database is installed.
import type { StateStore } from '../store/state-store.js';
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
  /**
   * Every ASN data source tried, in order. `nodes` is the contract's name
   * (GET /v1/ip/database `last_refresh.nodes`), and the stored record's.
   */
  nodes: SourceOutcome[];
  /** The feeds this refresh fetched, each with its outcome. */
  feeds: FeedOutcome[];
  error: string | null;
}

export const META_LAST = 'ipdb_last_refresh';
export const META_NEXT = 'ipdb_next_refresh';
export const META_VALIDATORS = 'ipdb_validators';
export const META_GENERATION = 'ipdb_generation';

export function lastRefresh(state: StateStore): RefreshRecord | null {
  return state.get<RefreshRecord>(META_LAST) ?? null;
}

export function nextRefreshAt(state: StateStore): number | null {
  return state.get<number>(META_NEXT) ?? null;
}

/** Moves with every installed database (the key of its 'ipdb' feed entry). */
export function databaseGeneration(state: StateStore): number {
  return state.get<number>(META_GENERATION) ?? 0;
}

