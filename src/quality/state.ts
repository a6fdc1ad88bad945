// A server thread's classifier: rebuilt when the operator's blacklist changes
// (the change feed says so; the thread looks at it at least every
// BLACKLIST_POLL_MS, so every thread follows within a second) and replaced
// when a new database is swapped in.
import type { IpDatabase } from '../ipdb/database.js';
import type { BlacklistChanges } from '../store/blacklist-changes.js';
import type { FeedReader } from '../store/feed.js';
import { activeBlacklist } from './blacklist-store.js';
import { Classifier, type KeywordTables } from './classifier.js';
import { builtInLists } from './lists.js';

export const BLACKLIST_POLL_MS = 250;

export class QualityState {
  readonly #blacklist: BlacklistChanges;
  #classifier: Classifier | null = null;

  constructor(blacklist: BlacklistChanges, feed: FeedReader, database: IpDatabase | null, tables?: KeywordTables) {
    this.#blacklist = blacklist;
    feed.on(['blacklist'], () => this.#classifier?.setBlacklist(activeBlacklist(this.#blacklist, this.#classifier.listed)));
    if (database) this.setDatabase(database, tables);
  }

  /** The classifier serving now; null when no database could be opened. */
  get classifier(): Classifier | null {
    return this.#classifier;
  }

  /** Serves a (new) database; `tables` are its keyword tables when another thread computed them. */
  setDatabase(database: IpDatabase, tables?: KeywordTables): void {
    this.#classifier = new Classifier(database, builtInLists(), (listed) => activeBlacklist(this.#blacklist, listed), tables);
  }
}
