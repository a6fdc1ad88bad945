// /v1/routes (contract §4): create, list, detail with statistics, partial
// update, delete. Every change reaches the redirect's route caches on all
// threads (the change feed) before the response goes out.
import { dayOf, isoDay } from '../days.js';
import { AppError, clip, invalidParameter } from '../errors.js';
import type { EndpointTable } from '../http/endpoint-table.js';
import { LEVELS, parseLevel } from '../quality/lists.js';
import { type Route, type RouteChanges, type RoutePrecondition, VARIANT_KEYS, type VariantKey, variantsOf, type Variant } from '../store/routes-store.js';
import { MAX_ID_DIGITS, parseId } from '../store/db.js';
import type { Storage } from '../store/storage.js';
import { objectBody, pageParams, queryParams, stringField } from './validate.js';
import { CLICK_ID_PARAM, isClickIdParam } from '../experiments/click-id.js';
import { experimentReport } from '../experiments/report.js';
import { RouteFigures } from './route-figures.js';

const WRITABLE = ['name', 'page_a', 'page_b', 'split_ratio', 'default_group', 'intercept_level', 'variants', 'append_click_id'] as const;
const READ_ONLY = ['id', 'code', 'short_url', 'status', 'created_at', 'updated_at', 'stats', 'experiment'] as const;
/** A weight is any number from 0 to this (weights are relative). */
const MAX_WEIGHT = 1_000_000;
const URL_LIMIT = 2048;

/** An absolute http(s) URL without credentials or control characters, normalised. */
function pageUrl(value: unknown, field: string): string {
  if (typeof value !== 'string') throw invalidParameter(field, 'must be an absolute http or https URL');
  if (value.length > URL_LIMIT) throw invalidParameter(field, `must be at most ${URL_LIMIT} characters`);
  // The URL parser silently drops tabs and line breaks; refuse them (and any
  // control or space character) so nothing can be smuggled into a header.
  if (/[\u0000-\u0020\u007f]/.test(value)) throw invalidParameter(field, 'must not contain spaces or control characters');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidParameter(field, 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidParameter(field, 'must use http or https');
  // The WHATWG parser mends "https:e.com" and "https:\\e.com" into https://e.com/; the schema says ^https?://.
  if (!/^https?:\/\//i.test(value)) throw invalidParameter(field, 'must be an absolute http or https URL, starting with http:// or https://');
  if (url.username || url.password) throw invalidParameter(field, 'must not contain credentials');
  if (!url.hostname) throw invalidParameter(field, 'must name a host');
  // The redirect adds the visitor's own sg_cid after the page's query, and a
  // page reads the first: one fixed in the page would credit every visitor's
  // conversion to a single click.
  if (url.search.slice(1).split('&').some(isClickIdParam)) throw invalidParameter(field, `must not carry ${CLICK_ID_PARAM}: the redirect adds each visitor's own click id`);
  if (url.href.length > URL_LIMIT) throw invalidParameter(field, `must be at most ${URL_LIMIT} characters`);
  return url.href;
}

/**
 * An update's or a deletion's If-Match (RFC 9110 13.1.1): absent or "*",
 * no precondition (the route need only exist); else the updated_at values
 * of its strong entity tags, one of which the stored route must have. A
 * weak tag never matches (If-Match compares strongly), so a list of only
 * weak ones always fails. An empty header, and anything else, is a 400
 * naming it.
 */
function precondition(header: string | null): RoutePrecondition {
  if (header === null) return null;
  const h = header.trim();
  if (h === '') throw invalidParameter('If-Match', 'must not be empty: send * or a route\'s ETag');
  if (h === '*') return null;
  const tags: string[] = [];
  for (const part of h.split(',')) {
    const m = /^\s*(W\/)?"([\x21\x23-\x7e]*)"\s*$/.exec(part);
    if (!m) throw invalidParameter('If-Match', 'must be * or a list of entity tags such as "2026-11-27T18:00:00.000Z" (a route\'s ETag)');
    if (m[1] === undefined) tags.push(m[2]);
  }
  return tags;
}

/** A `variants` list: 2-8 entries {url, weight[, key]}, keys a … h in order, at least one weight above 0. */
function variantList(value: unknown): Variant[] {
  if (!Array.isArray(value) || value.length < 2 || value.length > VARIANT_KEYS.length) {
    throw invalidParameter('variants', `must be an array of 2 to ${VARIANT_KEYS.length} variants`);
  }
  const out = value.map((entry: unknown, i): Variant => {
    const at = `variants[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw invalidParameter(at, 'must be an object with url and weight');
    const e = entry as Record<string, unknown>;
    for (const k of Object.keys(e)) if (k !== 'url' && k !== 'weight' && k !== 'key') throw invalidParameter(`${at}.${k}`, 'is not a known field');
    if (e.key !== undefined && e.key !== VARIANT_KEYS[i]) throw invalidParameter(`${at}.key`, `must be "${VARIANT_KEYS[i]}" (keys follow the order of the list) or left out`);
    if (e.url === undefined) throw invalidParameter(`${at}.url`, 'is required');
    const w = e.weight;
    if (typeof w !== 'number' || !Number.isFinite(w) || w < 0 || w > MAX_WEIGHT) throw invalidParameter(`${at}.weight`, `must be a number from 0 to ${MAX_WEIGHT}`);
    return { url: pageUrl(e.url, `${at}.url`), weight: w };
  });
  if (!out.some((v) => v.weight > 0)) throw invalidParameter('variants', 'must give at least one variant a weight above 0');
  return out;
}

function settings(body: Record<string, unknown>, partial: boolean): RouteChanges {
  const out: RouteChanges = {};
  const has = (k: string) => body[k] !== undefined;
  if (has('variants') && (has('page_a') || has('page_b') || has('split_ratio'))) {
    throw invalidParameter('variants', 'replaces page_a, page_b and split_ratio; send one form or the other');
  }
  if (!partial) {
    if (!has('name')) throw invalidParameter('name', 'is required');
    if (!has('variants')) for (const k of ['page_a', 'page_b']) if (!has(k)) throw invalidParameter(k, 'is required');
  }
  if (has('name')) out.name = stringField(body.name, 'name', 1, 200);
  if (has('page_a')) out.pageA = pageUrl(body.page_a, 'page_a');
  if (has('page_b')) out.pageB = pageUrl(body.page_b, 'page_b');
  if (has('split_ratio')) {
    const r = body.split_ratio;
    if (typeof r !== 'number' || !Number.isFinite(r) || r < 0 || r > 1) throw invalidParameter('split_ratio', 'must be a number from 0 to 1');
    out.splitRatio = r;
  }
  if (has('variants')) out.variants = variantList(body.variants);
  if (has('default_group')) {
    const g = body.default_group;
    if (typeof g !== 'string' || !(VARIANT_KEYS as readonly string[]).includes(g)) throw invalidParameter('default_group', 'must be a variant key, "a" to "h"');
    out.defaultGroup = g as VariantKey;
  }
  if (has('intercept_level')) {
    const l = parseLevel(body.intercept_level);
    if (!l) throw invalidParameter('intercept_level', `must be one of ${LEVELS.join(', ')}`);
    out.interceptLevel = l;
  }
  if (has('append_click_id')) {
    if (typeof body.append_click_id !== 'boolean') throw invalidParameter('append_click_id', 'must be true or false');
    out.appendClickId = body.append_click_id;
  }
  return out;
}

/** The route id of a path; a longer integer than any id names no route (404, contract §4), anything else is 400. */
function routeId(value: string): number {
  const id = parseId(value);
  if (id === 0) {
    if (/^[1-9][0-9]*$/.test(value)) throw new AppError('not_found', `route ${clip(value, 40)} does not exist`, 'id');
    throw invalidParameter('id', `must be a positive integer of at most ${MAX_ID_DIGITS} digits`);
  }
  return id;
}


export function registerRouteEndpoints(table: EndpointTable, storage: Pick<Storage, 'routes' | 'stats' | 'experiments' | 'cluster'>, shortBase: string): void {
  const { routes, stats } = storage;
  /** Cluster mode: the figures last read, for answering a detail while PostgreSQL is away. */
  const figures = storage.cluster ? new RouteFigures() : null;
  const view = (r: Route) => ({
    id: r.id,
    name: r.name,
    page_a: r.pageA,
    page_b: r.pageB,
    split_ratio: r.splitRatio,
    variants: variantsOf(r).map((v, i) => ({ key: VARIANT_KEYS[i], url: v.url, weight: v.weight })),
    append_click_id: r.appendClickId ?? false,
    default_group: r.defaultGroup,
    intercept_level: r.interceptLevel,
    code: r.code,
    short_url: `${shortBase}/r/${r.code}`,
    status: r.status,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  });
  const notFound = (id: number) => new AppError('not_found', `route ${id} does not exist`, 'id');
  /**
   * Real visitors by the page they were sent to. The route's day counters
   * hold variants a and b; the others (c to h) are counted by the
   * experiment's visits over the same window, so that the groups and
   * `intercepted` add up to the clicks whatever the number of variants.
   */
  const groupsOf = (a: number, b: number, experiment: { variants: { key: string; clicks: number }[] }): Record<string, number> => {
    const groups: Record<string, number> = { a, b };
    for (const v of experiment.variants.slice(2)) groups[v.key] = v.clicks;
    return groups;
  };
  /** The route's ETag header: its updated_at, which names one version (routes-store.ts nextUpdatedAt). */
  const etag = (r: Route) => ({ ETag: `"${r.updatedAt}"` });

  table.add('POST', '/v1/routes', async (req) => {
    const body = objectBody(req.body, WRITABLE, READ_ONLY);
    const route = await routes.create(req.account, settings(body, false));
    return { status: 201, body: view(route), headers: { Location: `/v1/routes/${route.id}`, ...etag(route) } };
  });

  table.add('GET', '/v1/routes', (req) => {
    const { page, limit } = pageParams(queryParams(req.query, ['page', 'limit']));
    const { data, total } = routes.list(req.account.id, page, limit);
    return { status: 200, body: { data: data.map(view), pagination: { page, limit, total, pages: Math.ceil(total / limit) } } };
  });

  table.add('GET', '/v1/routes/:id', async (req) => {
    const id = routeId(req.params.id);
    const route = routes.get(req.account.id, id);
    if (!route) throw notFound(id);
    const now = Date.now();
    const today = dayOf(now);
    let days, experiment;
    try {
      [days, experiment] = await Promise.all([stats.window(id, today), experimentReport(storage.experiments, route, today)]);
    } catch (err) {
      const kept = err instanceof AppError && err.code === 'storage_unavailable' ? figures?.recall(id) : undefined;
      if (!kept) throw err;
      return { status: 200, headers: etag(route), body: { ...view(route), stats: kept.stats, experiment: kept.experiment, stats_as_of: kept.at } };
    }
    const sum = (f: keyof (typeof days)[0]['stats']) => days.reduce((a, d) => a + d.stats[f], 0);
    const routeStats = {
      window: { days: days.length, from: isoDay(days[0].day), to: isoDay(today) },
      clicks: { total: sum('clicks'), daily: days.map((d) => ({ date: isoDay(d.day), clicks: d.stats.clicks })) },
      groups: groupsOf(sum('a'), sum('b'), experiment),
      intercepted: sum('intercepted'),
      rule_hits: {
        asn_blacklist: sum('asn_blacklist'),
        org_keyword: sum('org_keyword'),
        vpn_proxy: sum('vpn_proxy'),
        carrier_whitelist: sum('carrier_whitelist'),
        check_failed: sum('check_failed'),
        range_feed: sum('range_feed'),
        crawler: sum('crawler'),
      },
    };
    figures?.remember(id, { stats: routeStats, experiment, at: new Date(now).toISOString() });
    return { status: 200, headers: etag(route), body: { ...view(route), stats: routeStats, experiment } };
  });

  table.add('PUT', '/v1/routes/:id', async (req) => {
    const id = routeId(req.params.id);
    const body = objectBody(req.body, WRITABLE, READ_ONLY);
    if (Object.keys(body).length === 0) throw new AppError('invalid_parameter', 'the body must change at least one field', 'body');
    const updated = await routes.update(req.account.id, id, settings(body, true), precondition(req.ifMatch));
    if (!updated) throw notFound(id);
    if (updated === 'changed') throw new AppError('precondition_failed', '', 'If-Match');
    return { status: 200, body: view(updated), headers: etag(updated) };
  });

  table.add('DELETE', '/v1/routes/:id', async (req) => {
    const id = routeId(req.params.id);
    const deleted = await routes.delete(req.account.id, id, precondition(req.ifMatch));
    if (!deleted) throw notFound(id);
    if (deleted === 'changed') throw new AppError('precondition_failed', '', 'If-Match');
    return { status: 204 };
  });
}
