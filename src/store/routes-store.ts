// Routes. Three databases in the local store:
//   routes          id → Route (deleted routes are removed)
//   route_codes     code → id, kept forever so that a code is never reused
//   account_routes  [accountId, id] → 1, the per-account index (newest first
//                   by reading it in reverse)
// Reads are synchronous (the redirect's route cache reads here on a miss);
// creation, update and deletion go to the back end (backend.ts).
import { randomBytes } from 'node:crypto';
import { AppError, invalidParameter } from '../errors.js';
import { initialLayout, layoutFits, nextLayout, shares } from '../experiments/split.js';
import type { Backend } from './backend.js';
import type { Account, Stores } from './db.js';

/** A variant's page and weight; its key is its place in the list (a … h). */
export interface Variant {
  url: string;
  weight: number;
}

export const VARIANT_KEYS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] as const;
export type VariantKey = (typeof VARIANT_KEYS)[number];

export interface Route {
  id: number;
  accountId: number;
  code: string;
  name: string;
  /** The two-variant view (contract §10): variant a's and b's URLs. */
  pageA: string;
  pageB: string;
  /** weight(a) / (weight(a) + weight(b)) with exactly two variants, else null. */
  splitRatio: number | null;
  defaultGroup: VariantKey;
  interceptLevel: 'off' | 'low' | 'medium' | 'high';
  /**
   * 2-8 variants. Absent in records written before experiments, which mean
   * [{pageA, splitRatio}, {pageB, 1 - splitRatio}] (variantsOf).
   */
  variants?: Variant[];
  /** The bucket layout (experiments/split.ts); absent: the cumulative weights. */
  layout?: number[];
  appendClickId?: boolean;
  /** When the weights last changed (ISO time); absent: never since creation. The SRM check counts from the next UTC day. */
  weightsChangedAt?: string;
  status: 'active';
  createdAt: string;
  updatedAt: string;
}

/**
 * What a create or update asks for. The two-variant fields (pageA, pageB,
 * splitRatio) and `variants` are alternatives (the API refuses both in one
 * body); they are resolved against the stored route inside the writing
 * transaction (applyRouteChanges), so concurrent updates never lose each other.
 */
export interface RouteChanges {
  name?: string;
  pageA?: string;
  pageB?: string;
  splitRatio?: number;
  variants?: Variant[];
  defaultGroup?: VariantKey;
  interceptLevel?: Route['interceptLevel'];
  appendClickId?: boolean;
}

/** A route's variants (records from before experiments have only the two-variant fields). */
export function variantsOf(r: Pick<Route, 'pageA' | 'pageB' | 'splitRatio' | 'variants'>): Variant[] {
  return r.variants ?? [{ url: r.pageA, weight: r.splitRatio ?? 0.5 }, { url: r.pageB, weight: 1 - (r.splitRatio ?? 0.5) }];
}

export function layoutOf(r: Pick<Route, 'pageA' | 'pageB' | 'splitRatio' | 'variants' | 'layout'>): number[] {
  const weights = variantsOf(r).map((v) => v.weight);
  return r.layout && layoutFits(r.layout, weights) ? r.layout : initialLayout(weights);
}

/**
 * The updated_at an update gives a route: now, or 1 ms past the one it has
 * when the clock has not moved past it (two updates in one millisecond, a
 * clock stepped back). So updated_at names one version of a route, and is
 * its entity tag (api/routes.ts: ETag, If-Match).
 */
export function nextUpdatedAt(previous: string): string {
  const before = Date.parse(previous);
  const now = Date.now();
  return new Date(Number.isNaN(before) || now > before ? now : before + 1).toISOString();
}

/**
 * An update's or a deletion's precondition: the updated_at values the
 * client's If-Match names, one of which the stored route must have; null for
 * none. A write whose precondition fails changes nothing and is answered
 * 'changed'.
 */
export type RoutePrecondition = readonly string[] | null;

/** Whether the stored route fails the precondition (checked by the back ends inside the writing transaction). */
export const preconditionFails = (route: Pick<Route, 'updatedAt'>, precondition: RoutePrecondition): boolean =>
  precondition !== null && !precondition.includes(route.updatedAt);

/** What an update did: the route as it is now, undefined when there is no such route of the account, 'changed' when its precondition failed. */
export type RouteUpdate = Route | undefined | 'changed';

type RouteBase = Omit<Route, 'id' | 'accountId' | 'code' | 'status' | 'createdAt' | 'updatedAt'>;

/** Shares closer than this are the same split: float rewriting of the same weights differs by about 1e-16. */
const SAME_SHARE = 1e-12;

/**
 * The route's settings after `changes` (`current` undefined: a new route,
 * whose changes hold a name and either pageA and pageB or variants). Called
 * by the back end inside the writing transaction. A weight change moves the
 * layout by the least possible (experiments/split.ts) and restarts the SRM
 * count; invalid_parameter when split_ratio is sent to a route without
 * exactly two variants, or default_group names a key the list lacks.
 */
/**
 * Page B's weight for a split ratio: 1 − ratio as a person would write it
 * (0.2 for 0.8, where the binary difference is 0.19999999999999996), when
 * that gives exactly the same answered split_ratio (weight(a) / (weight(a) +
 * weight(b))) as the binary difference does; else the binary difference, so
 * that a ratio of more digits (1/3) is answered as sent.
 */
function weightOfB(splitRatio: number): number {
  const exact = 1 - splitRatio;
  const written = Number(exact.toPrecision(12));
  return splitRatio / (splitRatio + written) === splitRatio / (splitRatio + exact) ? written : exact;
}

export function applyRouteChanges(current: RouteBase | undefined, changes: RouteChanges, now: string): RouteBase {
  const before = current ? variantsOf(current) : undefined;
  let variants: Variant[];
  if (changes.variants) variants = changes.variants.map((v) => ({ ...v }));
  else if (before) variants = before.map((v) => ({ ...v }));
  else variants = [{ url: changes.pageA!, weight: changes.splitRatio ?? 0.5 }, { url: changes.pageB!, weight: weightOfB(changes.splitRatio ?? 0.5) }];
  if (!changes.variants && before) {
    if (changes.pageA !== undefined) variants[0].url = changes.pageA;
    if (changes.pageB !== undefined) variants[1].url = changes.pageB;
    if (changes.splitRatio !== undefined) {
      if (variants.length !== 2) throw invalidParameter('split_ratio', `applies only to a route with two variants (this one has ${variants.length}); send variants`);
      variants[0].weight = changes.splitRatio;
      variants[1].weight = weightOfB(changes.splitRatio);
    }
  }
  const defaultGroup = changes.defaultGroup ?? current?.defaultGroup ?? 'a';
  if (VARIANT_KEYS.indexOf(defaultGroup) >= variants.length) {
    throw invalidParameter('default_group', `names variant "${defaultGroup}", and the route has variants a to ${VARIANT_KEYS[variants.length - 1]}`);
  }
  const weights = variants.map((v) => v.weight);
  let layout = current ? layoutOf(current) : initialLayout(weights);
  let weightsChangedAt = current?.weightsChangedAt;
  if (before) {
    const was = shares(before.map((v) => v.weight));
    const now_ = shares(weights);
    // A variant added at weight 0 (or a weight-0 one dropped) changes no share;
    // nor does a split_ratio sent back as GET gave it (40/30 as 0.5714285714285714
    // and its complement differs from 40/70 in the last bit), which restarted the SRM check.
    let moved = false;
    for (let i = 0; i < Math.max(was.length, now_.length); i++) if (Math.abs((was[i] ?? 0) - (now_[i] ?? 0)) > SAME_SHARE) moved = true;
    if (moved) {
      layout = nextLayout(layout, weights);
      weightsChangedAt = now;
    }
  }
  const [a, b] = variants;
  const out: RouteBase = {
    name: changes.name ?? current?.name ?? '',
    pageA: a.url,
    pageB: b.url,
    splitRatio: variants.length === 2 ? a.weight / (a.weight + b.weight) : null,
    defaultGroup,
    interceptLevel: changes.interceptLevel ?? current?.interceptLevel ?? 'medium',
    variants,
    layout,
    appendClickId: changes.appendClickId ?? current?.appendClickId ?? false,
  };
  if (weightsChangedAt !== undefined) out.weightsChangedAt = weightsChangedAt;
  if (!out.name) throw new AppError('invalid_parameter', 'name is required', 'name');
  return out;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The length of every short-link code (the redirect refuses any other without a lookup). */
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

export class Routes {
  readonly #stores: Stores;
  readonly #backend: Backend;

  constructor(stores: Stores, backend: Backend) {
    this.#stores = stores;
    this.#backend = backend;
  }

  /** Creates a route; quota_exceeded when the account's lifetime creations reached its quota. */
  create(account: Account, settings: RouteChanges): Promise<Route> {
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
    // Past the end: nothing to skip through (page may be any safe integer, its offset past one).
    if ((page - 1) * limit >= total) return { data, total };
    for (const { key } of this.#stores.accountRoutes.getRange({ ...range, offset: (page - 1) * limit, limit })) {
      const route = this.#stores.routes.get((key as [number, number])[1]);
      if (route) data.push(route);
    }
    return { data, total };
  }

  update(accountId: number, id: number, changes: RouteChanges, precondition: RoutePrecondition = null): Promise<RouteUpdate> {
    return this.#backend.updateRoute(accountId, id, changes, precondition);
  }

  /** Deletes a route (unless its precondition fails: 'changed'); its code stays reserved and its quota is not returned. */
  delete(accountId: number, id: number, precondition: RoutePrecondition = null): Promise<boolean | 'changed'> {
    return this.#backend.deleteRoute(accountId, id, precondition);
  }

  /** At a start: removes the data of routes deleted before, whose removal a stop interrupted. */
  purgeDeleted(): Promise<void> {
    return this.#backend.purgeDeletedRoutes();
  }

  /** The live route behind a short-link code. */
  byCode(code: string): Route | undefined {
    const id = this.#stores.codes.get(code);
    return id === undefined ? undefined : this.#stores.routes.get(id);
  }
}
