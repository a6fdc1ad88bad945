// A cluster node's last figures of each route's detail (its `stats` and
// `experiment`), shared by the node's server threads, so that while
// PostgreSQL is unreachable a route's detail is still answered (contract §9:
// reads answer from the node's replica): the route as the replica holds it,
// and the figures as they were when last read, with `stats_as_of` saying
// when. The figures live in PostgreSQL only (the replica holds no counters),
// so a route whose detail no thread of this node has read since it started
// is still 503 storage_unavailable.
//
// Each thread keeps the figures it computes and posts them on a
// BroadcastChannel, which delivers them to every other thread of the
// process (never back to the sender); so whichever thread a client's
// connection lands on has them, a few milliseconds after they were read.
// Bounded per thread: at most MAX routes and MAX_CHARS characters of their
// JSON (a route of 8 variants and 21 goals is about 100,000), least recently
// kept first out.
import { BroadcastChannel } from 'node:worker_threads';

export interface RouteFiguresEntry {
  stats: unknown;
  experiment: unknown;
  /** When they were read from PostgreSQL (ISO 8601). */
  at: string;
}

const CHANNEL = 'splitguard:route-figures';

interface Kept {
  figures: RouteFiguresEntry;
  /** Characters of its JSON: what the bound counts. */
  chars: number;
}

export class RouteFigures {
  static readonly MAX = 500;
  static readonly MAX_CHARS = 8_000_000;
  readonly #byRoute = new Map<number, Kept>();
  #chars = 0;
  readonly #channel = new BroadcastChannel(CHANNEL);

  constructor() {
    this.#channel.onmessage = (event) => {
      const { routeId, kept } = (event as { data: { routeId: number; kept: Kept } }).data;
      this.#keep(routeId, kept);
    };
    // The channel must not keep a thread alive at its stop.
    this.#channel.unref();
  }

  /** Keeps a route's figures just read, here and on the node's other threads. */
  remember(routeId: number, figures: RouteFiguresEntry): void {
    const kept = { figures, chars: JSON.stringify(figures).length };
    this.#keep(routeId, kept);
    this.#channel.postMessage({ routeId, kept });
  }

  recall(routeId: number): RouteFiguresEntry | undefined {
    return this.#byRoute.get(routeId)?.figures;
  }

  #keep(routeId: number, kept: Kept): void {
    const held = this.#byRoute.get(routeId);
    // Older figures arriving late (a slower thread's read) never replace newer ones.
    if (held && held.figures.at > kept.figures.at) return;
    if (held) {
      this.#byRoute.delete(routeId);
      this.#chars -= held.chars;
    }
    this.#byRoute.set(routeId, kept);
    this.#chars += kept.chars;
    for (const [oldest, entry] of this.#byRoute) {
      if (this.#byRoute.size <= RouteFigures.MAX && this.#chars <= RouteFigures.MAX_CHARS) break;
      this.#byRoute.delete(oldest);
      this.#chars -= entry.chars;
    }
  }
}
