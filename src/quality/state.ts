// A server thread's classifier: rebuilt when the operator's blacklist changes
// (polled every BLACKLIST_POLL_MS, so every thread follows within a second)
// and replaced when a new database is swapped in.
import type { IpDatabase } from '../ipdb/database.js';
import type { Stores } from '../store/db.js';
import { activeBlacklist, blacklistGeneration } from './blacklist-store.js';
import { Classifier, type KeywordTables } from './classifier.js';
import { builtInLists } from './lists.js';

export const BLACKLIST_POLL_MS = 250;

export class QualityState {
  readonly #stores: Stores;
  #classifier: Classifier | null = null;
  #generation = -1;

  constructor(stores: Stores, database: IpDatabase | null, tables?: KeywordTables) {
    this.#stores = stores;
    if (database) this.setDatabase(database, tables);
  }

  /** The classifier serving now; null when no database could be opened. */
  get classifier(): Classifier | null {
    return this.#classifier;
  }

  /** Serves a (new) database; `tables` are its keyword tables when another thread computed them. */
  setDatabase(database: IpDatabase, tables?: KeywordTables): void {
    this.#generation = blacklistGeneration(this.#stores);
    this.#classifier = new Classifier(database, builtInLists(), (listed) => activeBlacklist(this.#stores, listed), tables);
  }

  /** Rebuilds the blacklist tables if the stored blacklist changed; true when it did. */
  refresh(): boolean {
    const generation = blacklistGeneration(this.#stores);
    if (generation === this.#generation || !this.#classifier) return false;
    this.#generation = generation;
    this.#classifier.setBlacklist(activeBlacklist(this.#stores, this.#classifier.listed));
    return true;
  }
}
