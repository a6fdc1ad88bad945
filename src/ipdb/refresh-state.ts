// The refresh's state (store/state-store.ts), readable by every thread
// without loading the refresh machinery (the build process, the fetchers): the last
// outcome, the next due time, the validators of accepted downloads, and the
// database generation that moves whenever a new database is installed.
import { CLOCK_SKEW_MS } from '../clock.js';
import { publisherTextHidden } from '../errors.js';
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

/** A refresh's trigger when an account asked for it (POST /v1/ip/update, the console). */
export const apiTrigger = (accountId: number): string => `api (account ${accountId})`;
/** apiTrigger's text, and what follows it (in cluster mode ` via <node>`, the node that took it). */
const API_TRIGGER = /^api \(account ([0-9]+)\)(.*)$/s;

/**
 * `record` as a caller of `accountId` may read it: another account's trigger
 * is `api (another account)`, so that a tenant learns no other tenant's id,
 * and every error is without the publishers' text (publisherTextHidden: a
 * line a download held, a redirect's target); an admin reads the record as
 * it was stored.
 */
export function refreshSeenBy(record: RefreshRecord | null, accountId: number, admin: boolean): RefreshRecord | null {
  if (record === null || admin) return record;
  const asker = API_TRIGGER.exec(record.trigger);
  return {
    ...record,
    trigger: asker && Number(asker[1]) !== accountId ? `api (another account)${asker[2]}` : record.trigger,
    nodes: record.nodes.map((n) => ({ ...n, error: publisherTextHidden(n.error) })),
    // A record written before feeds existed has none.
    ...(record.feeds ? { feeds: record.feeds.map((f) => ({ ...f, error: publisherTextHidden(f.error) })) } : {}),
    error: publisherTextHidden(record.error),
  };
}

export function nextRefreshAt(state: StateStore): number | null {
  return state.get<number>(META_NEXT) ?? null;
}

/**
 * A stored due time as a schedule reads it: one further ahead than any due
 * time is ever set (`furthestMs`, the interval with its jitter, and the skew
 * another node's clock may have) was set while the clock ran ahead, and then
 * stepped back (NTP, a restored VM): it is due now, not once the clock has
 * caught up with it (a year's step would have held off the refresh for a year).
 */
export function dueAfterClockStep(due: number, now: number, furthestMs: number): number {
  return due - now > furthestMs + CLOCK_SKEW_MS ? now : due;
}

/** Moves with every installed database (the key of its 'ipdb' feed entry). */
export function databaseGeneration(state: StateStore): number {
  return state.get<number>(META_GENERATION) ?? 0;
}

