// A bound on password hashing for the whole process. scrypt runs in libuv's
// thread pool (4 threads, shared by every server thread with LMDB's
// asynchronous commits and file I/O): a burst of sign-ins queued there would
// hold up every POST /v1/routes behind it. At most MAX_RUNNING hashes run at
// once, process-wide (one shared counter); each server thread keeps at most
// MAX_WAITING more in its own queue and refuses the rest at once. Each job
// has a rank (console/login.ts: how many attempts its address made in the
// window): the queue is in rank order, arrivals in order within a rank, and
// a full queue makes room for a job by refusing the last one of a higher
// rank. A flood of repeated attempts cannot keep the owner out.
import { AppError } from '../errors.js';

export const MAX_RUNNING = 2;
export const MAX_WAITING = 16;
/** How often a thread with waiters looks for a slot freed by another thread. */
const POLL_MS = 5;

function busy(): AppError {
  return new AppError('rate_limited', 'too many sign-ins are being checked at once; try again in a second', null, { headers: { 'Retry-After': '1' } });
}

interface Waiter {
  start: () => void;
  refuse: () => void;
  rank: number;
}

export class PasswordWork {
  /** [0]: hashes running now, in every thread together. */
  readonly #running: Int32Array;
  /** In rank order, then arrival order. */
  readonly #waiting: Waiter[] = [];
  #poll: NodeJS.Timeout | null = null;

  static allocate(): SharedArrayBuffer {
    return new SharedArrayBuffer(4);
  }

  constructor(buffer: SharedArrayBuffer) {
    this.#running = new Int32Array(buffer);
  }

  /** Runs `work` when a slot is free; rejects with rate_limited when this thread's queue is full (see the top). */
  async run<T>(work: () => Promise<T>, rank = 0): Promise<T> {
    if (this.#waiting.length > 0 || !this.#acquire()) {
      if (this.#waiting.length >= MAX_WAITING) {
        if (this.#waiting[this.#waiting.length - 1].rank <= rank) throw busy();
        this.#waiting.pop()!.refuse();
      }
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = { start: resolve, refuse: () => reject(busy()), rank };
        const at = this.#waiting.findIndex((w) => w.rank > rank);
        if (at < 0) this.#waiting.push(waiter);
        else this.#waiting.splice(at, 0, waiter);
        this.#poll ??= setInterval(() => this.#drain(), POLL_MS);
      });
    }
    try {
      return await work();
    } finally {
      Atomics.sub(this.#running, 0, 1);
      this.#drain();
    }
  }

  #acquire(): boolean {
    for (;;) {
      const now = Atomics.load(this.#running, 0);
      if (now >= MAX_RUNNING) return false;
      if (Atomics.compareExchange(this.#running, 0, now, now + 1) === now) return true;
    }
  }

  /** Hands free slots to this thread's waiters, in queue order. */
  #drain(): void {
    while (this.#waiting.length > 0 && this.#acquire()) this.#waiting.shift()!.start();
    if (this.#waiting.length === 0 && this.#poll !== null) {
      clearInterval(this.#poll);
      this.#poll = null;
    }
  }
}
