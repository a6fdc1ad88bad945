// Console sessions, kept in LMDB so that every server thread (and a restart)
// sees the same ones.
//
// The cookie carries a random 32-byte id (base64url); the store keeps only
// its SHA-256, so a copy of the data directory does not hand out live
// sessions. A session ends when it is IDLE (no request for
// config.sessionIdleMinutes), when it is ABSOLUTE_MS old, or at logout.
// Each session has its own CSRF token, which the console sends back in
// X-CSRF-Token on every request that changes something.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ConsoleSession, Stores } from '../store/db.js';

export const COOKIE = 'sg_session';
/** A session never lives longer than this, however busy. */
export const ABSOLUTE_MS = 12 * 3_600_000;
/** lastSeenAt is rewritten at most this often (a write per request would be waste). */
const TOUCH_MS = 60_000;
/** Expired sessions are swept at most this often (per thread). */
const SWEEP_MS = 10 * 60_000;

const hash = (id: string) => createHash('sha256').update(id).digest('hex');

export interface LiveSession {
  /** The store key (hash of the cookie value). */
  key: string;
  session: ConsoleSession;
}

export class Sessions {
  readonly #stores: Stores;
  readonly #idleMs: number;
  #lastSweep = 0;

  constructor(stores: Stores, idleMinutes: number) {
    this.#stores = stores;
    this.#idleMs = Math.round(idleMinutes * 60_000);
  }

  get idleMs(): number {
    return this.#idleMs;
  }

  /** Starts a session; returns the cookie value (the only copy of the id) and the session. */
  create(email: string, now = Date.now()): { id: string; session: ConsoleSession } {
    this.#sweep(now);
    const id = randomBytes(32).toString('base64url');
    const session: ConsoleSession = { email, csrf: randomBytes(32).toString('base64url'), createdAt: now, lastSeenAt: now };
    this.#stores.sessions.putSync(hash(id), session);
    return { id, session };
  }

  /** The live session for a cookie value, or null (an expired one is deleted on the way). */
  find(id: string, now = Date.now()): LiveSession | null {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
    const key = hash(id);
    const session = this.#stores.sessions.get(key);
    if (!session) return null;
    if (this.#expired(session, now)) {
      this.#stores.sessions.removeSync(key);
      return null;
    }
    if (now - session.lastSeenAt > Math.min(TOUCH_MS, this.#idleMs / 4)) {
      // Synchronous, so the next request (on any thread) sees the new time;
      // it happens at most once a minute per session.
      const touched = { ...session, lastSeenAt: now };
      this.#stores.sessions.putSync(key, touched);
      return { key, session: touched };
    }
    return { key, session };
  }

  /** When the session ends if no further request comes (ms since the epoch). */
  expiresAt(session: ConsoleSession): number {
    return Math.min(session.lastSeenAt + this.#idleMs, session.createdAt + ABSOLUTE_MS);
  }

  delete(key: string): void {
    this.#stores.sessions.removeSync(key);
  }

  #expired(s: ConsoleSession, now: number): boolean {
    return now >= this.expiresAt(s);
  }

  #sweep(now: number): void {
    if (now - this.#lastSweep < SWEEP_MS) return;
    this.#lastSweep = now;
    for (const { key, value } of this.#stores.sessions.getRange()) {
      if (this.#expired(value, now)) void this.#stores.sessions.remove(key);
    }
  }
}

/** Constant-time comparison of the presented CSRF token with the session's. */
export function csrfMatches(session: ConsoleSession, presented: string): boolean {
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of one cookie in a Cookie header ('' when absent). */
export function readCookie(header: string, name: string): string {
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return '';
}

export function sessionCookie(id: string): string {
  return `${COOKIE}=${id}; Path=/console; Max-Age=${ABSOLUTE_MS / 1000}; HttpOnly; Secure; SameSite=Strict`;
}

export const CLEAR_COOKIE = `${COOKIE}=; Path=/console; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;
