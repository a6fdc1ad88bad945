// Each thread keeps the routes it has served in memory, compiled for the
// redirect (no storage read per visit). Every route change, made on any
// thread or (in cluster mode) on another node, reaches the change feed with
// its code; the cache drops that code on its next lookup, so a
// deletion or update is in force on every thread from the moment the change
// is acknowledged.
import { constantBytes } from '../http/respond.js';
import type { FeedReader } from '../store/feed.js';
import { layoutOf, type Route, type Routes, VARIANT_KEYS, variantsOf } from '../store/routes-store.js';
import { LEVEL_INDEX } from '../quality/lists.js';

export interface CompiledRoute {
  id: number;
  /** 0 off .. 3 high. */
  level: number;
  /** The bucket layout (experiments/split.ts): [end, variant, ...], the last end 1. */
  layout: Float64Array;
  /** The variant intercepted visitors are sent to (the default group). */
  defaultVariant: number;
  /** Whether a real visitor's Location carries sg_cid (experiments/click-id.ts). */
  appendClickId: boolean;
  /**
   * Per variant (index 0 = a): the page URL without its fragment, the
   * fragment ('' or '#...'), whether the URL already has a query, and the
   * page as UTF-8 bytes, as uWS would encode the string, in an ArrayBuffer
   * of their own (a Location without a query or click id goes out from these
   * bytes, encoded once; see constantBytes in http/respond.ts).
   */
  bases: string[];
  fragments: string[];
  hasQuery: boolean[];
  pages: ArrayBuffer[];
  /** Per variant, for a Location with a click id: the base and its query separator ('?' or '&') as bytes, and the fragment as bytes. */
  prefixBytes: Buffer[];
  fragmentBytes: Buffer[];
}

function split(url: string): [string, string, boolean] {
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  return [base, hash < 0 ? '' : url.slice(hash), base.includes('?')];
}

function compileRoute(r: Route): CompiledRoute {
  const variants = variantsOf(r);
  const parts = variants.map((v) => split(v.url));
  return {
    id: r.id,
    level: LEVEL_INDEX[r.interceptLevel],
    layout: Float64Array.from(layoutOf(r)),
    defaultVariant: Math.max(0, VARIANT_KEYS.indexOf(r.defaultGroup)),
    appendClickId: r.appendClickId === true,
    bases: parts.map((p) => p[0]),
    fragments: parts.map((p) => p[1]),
    hasQuery: parts.map((p) => p[2]),
    pages: variants.map((v) => constantBytes(v.url, 'utf8')),
    prefixBytes: parts.map((p) => Buffer.from(`${p[0]}${p[2] ? '&' : '?'}`, 'utf8')),
    fragmentBytes: parts.map((p) => Buffer.from(p[1], 'utf8')),
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
