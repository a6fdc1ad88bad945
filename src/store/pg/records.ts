// Rows of the cluster's tables as the records the replica and the API use
// (store/db.ts, routes-store.ts): snake_case columns to camelCase fields,
// timestamptz to ISO strings. The change log carries these records, so a
// replica stores exactly what a single node would.
import type { Account, ApiKey, BlacklistChange, ConsoleSession, DayStats, User } from '../db.js';
import type { Route } from '../routes-store.js';

type Row = Record<string, unknown>;

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v));
const isoOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : iso(v));

export function accountOf(r: Row): Account {
  return {
    id: r.id as number, name: r.name as string, admin: r.admin as boolean, quota: r.quota as number,
    routesCreated: r.routes_created as number, routesActive: r.routes_active as number, createdAt: iso(r.created_at),
  };
}

export function keyOf(r: Row): ApiKey {
  return {
    id: r.id as string, accountId: r.account_id as number, name: r.name as string, hash: r.hash as string, prefix: r.prefix as string,
    createdAt: iso(r.created_at), lastUsedAt: isoOrNull(r.last_used_at), revokedAt: isoOrNull(r.revoked_at), admin: r.admin as boolean,
  };
}

export function userOf(r: Row): User {
  return { email: r.email as string, passwordHash: r.password_hash as string, admin: r.admin as boolean, accountId: r.account_id as number, createdAt: iso(r.created_at) };
}

export function sessionOf(r: Row): ConsoleSession {
  return { email: r.email as string, csrf: r.csrf as string, createdAt: r.created_at as number, lastSeenAt: r.last_seen_at as number };
}

export function routeOf(r: Row): Route {
  return {
    id: r.id as number, accountId: r.account_id as number, code: r.code as string, name: r.name as string,
    pageA: r.page_a as string, pageB: r.page_b as string, splitRatio: r.split_ratio as number,
    defaultGroup: r.default_group as Route['defaultGroup'], interceptLevel: r.intercept_level as Route['interceptLevel'],
    ...((r.experiment as RouteExperiment | null) ?? {}),
    status: 'active', createdAt: iso(r.created_at), updatedAt: iso(r.updated_at),
  };
}

/** The experiment fields of a route, kept in routes.experiment (jsonb). */
export type RouteExperiment = Pick<Route, 'variants' | 'layout' | 'appendClickId' | 'weightsChangedAt'>;

export function experimentOf(r: RouteExperiment): RouteExperiment {
  const out: RouteExperiment = { variants: r.variants, layout: r.layout, appendClickId: r.appendClickId };
  if (r.weightsChangedAt !== undefined) out.weightsChangedAt = r.weightsChangedAt;
  return out;
}

export function blacklistOf(r: Row): BlacklistChange {
  return {
    asn: r.asn as number, builtIn: r.built_in as boolean, disabled: r.disabled as boolean, provider: r.provider as string,
    category: r.category as string, level: r.level as BlacklistChange['level'], note: r.note as string, updatedAt: r.updated_at as string,
  };
}

/** The counters of route_days, in the column order of the table. */
export const DAY_FIELDS = [
  'clicks', 'a', 'b', 'intercepted', 'asn_blacklist', 'org_keyword', 'vpn_proxy', 'carrier_whitelist', 'check_failed', 'range_feed', 'crawler',
] as const satisfies readonly (keyof DayStats)[];

export function dayOf(r: Row): DayStats {
  const out = {} as DayStats;
  for (const f of DAY_FIELDS) out[f] = r[f] as number;
  return out;
}
