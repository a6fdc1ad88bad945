// Each thread keeps the routes it has served in memory, compiled for the
// redirect (no storage read per visit). Every route change, made on any
// thread or (in cluster mode) on another node, reaches the change feed with
// its code; the cache drops that code on its next lookup, so a
// deletion or update is in force on every thread from the moment the change
// is acknowledged.
import type { FeedReader } from '../store/feed.js';
import { type Route, type Routes } from '../store/routes-store.js';
import { LEVEL_INDEX } from '../quality/lists.js';

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
    id: r.id, level: LEVEL_INDEX[r.interceptLevel], splitRatio: r.splitRatio ?? 0.5, defaultA: r.defaultGroup === 'a',
    aBase, aFragment, aHasQuery, bBase, bFragment, bHasQuery, pageA: r.pageA, pageB: r.pageB,
    pageABytes: Buffer.from(r.pageA, 'utf8'), pageBBytes: Buffer.from(r.pageB, 'utf8'),
  };
}

export class RouteCache {
  static readonly MAX = 100_000;
  readonly #routes: Routes;
  readonly #feed: FeedReader;
  readonly #map = new Map<string, CompiledRoute | null>();

  constructor(routes: Routes, feed: FeedReader) {
    this.#routes = routes;
    this.#feed = feed;
    feed.on(['route'], (codes) => {
      if (codes === null) this.#map.clear();
      else for (const code of codes) this.#map.delete(code);
    });
  }

  /** The compiled route for a code, or null (unknown and deleted codes are remembered too). */
  get(code: string): CompiledRoute | null {
    this.#feed.check();
    let r = this.#map.get(code);
    if (r === undefined) {
      const route = this.#routes.byCode(code);
      r = route ? compileRoute(route) : null;
      if (this.#map.size >= RouteCache.MAX) this.#map.clear();
      this.#map.set(code, r);
    }
    return r;
  }
}
