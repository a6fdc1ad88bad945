// Each thread keeps the routes it has served in memory, compiled for the
// redirect (no storage read per visit). Every route change made through this
// process bumps a counter in a SharedArrayBuffer before its API response is
// sent; a thread that sees the counter move drops its cache, so a deletion or
// update is in force on every thread from the moment the API answers.
// Routes change only through the API and the console, both in this process.
import { type Route, routeByCode } from '../store/routes-store.js';
import { LEVEL_INDEX } from '../quality/lists.js';
import type { Stores } from '../store/db.js';

export interface CompiledRoute {
  id: number;
  /** 0 off .. 3 high. */
  level: number;
  splitRatio: number;
  defaultA: boolean;
  /** Page URL without its fragment, the fragment ('' or '#...'), and whether the URL already has a query. */
  aBase: string;
  aFragment: string;
  aHasQuery: boolean;
  bBase: string;
  bFragment: string;
  bHasQuery: boolean;
  pageA: string;
  pageB: string;
  /** The pages as UTF-8, as uWS would encode the strings: a Location without a query goes out from here. */
  pageABytes: Buffer;
  pageBBytes: Buffer;
}

function split(url: string): [string, string, boolean] {
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  return [base, hash < 0 ? '' : url.slice(hash), base.includes('?')];
}

export function compileRoute(r: Route): CompiledRoute {
  const [aBase, aFragment, aHasQuery] = split(r.pageA);
  const [bBase, bFragment, bHasQuery] = split(r.pageB);
  return {
    id: r.id, level: LEVEL_INDEX[r.interceptLevel], splitRatio: r.splitRatio, defaultA: r.defaultGroup === 'a',
    aBase, aFragment, aHasQuery, bBase, bFragment, bHasQuery, pageA: r.pageA, pageB: r.pageB,
    pageABytes: Buffer.from(r.pageA, 'utf8'), pageBBytes: Buffer.from(r.pageB, 'utf8'),
  };
}

export class RouteCache {
  static readonly MAX = 100_000;
  readonly #stores: Stores;
  readonly #generation: Int32Array;
  readonly #map = new Map<string, CompiledRoute | null>();
  #seen = -1;

  static allocate(): SharedArrayBuffer {
    return new SharedArrayBuffer(4);
  }

  constructor(stores: Stores, generation: SharedArrayBuffer) {
    this.#stores = stores;
    this.#generation = new Int32Array(generation);
  }

  /** Call after committing a route change, before answering. */
  invalidate(): void {
    Atomics.add(this.#generation, 0, 1);
  }

  /** The compiled route for a code, or null (unknown and deleted codes are remembered too). */
  get(code: string): CompiledRoute | null {
    const g = Atomics.load(this.#generation, 0);
    if (g !== this.#seen) {
      // The change was committed before the counter moved, but this thread's
      // LMDB read transaction can still be a snapshot from before the commit
      // (lmdb-js keeps one open until a timer resets it, and a busy thread
      // serves many requests first): without a fresh one, a deleted route
      // would be read back and cached for the new generation.
      this.#stores.root.resetReadTxn();
      this.#map.clear();
      this.#seen = g;
    }
    let r = this.#map.get(code);
    if (r === undefined) {
      const route = routeByCode(this.#stores, code);
      r = route ? compileRoute(route) : null;
      if (this.#map.size >= RouteCache.MAX) this.#map.clear();
      this.#map.set(code, r);
    }
    return r;
  }
}
