// Console login: an email and password checked against the user's scrypt
// hash (store/accounts-store.ts writes them as scrypt$N$r$p$salt$hash), with
// the scrypt run in libuv's thread pool so a login does not stall the server
// thread for the ~50-100 ms it costs. Failed logins are limited per client
// address and per email over a rolling minute, on every thread together.
import { scrypt, timingSafeEqual } from 'node:crypto';
import { AppError, invalidParameter } from '../errors.js';
import { addressKey, type SharedRateLimiter } from '../http/rate-limit.js';
import type { Stores, User } from '../store/db.js';
import { objectBody } from '../api/validate.js';

export const FAILURES_PER_ADDRESS = 20;
export const FAILURES_PER_EMAIL = 5;

// An unknown email is checked against this (it never matches), so that the
// answer takes as long as for a known one and does not reveal which exist.
const DECOY = `scrypt$32768$8$1$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(32).toString('base64')}`;

function verify(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return Promise.resolve(false);
  const expected = Buffer.from(hash, 'base64');
  const options = { N: Number(n), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password, Buffer.from(salt, 'base64'), expected.length, options, (err, got) => {
      if (err) reject(err);
      else resolve(timingSafeEqual(expected, got));
    });
  });
}

/** A 32-bit key for an email in the shared limiter (FNV-1a; tagged so it differs from an address's). */
function emailKey(email: string): number {
  let h = 0x811c9dc5 ^ 0x65;
  for (let i = 0; i < email.length; i++) h = Math.imul(h ^ email.charCodeAt(i), 0x01000193);
  return h | 0 || 1;
}

export interface Credentials {
  email: string;
  password: string;
}

export function credentials(body: unknown): Credentials {
  const b = objectBody(body, ['email', 'password']);
  if (typeof b.email !== 'string' || b.email.trim() === '' || b.email.length > 320) throw invalidParameter('email', 'must be an email address');
  if (typeof b.password !== 'string' || b.password === '' || b.password.length > 1024) throw invalidParameter('password', 'must be a string of 1 to 1024 characters');
  return { email: b.email.trim().toLowerCase(), password: b.password };
}

/** The user for these credentials; throws rate_limited or login_failed. */
export async function login(stores: Stores, limiter: SharedRateLimiter, ip: Uint8Array, c: Credentials): Promise<User> {
  const now = Date.now();
  const byAddress = addressKey(ip);
  const byEmail = emailKey(c.email);
  const a = limiter.hit(byAddress, FAILURES_PER_ADDRESS, now, false);
  const e = limiter.hit(byEmail, FAILURES_PER_EMAIL, now, false);
  if (!a.allowed || !e.allowed) {
    const err = new AppError('rate_limited', 'too many failed sign-ins; wait a minute and try again');
    err.headers = { 'Retry-After': String(Math.max(a.allowed ? 1 : a.resetSeconds, e.allowed ? 1 : e.resetSeconds)) };
    throw err;
  }
  const user = stores.users.get(c.email);
  const ok = await verify(c.password, user?.passwordHash ?? DECOY);
  if (!user || !ok) {
    limiter.hit(byAddress, FAILURES_PER_ADDRESS, Date.now());
    limiter.hit(byEmail, FAILURES_PER_EMAIL, Date.now());
    throw new AppError('login_failed');
  }
  return user;
}
