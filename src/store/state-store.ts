// Named state of the database refresh and the feeds (ipdb/refresh-state.ts,
// ipdb/feeds/state.ts name and shape it): read from the local store, written
// through the back end, which also holds the per-account refresh allowance
// and announces installed databases.
import type { Backend } from './backend.js';
import type { Stores } from './db.js';

export class StateStore {
  readonly #stores: Stores;
  readonly #backend: Backend;

  constructor(stores: Stores, backend: Backend) {
    this.#stores = stores;
    this.#backend = backend;
  }

  get<T>(name: string): T | undefined {
    return this.#stores.meta.get(name) as T | undefined;
  }

  put(name: string, value: unknown): Promise<void> {
    return this.#backend.putState({ [name]: value });
  }

  /** Replaces the entry with what `change` makes of it, in one transaction (Backend.updateState); whether it wrote. */
  update<T>(name: string, change: (current: T | undefined) => T | null | undefined): Promise<boolean> {
    return this.#backend.updateState(name, change as (current: unknown) => unknown);
  }

  /** Takes the account's refresh allowance if its last trigger is `intervalMs` old: 0 when taken, else the holding trigger's time (ms). */
  claimRefreshTrigger(accountId: number, now: number, intervalMs: number): Promise<number> {
    return this.#backend.claimRefreshTrigger(accountId, now, intervalMs);
  }

  /** current.trie was replaced by `file`'s contents: every server on this store swaps to it; `state` goes with it. */
  databaseInstalled(file: string, state?: Readonly<Record<string, unknown>>): Promise<void> {
    return this.#backend.databaseInstalled(file, state);
  }
}
