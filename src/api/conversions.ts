// POST /v1/conversions (contract §10): a conversion names the click it came
// from by its click id (experiments/click-id.ts), which carries the route,
// the variant, the visitor hash and the click's time under the server's MAC.
// Each (visitor, route, goal) counts once: a repeat answers 200 with
// duplicate: true. A route counts at most GOAL_LIMIT goals besides the
// default one: a conversion naming one more is 400 naming its goal. An account stores at most
// SPLITGUARD_CONVERSION_QUOTA conversions: a new one past it is 403
// quota_exceeded (a repeat is still answered as one; deleting a route gives
// its conversions back). The answer goes out only once the conversion is committed,
// so an acknowledged conversion survives a crash.
//
// {"click_id", "goal"?, "value"?} → 202 {route_id, variant, goal, duplicate}
// {"conversions": [up to 100 of those]} → 200 {"results": [...]}, in order,
//   each a result or an error body ({error, code, field}, the field named as
//   conversions[i].click_id etc.); the batch is one transaction.
import { dayOf } from '../days.js';
import { AppError, conversionQuotaExceeded, invalidParameter } from '../errors.js';
import type { ClickIds } from '../experiments/click-id.js';
import type { EndpointTable } from '../http/endpoint-table.js';
import type { Account } from '../store/db.js';
import { type ConversionInput, type ConversionOutcome, DEFAULT_GOAL, GOAL_LIMIT } from '../store/experiments-store.js';
import { VARIANT_KEYS } from '../store/routes-store.js';
import type { Storage } from '../store/storage.js';
import { objectBody } from './validate.js';

const BATCH_LIMIT = 100;
const GOAL = /^[a-z0-9_-]{1,64}$/;
/** |value| at most this: money-like amounts, and sums that stay exact in a double. */
const VALUE_LIMIT = 1e12;

const FIELDS = ['click_id', 'goal', 'value'] as const;

/** A checked conversion and the variant key to answer with. */
type Checked = { input: ConversionInput; key: string };

/**
 * Route id → owning account, for the routes conversions arrive for: a
 * conversion costs no route read and decode. Emptied by every route change
 * the change feed reports (a deletion must answer 404 at once), checked
 * with one Atomics load per request.
 */
class Owners {
  static readonly MAX = 100_000;
  readonly #routes: Storage['routes'];
  readonly #feed: Storage['feed'];
  readonly #map = new Map<number, number>();

  constructor(routes: Storage['routes'], feed: Storage['feed']) {
    this.#routes = routes;
    this.#feed = feed;
    feed.on(['route'], () => this.#map.clear());
  }

  /** Whether the route exists and is the account's. */
  owns(accountId: number, routeId: number): boolean {
    this.#feed.check();
    let owner = this.#map.get(routeId);
    if (owner === undefined) {
      const route = this.#routes.get(accountId, routeId);
      if (!route) return false;
      owner = route.accountId;
      if (this.#map.size >= Owners.MAX) this.#map.clear();
      this.#map.set(routeId, owner);
    }
    return owner === accountId;
  }
}

/** The route of a click id does not exist (another account's, deleted, or deleted while the conversion waited for its commit). */
const routeNotFound = (at: string) => new AppError('not_found', `the route of this click id does not exist`, `${at}click_id`);

/** Validates one conversion object; `at` prefixes field names in a batch ("conversions[3]."). */
function check(raw: unknown, at: string, account: Account, owners: Owners, ids: ClickIds, now: number): Checked {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new AppError('invalid_parameter', `${at ? at.slice(0, -1) : 'the body'} must be an object with click_id`, at ? at.slice(0, -1) : 'body');
  }
  const body = raw as Record<string, unknown>;
  for (const k of Object.keys(body)) if (!(FIELDS as readonly string[]).includes(k)) throw invalidParameter(`${at}${k}`, 'is not a known field');
  if (body.click_id === undefined) throw invalidParameter(`${at}click_id`, 'is required');
  const goal = body.goal === undefined ? DEFAULT_GOAL : body.goal;
  if (typeof goal !== 'string' || !GOAL.test(goal)) throw invalidParameter(`${at}goal`, 'must be 1 to 64 characters of a-z, 0-9, _ and -');
  let value: number | null = null;
  if (body.value !== undefined) {
    if (typeof body.value !== 'number' || !Number.isFinite(body.value) || Math.abs(body.value) > VALUE_LIMIT) {
      throw invalidParameter(`${at}value`, `must be a number from -${VALUE_LIMIT} to ${VALUE_LIMIT}`);
    }
    value = body.value;
  }
  const click = ids.verify(body.click_id);
  if (!click) throw new AppError('invalid_click_id', '', `${at}click_id`);
  // Another account's route, or a deleted one, is not found (never 403).
  if (!owners.owns(account.id, click.routeId)) throw routeNotFound(at);
  return {
    input: { routeId: click.routeId, accountId: account.id, goal, visitor: click.visitor, variant: click.variant, day: dayOf(click.issuedAt * 1000), at: now, value },
    key: VARIANT_KEYS[click.variant],
  };
}

/** The answer for one stored conversion, or the error for one refused as a goal past the route's limit, past the account's quota or for its route's deletion. */
function result(c: Checked, outcome: ConversionOutcome, at: string, quota: number) {
  if (outcome === 'goal_limit') return invalidParameter(`${at}goal`, `is a new goal for a route that has ${GOAL_LIMIT} goals besides "${DEFAULT_GOAL}", the most one route counts`);
  if (outcome === 'quota') return conversionQuotaExceeded(quota);
  if (outcome === 'route_gone') return routeNotFound(at);
  return { route_id: c.input.routeId, variant: c.key, goal: c.input.goal, duplicate: outcome === 'duplicate' };
}

export function registerConversionEndpoints(table: EndpointTable, storage: Pick<Storage, 'routes' | 'experiments' | 'feed'>, ids: ClickIds): void {
  const owners = new Owners(storage.routes, storage.feed);
  const quota = storage.experiments.conversionQuota;
  table.add('POST', '/v1/conversions', async (req) => {
    const now = Date.now();
    const body = req.body;
    if (typeof body === 'object' && body !== null && !Array.isArray(body) && 'conversions' in body) {
      const { conversions } = objectBody(body, ['conversions']);
      if (!Array.isArray(conversions) || conversions.length === 0 || conversions.length > BATCH_LIMIT) {
        throw invalidParameter('conversions', `must be an array of 1 to ${BATCH_LIMIT} conversions`);
      }
      const checked = conversions.map((raw, i) => {
        try {
          return check(raw, `conversions[${i}].`, req.account, owners, ids, now);
        } catch (err) {
          if (err instanceof AppError && err.status < 500) return err;
          throw err;
        }
      });
      const valid = checked.filter((c): c is Checked => !(c instanceof AppError));
      const outcomes = valid.length > 0 ? await storage.experiments.addConversions(valid.map((c) => c.input)) : [];
      let k = 0;
      // The same visitor, route and goal twice in one batch: the second is the duplicate (the store sees them in order).
      const results = checked.map((c, i) => {
        const r = c instanceof AppError ? c : result(c, outcomes[k++], `conversions[${i}].`, quota);
        return r instanceof AppError ? r.body() : r;
      });
      return { status: 200, body: { results } };
    }
    const c = check(body, '', req.account, owners, ids, now);
    const [outcome] = await storage.experiments.addConversions([c.input]);
    const r = result(c, outcome, '', quota);
    if (r instanceof AppError) throw r;
    return { status: outcome === 'duplicate' ? 200 : 202, body: r };
  });
}
