// Which database the server threads serve, and the moves from one to the
// next. The threads map a sealed serving copy (ipdb/serving.ts), never
// current.trie itself; a copy is released once every thread has answered the
// swap to its successor, mapped or not, so no thread opens it again.
import path from 'node:path';
import { IpDatabase } from '../ipdb/database.js';
import { databaseGeneration } from '../ipdb/refresh.js';
import { publish, release, removeServingFiles, type ServingCopy } from '../ipdb/serving.js';
import { log } from '../log.js';
import type { KeywordTables } from '../quality/classifier.js';
import { keywordTablesFor } from '../quality/keyword-cache.js';
import { builtInLists } from '../quality/lists.js';
import type { Storage } from '../store/storage.js';
import type { ServerThreads } from './threads.js';

/** How often to look at the change feed for a database installed by another process (the CLI). */
const GENERATION_POLL_MS = 1000;

/**
 * The version of a database file (its ASN data's, as /healthz reports it)
 * and its keyword tables (cached on disk), shared with every thread; the
 * tables are computed unless given.
 */
function describe(file: string, dataDir: string, tables: KeywordTables | null): { version: string; tables: KeywordTables } {
  const db = IpDatabase.open(file);
  try {
    return { version: db.info.version, tables: tables ?? keywordTablesFor(db, builtInLists(), path.join(dataDir, 'ipdb')) };
  } finally {
    db.close();
  }
}

export class DatabaseSwapper {
  /** The copy the threads serve; null while current.trie is unusable (redirects fail open). */
  serving: ServingCopy | null = null;
  /** Keyword tables of `serving`. */
  tables: KeywordTables | null = null;
  /** The version of `serving` (a cluster node's heartbeat publishes it). */
  version: string | null = null;
  readonly #currentFile: string;
  readonly #dataDir: string;
  readonly #storage: Storage;
  #threads: ServerThreads | null = null;
  #generation: number;
  #queue: Promise<void> = Promise.resolve();
  #poll: NodeJS.Timeout | undefined;

  constructor(currentFile: string, dataDir: string, storage: Storage) {
    this.#currentFile = currentFile;
    this.#dataDir = dataDir;
    this.#storage = storage;
    this.#generation = databaseGeneration(storage.state);
  }

  /** The first serving copy, before the threads start. A damaged current.trie is logged, not thrown. */
  publishInitial(): void {
    try {
      this.serving = publish(this.#currentFile);
      ({ version: this.version, tables: this.tables } = describe(this.serving.path, this.#dataDir, null));
    } catch (err) {
      release(this.serving);
      this.serving = null;
      log('error', 'database_unavailable', { file: this.#currentFile, error: err });
    }
    // Copies left by an earlier process that did not stop cleanly.
    removeServingFiles(this.#dataDir);
  }

  /**
   * Swaps the threads to current.trie as it is now (after a refresh by this
   * process), and from then on to any database another process installs.
   */
  attach(threads: ServerThreads, isBusy: () => boolean): void {
    this.#threads = threads;
    // The main thread's feed reader is polled here for every listener (in
    // cluster mode also the published database's, store/pg/ipdb.ts, which
    // then installs the announced file and calls swapToCurrent).
    this.#poll = setInterval(() => {
      if (!isBusy()) this.#storage.feed.poll(Date.now());
    }, GENERATION_POLL_MS);
    this.#poll.unref();
    if (this.#storage.cluster) return;
    // An entry's key is the generation it installed; this process's own
    // refreshes have swapped already (swapToCurrent).
    this.#storage.feed.on(['ipdb'], (keys) => {
      if (keys !== null && Math.max(...[...keys].map(Number)) <= this.#generation) return;
      this.swapToCurrent(null).catch((err) => log('error', 'ipdb_swap_failed', { error: err }));
    });
  }

  /** Publishes current.trie and moves every thread to it; swaps run one at a time. */
  async swapToCurrent(tables: KeywordTables | null): Promise<void> {
    this.#generation = databaseGeneration(this.#storage.state);
    const copy = publish(this.#currentFile);
    let next: ReturnType<typeof describe>;
    try {
      next = describe(copy.path, this.#dataDir, tables);
    } catch (err) {
      release(copy);
      throw err;
    }
    this.#queue = this.#queue.then(async () => {
      const answers = (await this.#threads?.swap(copy.path, next.tables)) ?? [];
      const failed = answers.filter((a) => a.error);
      release(this.serving);
      this.serving = copy;
      this.tables = next.tables;
      this.version = next.version;
      log(failed.length ? 'error' : 'info', 'ipdb_swapped', { threads: answers.length, failed: failed.length });
    });
    return this.#queue;
  }

  stop(): void {
    clearInterval(this.#poll);
  }
}
