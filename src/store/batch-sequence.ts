// The numbers of one writer's batches to PostgreSQL, which keeps the newest
// number it took from each writer (click_flushes) and takes a batch only
// when its number is newer, in the same transaction as what the batch adds:
// a batch whose commit was not acknowledged (the connection broke) is sent
// again under its number and counted once. Numbers are wall-clock
// microseconds, each at least one above the last, so they grow across
// restarts too. A clock stepped back (NTP, a restored VM) would number a
// restarted writer's batches below what PostgreSQL took from it before, and
// each would be acknowledged and counted nowhere; so before a run's first
// batch, a writer reads its last number taken and moves above it (above()).
export class BatchSequence {
  #last = 0;

  /** The last number given (or moved above). */
  get last(): number {
    return this.#last;
  }

  next(): number {
    this.#last = Math.max(this.#last + 1, Date.now() * 1000);
    return this.#last;
  }

  /** Every later number above `taken`: the writer's last number PostgreSQL took. */
  above(taken: number): void {
    this.#last = Math.max(this.#last, taken);
  }
}
