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
// Bounded: at most MAX routes a thread, least recently kept first out.
import { BroadcastChannel } from 'node:worker_threads';

export interface RouteFiguresEntry {
  stats: unknown;
  experiment: unknown;
  /** When they were read from PostgreSQL (ISO 8601). */
  at: string;
}

const CHANNEL = 'splitguard:route-figures';

export class RouteFigures {
  static readonly MAX = 500;
  readonly #byRoute = new Map<number, RouteFiguresEntry>();
  readonly #channel = new BroadcastChannel(CHANNEL);

  constructor() {
    this.#channel.onmessage = (event) => {
      const { routeId, figures } = (event as { data: { routeId: number; figures: RouteFiguresEntry } }).data;
      this.#keep(routeId, figures);
    };
    // The channel must not keep a thread alive at its stop.
    this.#channel.unref();
  }

  /** Keeps a route's figures just read, here and on the node's other threads. */
  remember(routeId: number, figures: RouteFiguresEntry): void {
    this.#keep(routeId, figures);
    this.#channel.postMessage({ routeId, figures });
  }

  recall(routeId: number): RouteFiguresEntry | undefined {
    return this.#byRoute.get(routeId);
  }

  #keep(routeId: number, figures: RouteFiguresEntry): void {
    // Older figures arriving late (a slower thread's read) never replace newer ones.
    const held = this.#byRoute.get(routeId);
    if (held && held.at > figures.at) return;
    this.#byRoute.delete(routeId);
    this.#byRoute.set(routeId, figures);
    if (this.#byRoute.size > RouteFigures.MAX) this.#byRoute.delete(this.#byRoute.keys().next().value!);
  }
}
