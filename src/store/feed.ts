// The change feed: the one way every cache learns that stored records
// changed, whoever wrote them (a server thread, the CLI, or, in cluster mode,
// the replication of another node's write).
//
// Every write transaction appends one entry per record it changes, in the
// same LMDB transaction that changes it:
//
//   meta  feed_seq  the sequence of the last entry (0 before the first)
//   feed  seq → { kind, key }   the last FEED_RING entries; older ones are
//                               removed by the transaction that passes them
//
// so a committed change and its entry are visible together or not at all.
// After the commit the writer moves the process's feed signal (one Int32 in
// a SharedArrayBuffer), and each thread's FeedReader, seeing it move, renews
// its LMDB read snapshot and hands the keys that changed to the caches that
// asked for their kind. A reader that fell more than FEED_RING entries
// behind (or finds the sequence moved back: a restored store) cannot know
// which keys changed, and tells its listeners "everything" (null).
import { log } from '../log.js';
import type { Stores } from './db.js';

/** What a feed entry names: a record kind and its key (id, hash, code, ASN, email or state name). */
export type ChangeKind = 'account' | 'key' | 'user' | 'session' | 'route' | 'blacklist' | 'state' | 'ipdb';

export interface Change {
  kind: ChangeKind;
  key: string;
}

const SEQ = 'feed_seq';
const FEED_RING = 4096;

function feedSeq(stores: Stores): number {
  return (stores.meta.get(SEQ) as number | undefined) ?? 0;
}

/** Appends an entry; call inside the write transaction that makes the change. */
export function recordChange(stores: Stores, kind: ChangeKind, key: string | number): void {
  const seq = feedSeq(stores) + 1;
  stores.feed.put(seq, { kind, key: String(key) });
  stores.meta.put(SEQ, seq);
  if (seq > FEED_RING) stores.feed.remove(seq - FEED_RING);
}

/**
 * "Anything may have changed": every entry goes and the sequence jumps past
 * the ring, so each reader finds a gap it cannot read across and tells its
 * listeners null. For a replica replaced by a snapshot (pg/replica.ts);
 * call inside that write transaction.
 */
export function resetFeed(stores: Stores): void {
  for (const key of stores.feed.getKeys()) stores.feed.remove(key);
  stores.meta.put(SEQ, feedSeq(stores) + FEED_RING + 1);
}

/** After a commit: moves the signal, so every thread of this process looks at the feed on its next read. */
export function announce(stores: Stores): void {
  if (stores.signal) Atomics.add(stores.signal, 0, 1);
}

/** Keys that changed, or null for "anything may have changed". */
export type FeedListener = (keys: ReadonlySet<string> | null) => void;

/** A thread's view of the feed: one per thread, shared by all its caches. */
export class FeedReader {
  readonly #stores: Stores;
  readonly #listeners: { kinds: readonly ChangeKind[]; fn: FeedListener }[] = [];
  #seq: number;
  #signal: number;
  #checkedAt = -1;

  constructor(stores: Stores) {
    this.#stores = stores;
    this.#seq = feedSeq(stores);
    this.#signal = stores.signal ? Atomics.load(stores.signal, 0) : 0;
  }

  /** Calls `fn` with the keys of `kinds` that changed, from the next change on. */
  on(kinds: readonly ChangeKind[], fn: FeedListener): void {
    this.#listeners.push({ kinds, fn });
  }

  /**
   * Changes committed in this process: one Atomics load when nothing moved.
   * Call before every read a cache answers (the redirect's route lookup).
   */
  check(): void {
    const signal = this.#stores.signal ? Atomics.load(this.#stores.signal, 0) : 0;
    if (signal === this.#signal) return;
    this.#signal = signal;
    // The change was committed before the signal moved, but this thread's
    // read snapshot may predate it (lmdb-js keeps one open until a timer
    // renews it, and a busy thread serves many requests first).
    this.#stores.root.resetReadTxn();
    this.#catchUp();
  }

  /**
   * check(), and at most once per millisecond the stored sequence: changes
   * committed by another process (the CLI), which moves no signal here.
   * lmdb-js renews a busy thread's snapshot on a 1 ms timer, so such a
   * change is seen within about 2 ms.
   */
  poll(nowMs: number): void {
    this.check();
    if (nowMs === this.#checkedAt) return;
    this.#checkedAt = nowMs;
    if (feedSeq(this.#stores) !== this.#seq) this.#catchUp();
  }

  #catchUp(): void {
    const to = feedSeq(this.#stores);
    if (to === this.#seq) return;
    const changed = new Map<ChangeKind, Set<string>>();
    let seen = 0;
    if (to > this.#seq && to - this.#seq <= FEED_RING) {
      for (const { value } of this.#stores.feed.getRange({ start: this.#seq + 1, end: to + 1 })) {
        seen++;
        let keys = changed.get(value.kind);
        if (!keys) changed.set(value.kind, (keys = new Set()));
        keys.add(value.key);
      }
    }
    const complete = seen === to - this.#seq;
    this.#seq = to;
    for (const { kinds, fn } of this.#listeners) {
      let keys: Set<string> | null = null;
      if (complete) {
        keys = new Set<string>();
        for (const kind of kinds) for (const key of changed.get(kind) ?? []) keys.add(key);
        if (keys.size === 0) continue;
      }
      // A listener's failure is its own: the reader (called from the
      // redirect's route lookup) and the other listeners go on.
      try {
        fn(keys);
      } catch (err) {
        log('error', 'feed_listener_failed', { kinds, error: err });
      }
    }
  }
}
