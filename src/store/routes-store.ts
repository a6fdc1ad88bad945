// Routes. Three databases:
//   routes          id → Route (deleted routes are removed)
//   route_codes     code → id, kept forever so that a code is never reused
//   account_routes  [accountId, id] → 1, the per-account index (newest first
//                   by reading it in reverse)
// Creation, update and deletion are single asynchronous LMDB transactions:
// concurrent requests share one commit (and one fsync) instead of each
// blocking the thread on its own.
import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.js';
import { authTransaction, putAccount } from './accounts-store.js';
import { type Account, nextId, type Stores } from './db.js';

export interface Route {
  id: number;
  accountId: number;
  code: string;
  name: string;
  pageA: string;
  pageB: string;
  splitRatio: number;
  defaultGroup: 'a' | 'b';
  interceptLevel: 'off' | 'low' | 'medium' | 'high';
  status: 'active';
  createdAt: string;
  updatedAt: string;
}

export type RouteSettings = Pick<Route, 'name' | 'pageA' | 'pageB' | 'splitRatio' | 'defaultGroup' | 'interceptLevel'>;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const CODE_LENGTH = 8;

/** 8 characters of [0-9A-Za-z], uniformly random (rejection sampling keeps the bias out). */
export function newCode(): string {
  let code = '';
  while (code.length < CODE_LENGTH) {
    for (const b of randomBytes(16)) {
      if (b < 248 && code.length < CODE_LENGTH) code += ALPHABET[b % 62];
    }
  }
  return code;
}

export function createRoute(stores: Stores, account: Account, settings: RouteSettings): Promise<Route> {
  return authTransaction(stores, () => {
    const current = stores.accounts.get(account.id)!;
    if (current.routesCreated >= current.quota) {
      throw new AppError('quota_exceeded', `${current.routesCreated} of ${current.quota} routes created`);
    }
    let code = newCode();
    while (stores.codes.get(code) !== undefined) code = newCode();
    const now = new Date().toISOString();
    const route: Route = { id: nextId(stores, 'route'), accountId: account.id, code, ...settings, status: 'active', createdAt: now, updatedAt: now };
    stores.routes.put(route.id, route);
    stores.codes.put(code, route.id);
    stores.accountRoutes.put([account.id, route.id], 1);
    putAccount(stores, { ...current, routesCreated: current.routesCreated + 1, routesActive: (current.routesActive ?? 0) + 1 });
    return route;
  });
}

/** The route if it exists and belongs to the account (another account's route is "not found"). */
export function getRoute(stores: Stores, accountId: number, id: number): Route | undefined {
  const route = stores.routes.get(id);
  return route && route.accountId === accountId ? route : undefined;
}

export function listRoutes(stores: Stores, accountId: number, page: number, limit: number): { data: Route[]; total: number } {
  const range = { start: [accountId, Number.MAX_SAFE_INTEGER], end: [accountId, 0], reverse: true };
  // The account record keeps the count: counting the index costs O(routes).
  const total = stores.accounts.get(accountId)?.routesActive ?? 0;
  const data: Route[] = [];
  for (const { key } of stores.accountRoutes.getRange({ ...range, offset: (page - 1) * limit, limit })) {
    const route = stores.routes.get((key as [number, number])[1]);
    if (route) data.push(route);
  }
  return { data, total };
}

export function updateRoute(stores: Stores, accountId: number, id: number, changes: Partial<RouteSettings>): Promise<Route | undefined> {
  return stores.root.transaction(() => {
    const route = getRoute(stores, accountId, id);
    if (!route) return undefined;
    const updated: Route = { ...route, ...changes, updatedAt: new Date().toISOString() };
    stores.routes.put(id, updated);
    return updated;
  });
}

/** Deletes a route; its code stays reserved (route_codes) and its quota is not returned. */
export function deleteRoute(stores: Stores, accountId: number, id: number): Promise<boolean> {
  return authTransaction(stores, () => {
    const route = getRoute(stores, accountId, id);
    if (!route) return false;
    stores.routes.remove(id);
    stores.accountRoutes.remove([accountId, id]);
    const account = stores.accounts.get(accountId)!;
    putAccount(stores, { ...account, routesActive: Math.max(0, (account.routesActive ?? 1) - 1) });
    return true;
  });
}

/** The live route behind a short-link code. */
export function routeByCode(stores: Stores, code: string): Route | undefined {
  const id = stores.codes.get(code);
  return id === undefined ? undefined : stores.routes.get(id);
}
