// The one seam in front of every limit a caller can run into: the account's
// rolling-minute request limit, failed API authentications per address and
// the console's failed sign-ins (per address, per email at an address, per
// email) and its successful ones (per email). The API and the console call these interfaces and never know which
// implementation runs:
//   - local (single node): the SharedArrayBuffer tables of http/rate-limit.ts
//     and http/failure-limiter.ts, shared by this process's threads; every
//     answer is a value, decided synchronously;
//   - cluster (SPLITGUARD_REDIS_URL, redis-limits.ts): one count per key in
//     Redis for all nodes, decided by an atomic script; an answer is a
//     promise, or a value when this node decides alone (Redis unreachable).
// Callers handle both: `await` takes either, and the API's hot path checks
// `instanceof Promise` to stay synchronous when it can.
import { FailureLimiter, type Verdict as FailureVerdict } from '../http/failure-limiter.js';
import { SharedRateLimiter, type Verdict as RateVerdict } from '../http/rate-limit.js';
import type { WorkerInput } from '../server.worker.js';

export type { FailureVerdict, RateVerdict };

/** An answer now (decided in this process) or later (decided by Redis). */
export type Decision<T> = T | Promise<T>;

/** Requests per key (an account id) over a rolling minute of 1-second buckets. */
export interface RateLimit {
  /** Counts one request for `key` if it fits under `limit`; a refused one is not counted. */
  hit(key: number, limit: number, nowMs: number): Decision<RateVerdict>;
}

/** Failures per 16-byte key over a rolling minute of 5-second buckets. */
export interface FailureLimit {
  /** Counts one failure if fewer than `limit` are counted. */
  hit(key: Uint8Array, limit: number, nowMs: number): Decision<FailureVerdict>;
  /** Failures counted for `key` in the last minute. */
  count(key: Uint8Array, nowMs: number): Decision<number>;
  /** Takes back one failure counted at `atMs`, if it is still in the window. */
  release(key: Uint8Array, atMs: number, nowMs: number): Decision<void>;
}

export interface Limits {
  accounts: RateLimit;
  authFailures: FailureLimit;
  loginAddresses: FailureLimit;
  /** Keyed by failureKey(email, address). */
  loginEmailAtAddress: FailureLimit;
  /** Keyed by failureKey(email). */
  loginEmails: FailureLimit;
  /** Successful sign-ins, keyed by failureKey(email). */
  signIns: FailureLimit;
  /** Ends what the limits hold open (the Redis connection); the local ones hold nothing. */
  close(): Promise<void>;
}

/** The process's shared tables, as every thread sees them. */
export interface LocalTables {
  accounts: SharedRateLimiter;
  authFailures: FailureLimiter;
  loginAddresses: FailureLimiter;
  loginEmailAtAddress: FailureLimiter;
  loginEmails: FailureLimiter;
  signIns: FailureLimiter;
}

export function localTables(shared: WorkerInput['shared']): LocalTables {
  return {
    accounts: new SharedRateLimiter(shared.accounts),
    authFailures: new FailureLimiter(shared.authFailures),
    loginAddresses: new FailureLimiter(shared.loginAddresses),
    loginEmailAtAddress: new FailureLimiter(shared.loginEmailAtAddress),
    loginEmails: new FailureLimiter(shared.loginEmails),
    signIns: new FailureLimiter(shared.signIns),
  };
}

/** The single node's limits: the shared tables themselves. */
export function localLimits(tables: LocalTables): Limits {
  return { ...tables, close: async () => {} };
}
