// Routes. Three databases in the local store:
//   routes          id → Route (deleted routes are removed)
//   route_codes     code → id, kept forever so that a code is never reused
//   account_routes  [accountId, id] → 1, the per-account index (newest first
//                   by reading it in reverse)
// Reads are synchronous (the redirect's route cache reads here on a miss);
// creation, update and deletion go to the back end (backend.ts).
import { randomBytes } from 'node:crypto';
import type { Backend } from './backend.js';
import type { Account, Stores } from './db.js';

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
const CODE_LENGTH = 8;

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

export class Routes {
  readonly #stores: Stores;
  readonly #backend: Backend;

  constructor(stores: Stores, backend: Backend) {
    this.#stores = stores;
    this.#backend = backend;
  }

  /** Creates a route; quota_exceeded when the account's lifetime creations reached its quota. */
  create(account: Account, settings: RouteSettings): Promise<Route> {
    return this.#backend.createRoute(account.id, settings);
  }

  /** The route if it exists and belongs to the account (another account's route is "not found"). */
  get(accountId: number, id: number): Route | undefined {
    const route = this.#stores.routes.get(id);
    return route && route.accountId === accountId ? route : undefined;
  }

  list(accountId: number, page: number, limit: number): { data: Route[]; total: number } {
    const range = { start: [accountId, Number.MAX_SAFE_INTEGER], end: [accountId, 0], reverse: true };
    // The account record keeps the count: counting the index costs O(routes).
    const total = this.#stores.accounts.get(accountId)?.routesActive ?? 0;
    const data: Route[] = [];
    for (const { key } of this.#stores.accountRoutes.getRange({ ...range, offset: (page - 1) * limit, limit })) {
      const route = this.#stores.routes.get((key as [number, number])[1]);
      if (route) data.push(route);
    }
    return { data, total };
  }

  update(accountId: number, id: number, changes: Partial<RouteSettings>): Promise<Route | undefined> {
    return this.#backend.updateRoute(accountId, id, changes);
  }

  /** Deletes a route; its code stays reserved and its quota is not returned. */
  delete(accountId: number, id: number): Promise<boolean> {
    return this.#backend.deleteRoute(accountId, id);
  }

  /** The live route behind a short-link code. */
  byCode(code: string): Route | undefined {
    const id = this.#stores.codes.get(code);
    return id === undefined ? undefined : this.#stores.routes.get(id);
  }
}
