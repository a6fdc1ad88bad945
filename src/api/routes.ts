// /v1/routes (contract §4): create, list, detail with statistics, partial
// update, delete. Every change reaches the redirect's route caches on all
// threads (the change feed) before the response goes out.
import { AppError, invalidParameter } from '../errors.js';
import type { Router } from '../http/router.js';
import { LEVELS, parseLevel } from '../quality/lists.js';
import type { Route, RouteSettings } from '../store/routes-store.js';
import { DAY_MS } from '../store/stats-store.js';
import type { Storage } from '../store/storage.js';
import { objectBody, pageParams, queryParams, stringField } from './validate.js';

const WRITABLE = ['name', 'page_a', 'page_b', 'split_ratio', 'default_group', 'intercept_level'] as const;
const READ_ONLY = ['id', 'code', 'short_url', 'status', 'created_at', 'updated_at', 'stats'] as const;
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
  if (url.username || url.password) throw invalidParameter(field, 'must not contain credentials');
  if (!url.hostname) throw invalidParameter(field, 'must name a host');
  if (url.href.length > URL_LIMIT) throw invalidParameter(field, `must be at most ${URL_LIMIT} characters`);
  return url.href;
}

function settings(body: Record<string, unknown>, partial: boolean): Partial<RouteSettings> {
  const out: Partial<RouteSettings> = {};
  const has = (k: string) => body[k] !== undefined;
  if (!partial) for (const k of ['name', 'page_a', 'page_b']) if (!has(k)) throw invalidParameter(k, 'is required');
  if (has('name')) out.name = stringField(body.name, 'name', 1, 200);
  if (has('page_a')) out.pageA = pageUrl(body.page_a, 'page_a');
  if (has('page_b')) out.pageB = pageUrl(body.page_b, 'page_b');
  if (has('split_ratio')) {
    const r = body.split_ratio;
    if (typeof r !== 'number' || !Number.isFinite(r) || r < 0 || r > 1) throw invalidParameter('split_ratio', 'must be a number from 0 to 1');
    out.splitRatio = r;
  }
  if (has('default_group')) {
    if (body.default_group !== 'a' && body.default_group !== 'b') throw invalidParameter('default_group', 'must be "a" or "b"');
    out.defaultGroup = body.default_group;
  }
  if (has('intercept_level')) {
    const l = parseLevel(body.intercept_level);
    if (!l) throw invalidParameter('intercept_level', `must be one of ${LEVELS.join(', ')}`);
    out.interceptLevel = l;
  }
  return out;
}

function routeId(value: string): number {
  if (!/^[1-9][0-9]{0,14}$/.test(value)) throw invalidParameter('id', 'must be a positive integer');
  return Number(value);
}

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

export function registerRouteEndpoints(router: Router, storage: Pick<Storage, 'routes' | 'stats'>, shortBase: string): void {
  const { routes, stats } = storage;
  const view = (r: Route) => ({
    id: r.id,
    name: r.name,
    page_a: r.pageA,
    page_b: r.pageB,
    split_ratio: r.splitRatio,
    default_group: r.defaultGroup,
    intercept_level: r.interceptLevel,
    code: r.code,
    short_url: `${shortBase}/r/${r.code}`,
    status: r.status,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  });
  const notFound = (id: number) => new AppError('not_found', `route ${id} does not exist`, 'id');

  router.add('POST', '/v1/routes', async (req) => {
    const body = objectBody(req.body, WRITABLE, READ_ONLY);
    const s = settings(body, false) as RouteSettings;
    const route = await routes.create(req.account, {
      name: s.name, pageA: s.pageA, pageB: s.pageB,
      splitRatio: s.splitRatio ?? 0.5, defaultGroup: s.defaultGroup ?? 'a', interceptLevel: s.interceptLevel ?? 'medium',
    });
    return { status: 201, body: view(route), headers: { Location: `/v1/routes/${route.id}` } };
  });

  router.add('GET', '/v1/routes', (req) => {
    const { page, limit } = pageParams(queryParams(req.query, ['page', 'limit']));
    const { data, total } = routes.list(req.account.id, page, limit);
    return { status: 200, body: { data: data.map(view), pagination: { page, limit, total, pages: Math.ceil(total / limit) } } };
  });

  router.add('GET', '/v1/routes/:id', async (req) => {
    const id = routeId(req.params.id);
    const route = routes.get(req.account.id, id);
    if (!route) throw notFound(id);
    const today = Math.floor(Date.now() / DAY_MS);
    const days = await stats.window(id, today);
    const sum = (f: keyof (typeof days)[0]['stats']) => days.reduce((a, d) => a + d.stats[f], 0);
    return {
      status: 200,
      body: {
        ...view(route),
        stats: {
          window: { days: days.length, from: isoDay(days[0].day), to: isoDay(today) },
          clicks: { total: sum('clicks'), daily: days.map((d) => ({ date: isoDay(d.day), clicks: d.stats.clicks })) },
          groups: { a: sum('a'), b: sum('b') },
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
        },
      },
    };
  });

  router.add('PUT', '/v1/routes/:id', async (req) => {
    const id = routeId(req.params.id);
    const body = objectBody(req.body, WRITABLE, READ_ONLY);
    if (Object.keys(body).length === 0) throw new AppError('invalid_parameter', 'the body must change at least one field', 'body');
    const updated = await routes.update(req.account.id, id, settings(body, true));
    if (!updated) throw notFound(id);
    return { status: 200, body: view(updated) };
  });

  router.add('DELETE', '/v1/routes/:id', async (req) => {
    const id = routeId(req.params.id);
    if (!(await routes.delete(req.account.id, id))) throw notFound(id);
    return { status: 204 };
  });
}
