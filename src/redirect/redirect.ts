// The redirect decision (contract §5, §6a), kept free of uWebSockets.js:
// redirect/endpoint.ts reads the request and writes the response around it. Per visit: one
// Map lookup for the route, one trie walk and one table read for the
// classification, one table slot for a user agent seen before, a hash for
// the split, counter increments for the stats; for a real visitor a keyed
// hash of the visitor id (SipHash, a few hundred ns) that feeds the variant's
// unique-visitor sketch and, when the route asks, the click id. No storage
// access and no await; the only allocation is the Location string when the
// link carries a query or a click id (without either, the variant's page goes
// out as bytes encoded once; a new visitor's cookie is written into bytes kept
// for it).
import type { Cidr } from '../config.js';
import { dayOf } from '../days.js';
import { ClientAddressReader } from '../http/client-ip.js';
import { Metric, type Metrics } from '../metrics.js';
import { type Classifier, RULE_ASN_BLACKLIST, RULE_CARRIER_WHITELIST, RULE_ORG_KEYWORD, RULE_RANGE_FEED, RULE_VPN_PROXY } from '../quality/classifier.js';
import { UserAgentCache } from '../quality/user-agent.js';
import { CLICK_ID_PARAM, type ClickIds, isClickIdParam } from '../experiments/click-id.js';
import { variantAt } from '../experiments/split.js';
import type { VisitRecorder } from '../experiments/visits.js';
import type { DayStats } from '../store/db.js';
import { CODE_LENGTH } from '../store/routes-store.js';
import type { ClickRecorder } from './clicks.js';
import type { CompiledRoute, RouteCache } from './route-cache.js';
import { cookieBucket, ID_LENGTH, lastIdStart, NewVisitors, VISITOR_ID_OFFSET } from './visitor.js';

/** The bytes kept for a Location with a click id: pages are at most 2,048 characters (6 KiB as UTF-8), the query what is left. */
const LOCATION_BYTES = 16_384;
const CLICK_ID_EQ = Buffer.from(`${CLICK_ID_PARAM}=`, 'latin1');

export const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Link not found</title></head>' +
  '<body><h1>Link not found</h1><p>This short link does not exist or has been removed.</p></body></html>';

function isCode(s: string): boolean {
  if (s.length !== CODE_LENGTH) return false;
  for (let i = 0; i < CODE_LENGTH; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return false;
  }
  return true;
}

/**
 * The link's query without any sg_cid parameter, for a route that appends
 * click ids: one in the short link's own query would reach the page ahead of
 * the visitor's (URLSearchParams.get takes the first), so a link published
 * with someone's click id would credit every visitor's conversion to that
 * one visitor and variant. Parameter names are compared decoded, as a page
 * reads them ("sg%5Fcid" is sg_cid too). A query with neither "sg_cid" nor a
 * "%" in it is returned as it is, without allocating.
 */
function withoutClickIds(query: string): string {
  if (!query.includes(CLICK_ID_PARAM) && !query.includes('%')) return query;
  const parts = query.split('&');
  const kept = parts.filter((part) => !isClickIdParam(part));
  // A query with a '%' and no click id (the usual UTM link) keeps its own string.
  return kept.length === parts.length ? query : kept.join('&');
}

export class Redirector {
  /**
   * Outputs of the last visit(), valid until the next one: the Location and,
   * for a new visitor, the Set-Cookie value (else null).
   */
  location: string | Buffer | ArrayBuffer = '';
  setCookie: ArrayBuffer | null = null;
  readonly #routes: RouteCache;
  readonly #quality: () => Classifier | null;
  readonly #clicks: ClickRecorder;
  readonly #metrics: Metrics;
  /** Reads the client address behind trusted proxies; null when none is trusted (the peer is the client). */
  readonly #client: ClientAddressReader | null;
  readonly #agents = new UserAgentCache();
  readonly #newVisitors = new NewVisitors();
  readonly #visits: VisitRecorder;
  readonly #clickIds: ClickIds;
  readonly #location = Buffer.allocUnsafe(LOCATION_BYTES);
  /** Views of #location by length (index), each made once. */
  readonly #views: Buffer[] = [];

  constructor(
    routes: RouteCache,
    quality: () => Classifier | null,
    clicks: ClickRecorder,
    metrics: Metrics,
    trustProxy: readonly Cidr[],
    visits: VisitRecorder,
    clickIds: ClickIds,
  ) {
    this.#visits = visits;
    this.#clickIds = clickIds;
    this.#routes = routes;
    this.#quality = quality;
    this.#clicks = clicks;
    this.#metrics = metrics;
    this.#client = trustProxy.length === 0 ? null : new ClientAddressReader(trustProxy);
  }

  /**
   * Decides one visit; returns 302 or 404. `peer` is the socket address as
   * uWS gives it (4 or 16 bytes). HEAD passes count = false: same answer,
   * no click. The user agent is judged only when the address passes: a
   * crawler from low, an empty one at high.
   */
  visit(code: string, peer: ArrayBuffer, forwardedFor: string, cookie: string, userAgent: string, query: string, count: boolean): number {
    const route = isCode(code) ? this.#routes.get(code) : null;
    if (route === null) return 404;
    const now = Date.now();
    const today = count ? this.#clicks.counters(route.id, now) : null;
    const intercepted = route.level !== 0 && this.#intercepts(route, peer, forwardedFor, userAgent, today);
    let variant: number;
    let withClickId = false;
    this.setCookie = null;
    if (intercepted) {
      variant = route.defaultVariant;
    } else {
      let b = cookieBucket(route.id, cookie);
      const ids = this.#clickIds;
      const hashed = today !== null || route.appendClickId;
      if (b < 0) {
        b = this.#newVisitors.next(route.id);
        this.setCookie = this.#newVisitors.cookieBytes;
        if (hashed) ids.visitorHashBytes(this.#newVisitors.cookie, VISITOR_ID_OFFSET, ID_LENGTH);
      } else if (hashed) {
        ids.visitorHashIn(cookie, lastIdStart(), ID_LENGTH);
      }
      variant = variantAt(route.layout, b);
      if (today !== null) {
        if (variant === 0) today.a++;
        else if (variant === 1) today.b++;
        this.#visits.record(route.id, dayOf(now), variant, ids.hi, ids.lo);
      }
      withClickId = route.appendClickId;
    }
    if (today !== null) {
      today.clicks++;
      this.#metrics.inc(Metric.redirects);
    }
    this.#locate(route, variant, route.appendClickId && query !== '' ? withoutClickIds(query) : query, withClickId, now);
    return 302;
  }

  /**
   * Whether the visitor is intercepted at the route's level (not off): by
   * its address (fail open when the check fails) or its user agent; counted
   * in `today`, the route's counters for the day, when the visit counts.
   */
  #intercepts(route: CompiledRoute, peer: ArrayBuffer, forwardedFor: string, userAgent: string, today: DayStats | null): boolean {
    let intercepted = false;
    try {
      const classifier = this.#quality();
      if (classifier === null) throw new Error('no IP database is loaded');
      const db = classifier.database;
      const bytes = new Uint8Array(peer);
      let record: number;
      if (this.#client === null) {
        record = db.lookupBytes(bytes);
      } else {
        const v4 = this.#client.resolve(bytes, forwardedFor);
        record = v4 >= 0 ? db.lookup4(v4) : db.lookupBytes(this.#client.bytes);
      }
      const rule = classifier.verdict(record, route.level);
      if (rule === RULE_ASN_BLACKLIST || rule === RULE_ORG_KEYWORD || rule === RULE_VPN_PROXY || rule === RULE_RANGE_FEED) {
        intercepted = true;
        if (today !== null) {
          today.intercepted++;
          if (rule === RULE_RANGE_FEED) today.range_feed++;
          else if (rule === RULE_ASN_BLACKLIST) today.asn_blacklist++;
          else if (rule === RULE_ORG_KEYWORD) today.org_keyword++;
          else today.vpn_proxy++;
          this.#metrics.inc(rule === RULE_RANGE_FEED ? Metric.interceptFeed : rule === RULE_ASN_BLACKLIST ? Metric.interceptAsn : rule === RULE_ORG_KEYWORD ? Metric.interceptKeyword : Metric.interceptVpn);
        }
      } else if (rule === RULE_CARRIER_WHITELIST && today !== null) {
        today.carrier_whitelist++;
      }
    } catch {
      // Fail open (contract §5.3): the visitor is treated as real.
      if (today !== null) today.check_failed++;
      this.#metrics.inc(Metric.checkFailed);
    }
    if (!intercepted && (userAgent === '' ? route.level === 3 : this.#agents.isCrawler(userAgent))) {
      intercepted = true;
      if (today !== null) {
        today.intercepted++;
        today.crawler++;
        this.#metrics.inc(Metric.interceptCrawler);
      }
    }
    return intercepted;
  }

  /** Sets `location` for the variant: its page with the link's query and, with `withClickId`, a click id. */
  #locate(route: CompiledRoute, variant: number, query: string, withClickId: boolean, now: number): void {
    if (withClickId && (query.length << 2) + route.prefixBytes[variant].length + route.fragmentBytes[variant].length + 64 <= LOCATION_BYTES) {
      // base ? [query &] sg_cid=<token> [#fragment], written into bytes kept
      // for it (uWS copies a header value out at once): the token is never a string.
      const loc = this.#location;
      const prefix = route.prefixBytes[variant];
      loc.set(prefix, 0);
      let n = prefix.length;
      if (query !== '') {
        n += loc.write(query, n, 'utf8');
        loc[n++] = 38; // &
      }
      loc.set(CLICK_ID_EQ, n);
      n = this.#clickIds.issueInto(loc, n + CLICK_ID_EQ.length, route.id, variant, this.#clickIds.hi, this.#clickIds.lo, Math.floor(now / 1000));
      const fragment = route.fragmentBytes[variant];
      if (fragment.length > 0) {
        loc.set(fragment, n);
        n += fragment.length;
      }
      // One view per length, made once: the Location of a link without a query always has the same length.
      let view = this.#views[n];
      if (view === undefined) view = this.#views[n] = loc.subarray(0, n);
      this.location = view;
    } else if (withClickId) {
      // A query too long for the kept bytes: as a string (allocates).
      const token = this.#clickIds.issue(route.id, variant, this.#clickIds.hi, this.#clickIds.lo, Math.floor(now / 1000));
      const q = query === '' ? '' : `${query}&`;
      this.location = `${route.bases[variant]}${route.hasQuery[variant] ? '&' : '?'}${q}${CLICK_ID_PARAM}=${token}${route.fragments[variant]}`;
    } else if (query === '') {
      this.location = route.pages[variant];
    } else {
      this.location = `${route.bases[variant]}${route.hasQuery[variant] ? '&' : '?'}${query}${route.fragments[variant]}`;
    }
  }
}
