// Console sign-in: an email and password checked against the user's scrypt
// hash (store/accounts-store.ts writes them as scrypt$N$r$p$salt$hash), run
// in libuv's thread pool so a sign-in does not stall the server thread for
// the ~50-100 ms it costs.
//
// Limits, on every thread together, each over a rolling minute:
// - per client address (exact): 20 failed sign-ins;
// - per email at one address: 5 (an attacker elsewhere cannot lock the owner
//   out: the owner's own address has its own count);
// - per email from anywhere: past 5 failures every attempt for that email is
//   answered EMAIL_DELAY_MS later: it slows a spread-out attacker and never
//   refuses the owner;
// - per email: SIGN_INS.limit successful sign-ins. Each stores a session
//   that lives until it has been idle SPLITGUARD_SESSION_IDLE_MINUTES (up to
//   720) or is 12 hours old, so this bounds the sessions one user can hold
//   (300 at the default idle time) and the password work one user's script
//   can take from the others: signing in again and again, one user stored
//   about 24 sessions a second, some 43,000 in half an hour, each swept by a
//   scan of them all (docs/reliability.md, finding 119). Only a right
//   password counts, so nobody without it can lock the owner out (someone
//   holding a leaked one can keep it full, and the owner then changes the
//   password from a session, whose check has a budget of its own, or the
//   operator sets it: `splitguard user password`). Past it, a right password
//   is refused (429) after its hash, and counts as a failure at its address,
//   so the hashes one address can have made stay bounded as a wrong
//   password's are; a wrong one gets the answer it always gets, so nobody
//   learns from a refusal that the email is a user who just signed in often.
// An attempt is counted before its password is checked, so concurrent
// attempts cannot all pass the check, and taken back when it succeeds.
// Password hashing is bounded process-wide (PasswordWork), so a burst of
// sign-ins cannot take the thread pool from the API's storage writes.
import { setTimeout as delay } from 'node:timers/promises';
import { AppError, invalidParameter } from '../errors.js';
import { limitKey } from '../http/client-ip.js';
import { failureKey } from '../http/failure-limiter.js';
import type { FailureLimit } from '../limits/limits.js';
import { hashPassword, NEVER_MATCHING_PASSWORD_HASH, PASSWORD_MAX, PASSWORD_MIN, passwordLength, type Users, verifyPassword } from '../store/accounts-store.js';
import type { User } from '../store/db.js';
import { objectBody } from '../api/validate.js';
import type { PasswordWork } from './password-work.js';

const FAILURES_PER_ADDRESS = 20;
const FAILURES_PER_EMAIL_AT_ADDRESS = 5;
/** Failures of one email, from anywhere, after which its sign-ins are slowed. */
const EMAIL_SLOWDOWN_AFTER = 5;
/** Right passwords of one email a minute, counted apart for each use: its key (with the email), its limit, and what the refusal says was done. */
interface Successes {
  key: string;
  limit: number;
  done: string;
}
/** Successful sign-ins (see above). */
const SIGN_INS: Successes = { key: '', limit: 10, done: 'signed in' };
/** Password changes: each costs two hashes; it ends every session and starts one, so it adds none. */
const CHANGES: Successes = { key: 'password change', limit: 5, done: 'changed the password' };
export const EMAIL_DELAY_MS = 1000;
const UNCAPPED = 0x7fffffff;

/** Counted on this node's threads together, or across the cluster's nodes (limits/). */
export interface LoginLimits {
  addresses: FailureLimit;
  /** Keyed by failureKey(email, address). */
  emailAtAddress: FailureLimit;
  /** Keyed by failureKey(email). */
  emails: FailureLimit;
  /** Successful sign-ins, keyed by failureKey(email). */
  signIns: FailureLimit;
  work: PasswordWork;
}

export interface Credentials {
  email: string;
  password: string;
}

export function credentials(body: unknown): Credentials {
  const b = objectBody(body, ['email', 'password']);
  if (typeof b.email !== 'string' || b.email.trim() === '' || b.email.length > 320) throw invalidParameter('email', 'must be an email address');
  if (typeof b.password !== 'string' || b.password === '' || passwordLength(b.password) > PASSWORD_MAX) {
    throw invalidParameter('password', `must be a string of 1 to ${PASSWORD_MAX} characters`);
  }
  return { email: b.email.trim().toLowerCase(), password: b.password };
}

function tooMany(retryAfter: number): AppError {
  return new AppError('rate_limited', 'too many failed sign-ins; wait a minute and try again', null, { headers: { 'Retry-After': String(retryAfter) } });
}

function tooManySuccesses(retryAfter: number, successes: Successes): AppError {
  return new AppError('rate_limited', `this user ${successes.done} ${successes.limit} times in the last minute; wait a minute and try again`, null, { headers: { 'Retry-After': String(retryAfter) } });
}

/** Takes back the attempt counted up front at `at` by address and by email at the address. */
async function release(limits: LoginLimits, ip: Uint8Array, atAddress: Uint8Array, at: number): Promise<void> {
  const now = Date.now();
  await Promise.all([limits.addresses.release(ip, at, now), limits.emailAtAddress.release(atAddress, at, now)]);
}

/**
 * The user whose credentials were `given`; throws rate_limited or login_failed.
 *
 * Every attempt counts against its address (an IPv6 one by its /64) until
 * it succeeds or is refused unchecked because the password work is full. In
 * the work's queue (PasswordWork) an attempt ranks by its address's count,
 * fewest first: once each address of a flood has failed, the owner, trying
 * from an address of its own, goes ahead of all of them.
 */
export function login(users: Users, limits: LoginLimits, address: Uint8Array, given: Credentials): Promise<User> {
  return check(users, limits, address, given, SIGN_INS);
}

/**
 * login's check, with `successes` right passwords a minute for the email
 * (SIGN_INS for a sign-in, CHANGES for a password
 * change, each counted apart: someone holding a leaked password who signs in
 * again and again must not stop the owner from changing it). The user
 * returned carries the hash the password was checked against, which what
 * follows must still find stored (putSession, setUserPassword).
 */
async function check(users: Users, limits: LoginLimits, address: Uint8Array, given: Credentials, successes: Successes): Promise<User> {
  const now = Date.now();
  const ip = limitKey(Uint8Array.from(address));
  const atAddress = failureKey(given.email, ip);
  const byAddress = await limits.addresses.hit(ip, FAILURES_PER_ADDRESS, now);
  if (!byAddress.allowed) throw tooMany(byAddress.retryAfter);
  const byPair = await limits.emailAtAddress.hit(atAddress, FAILURES_PER_EMAIL_AT_ADDRESS, now);
  if (!byPair.allowed) {
    await limits.addresses.release(ip, now, Date.now());
    throw tooMany(byPair.retryAfter);
  }
  const email = failureKey(given.email);
  // A sign-in's key is the email's own (the key every version has used).
  const budget = successes.key === '' ? email : failureKey(given.email, successes.key);
  if ((await limits.emails.count(email, now)) >= EMAIL_SLOWDOWN_AFTER) await delay(EMAIL_DELAY_MS);
  const user = users.get(given.email);
  // An unknown email is checked against a hash no password matches, so that
  // the answer takes as long as for a known one and does not reveal which exist.
  const stored = user?.passwordHash ?? NEVER_MATCHING_PASSWORD_HASH;
  let ok: boolean;
  try {
    ok = await limits.work.run(() => verifyPassword(given.password, stored), byAddress.count);
  } catch (err) {
    // Not checked (the work is full): not a failure either, and the address's rank stays.
    await release(limits, ip, atAddress, now);
    throw err;
  }
  if (user && ok) {
    // Counted atomically: right passwords checked together cannot all get a
    // session. Past the budget the attempt stays counted at its address.
    const counted = await limits.signIns.hit(budget, successes.limit, Date.now());
    if (!counted.allowed) throw tooManySuccesses(counted.retryAfter, successes);
    await release(limits, ip, atAddress, now);
    return user;
  }
  await limits.emails.hit(email, UNCAPPED, Date.now());
  throw new AppError('login_failed');
}

export interface PasswordChange {
  current: string;
  next: string;
}

/** The body of POST /console/api/session/password: {"current_password", "new_password"}. */
export function passwordChange(body: unknown): PasswordChange {
  const b = objectBody(body, ['current_password', 'new_password']);
  if (typeof b.current_password !== 'string' || b.current_password === '' || passwordLength(b.current_password) > PASSWORD_MAX) {
    throw invalidParameter('current_password', `must be a string of 1 to ${PASSWORD_MAX} characters`);
  }
  const length = typeof b.new_password === 'string' ? passwordLength(b.new_password) : 0;
  if (typeof b.new_password !== 'string' || length < PASSWORD_MIN || length > PASSWORD_MAX) {
    throw invalidParameter('new_password', `must be a string of ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
  }
  return { current: b.current_password, next: b.new_password };
}

const wrongCurrent = () => invalidParameter('current_password', 'is not the password of this user');

/**
 * A signed-in user's password change. The current password is checked as a
 * sign-in is, under the same failure limits (a session someone else holds
 * must not become a way to guess it faster), with a budget of successes of
 * its own (CHANGES); a wrong one is invalid_parameter, not
 * login_failed, since the session itself stays good. The new one is hashed
 * within the password work and set only if the checked hash is still the
 * stored one (a change or `user password` meanwhile makes this one wrong),
 * with every session of the user ended (accounts-store.ts). Returns the new
 * hash, which the session this browser goes on in is stored against; null
 * when the user was removed meanwhile.
 */
export async function changePassword(users: Users, limits: LoginLimits, address: Uint8Array, email: string, change: PasswordChange): Promise<{ sessionsEnded: number; passwordHash: string } | null> {
  let checked: User;
  try {
    checked = await check(users, limits, address, { email, password: change.current }, CHANGES);
  } catch (err) {
    if (err instanceof AppError && err.code === 'login_failed') throw wrongCurrent();
    throw err;
  }
  const passwordHash = await limits.work.run(() => hashPassword(change.next), 0);
  const changed = await users.changePasswordHash(email, passwordHash, checked.passwordHash);
  if (changed === 'changed') throw wrongCurrent();
  return changed && { sessionsEnded: changed.sessionsEnded, passwordHash };
}
