// The cluster-wide limits: each count lives once in Redis for every node,
// read and written by one atomic script per decision (scripts.ts), so an
// account hammering all nodes at once gets its limit, not the limit per node.
//
// Insurance: when Redis cannot be asked (down, or resting after a failure)
// or does not answer within the timeout, this node decides alone with its
// local tables (the single node's, shared by its threads) and this node's
// share of the limit (RedisLink.share). The local tables also count every
// request and failure Redis accepted here, so a node that loses Redis in
// the middle of a minute already knows what it let through in that minute.
// Redis's counts do not learn what nodes let through while it was away.
//
// One decision costs one round trip (EVALSHA), two when Redis has just
// restarted and has to be sent the script once (EVAL).
import type { FailureLimiter } from '../http/failure-limiter.js';
import type { SharedRateLimiter } from '../http/rate-limit.js';
import type { Decision, FailureLimit, FailureVerdict, Limits, LocalTables, RateLimit, RateVerdict } from './limits.js';
import type { RedisLink } from './redis-link.js';
import { FAILURES, RATE } from './scripts.js';

/** A limit the local shadow count never refuses: it only records. */
const UNCAPPED = 0x7fffffff;
const WINDOW_SECONDS = 60;

type Triple = [number, number, number];

class RedisRateLimit implements RateLimit {
  readonly #link: RedisLink;
  readonly #local: SharedRateLimiter;
  readonly #prefix: string;

  constructor(link: RedisLink, local: SharedRateLimiter, prefix: string) {
    this.#link = link;
    this.#local = local;
    this.#prefix = prefix;
  }

  hit(key: number, limit: number, nowMs: number): Decision<RateVerdict> {
    if (!this.#link.usable(nowMs)) return this.#alone(key, limit, nowMs);
    return this.#link.run(RATE, this.#prefix + key, [Math.floor(nowMs / 1000), limit, WINDOW_SECONDS]).then(
      (out) => {
        const [allowed, counted, reset] = out as Triple;
        if (allowed === 1) this.#local.hit(key, UNCAPPED, nowMs);
        return { allowed: allowed === 1, limit, remaining: Math.max(0, limit - counted), resetSeconds: reset };
      },
      () => this.#alone(key, limit, nowMs),
    );
  }

  /** This node's decision with its share; the headers then show the share as the limit. */
  #alone(key: number, limit: number, nowMs: number): RateVerdict {
    this.#link.fellBack();
    return this.#local.hit(key, this.#link.share(limit), nowMs);
  }
}

const hex = (key: Uint8Array) => Buffer.from(key.buffer, key.byteOffset, 16).toString('hex');

class RedisFailureLimit implements FailureLimit {
  readonly #link: RedisLink;
  readonly #local: FailureLimiter;
  readonly #prefix: string;

  constructor(link: RedisLink, local: FailureLimiter, prefix: string) {
    this.#link = link;
    this.#local = local;
    this.#prefix = prefix;
  }

  hit(key: Uint8Array, limit: number, nowMs: number): Decision<FailureVerdict> {
    if (!this.#link.usable(nowMs)) return this.#alone(key, limit, nowMs);
    return this.#link.run(FAILURES, this.#prefix + hex(key), ['hit', nowMs, limit]).then(
      (out) => {
        const [allowed, counted, retryAfter] = out as Triple;
        if (allowed === 1) this.#local.hit(key, UNCAPPED, nowMs);
        return { allowed: allowed === 1, limit, count: counted, retryAfter };
      },
      () => this.#alone(key, limit, nowMs),
    );
  }

  count(key: Uint8Array, nowMs: number): Decision<number> {
    if (!this.#link.usable(nowMs)) {
      this.#link.fellBack();
      return this.#local.count(key, nowMs);
    }
    return this.#link.run(FAILURES, this.#prefix + hex(key), ['count', nowMs]).then(
      (out) => Number(out),
      () => {
        this.#link.fellBack();
        return this.#local.count(key, nowMs);
      },
    );
  }

  release(key: Uint8Array, atMs: number, nowMs: number): Decision<void> {
    // Both places counted it (or only the local one, when Redis was away;
    // then Redis has nothing at that tick for this node to take back, or
    // takes back another node's failure of the same second: one in the
    // caller's favour, never against it).
    this.#local.release(key, atMs, nowMs);
    if (!this.#link.usable(nowMs)) return;
    return this.#link.run(FAILURES, this.#prefix + hex(key), ['release', nowMs, atMs]).then(
      () => {},
      () => {},
    );
  }

  #alone(key: Uint8Array, limit: number, nowMs: number): FailureVerdict {
    this.#link.fellBack();
    return this.#local.hit(key, this.#link.share(limit), nowMs);
  }
}

/** Redis key prefixes, one per table (see scripts.ts for what each holds). */
const KEY_PREFIXES = {
  accounts: 'sg:rate:',
  authFailures: 'sg:fail:auth:',
  loginAddresses: 'sg:fail:login-address:',
  loginEmailAtAddress: 'sg:fail:login-email-address:',
  loginEmails: 'sg:fail:login-email:',
  signIns: 'sg:fail:sign-ins:',
} as const;

/** The cluster's limits over `link`, with this process's tables as the insurance. */
export function redisLimits(link: RedisLink, local: LocalTables): Limits {
  return {
    accounts: new RedisRateLimit(link, local.accounts, KEY_PREFIXES.accounts),
    authFailures: new RedisFailureLimit(link, local.authFailures, KEY_PREFIXES.authFailures),
    loginAddresses: new RedisFailureLimit(link, local.loginAddresses, KEY_PREFIXES.loginAddresses),
    loginEmailAtAddress: new RedisFailureLimit(link, local.loginEmailAtAddress, KEY_PREFIXES.loginEmailAtAddress),
    loginEmails: new RedisFailureLimit(link, local.loginEmails, KEY_PREFIXES.loginEmails),
    signIns: new RedisFailureLimit(link, local.signIns, KEY_PREFIXES.signIns),
    close: () => link.close(),
  };
}
