// What the server threads see of the node's link to the cluster (pg/node.ts
// writes it from the main thread): one SharedArrayBuffer viewed as Float64Array,
//
//   [ connected (1 or 0) | lag_ms | applied seq ]
//
// written only by ClusterNode (plain stores of aligned 8-byte values, which
// do not tear) and read here. Kept apart from pg/node.ts so that a server
// thread on a single node loads none of the cluster's code.

/** A replica this far behind the head is not ready. */
const READY_LAG_MS = 5000;

export const CONNECTED = 0;
export const LAG = 1;
export const APPLIED = 2;
const SLOTS = 3;

/** The threads' view of the node's link (read-only). */
export class ClusterStatus {
  readonly #slots: Float64Array;

  static allocate(): SharedArrayBuffer {
    return new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT * SLOTS);
  }

  constructor(buffer: SharedArrayBuffer) {
    this.#slots = new Float64Array(buffer);
  }

  get connected(): boolean {
    return this.#slots[CONNECTED] === 1;
  }

  get lagMs(): number {
    return this.#slots[LAG];
  }

  /** /readyz: connected to PostgreSQL and the replica caught up. */
  readiness(): { ready: boolean; lag_ms: number; database: 'connected' | 'unreachable'; reason?: string } {
    const lag = Math.round(this.lagMs);
    if (!this.connected) return { ready: false, lag_ms: lag, database: 'unreachable', reason: 'PostgreSQL is unreachable' };
    if (lag > READY_LAG_MS) return { ready: false, lag_ms: lag, database: 'connected', reason: 'the replica is catching up' };
    return { ready: true, lag_ms: lag, database: 'connected' };
  }
}
