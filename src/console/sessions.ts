// Console sessions, kept in storage (store/sessions-store.ts) so that every
// server thread, every node and a restart see the same ones.
//
// The cookie carries a random 32-byte id (base64url); the store keeps only
// its SHA-256, so a copy of the data directory does not hand out live
// sessions. A session ends when it is IDLE (no request for
// config.sessionIdleMinutes), when it is ABSOLUTE_MS old, at logout, or when
// its user signs out everywhere (console or CLI).
// One stamped further ahead of the clock than CLOCK_SKEW_MS was made or used
// while a clock ran ahead (then stepped back: NTP, a restored VM) and is
// refused: its limits, counted from those stamps, would hold it open for the
// length of the step. It is not deleted: the clock behind may be this one's
// alone (a node of a cluster), and it would sign everybody out; once it has
// caught up, the session's own limits end it.
// Each session has its own CSRF token, which the console sends back in
// X-CSRF-Token on every request that changes something.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.js';
import { CLOCK_SKEW_MS } from '../clock.js';
import { log } from '../log.js';
import type { ConsoleSession, User } from '../store/db.js';
import type { SessionStore } from '../store/sessions-store.js';

/**
 * The session cookie. The `__Host-` prefix makes the browser refuse it from
 * anywhere but this host, over HTTPS, for Path=/ and without Domain, so a
 * page on another host of the same site (evil.example.com beside
 * sg.example.com) can neither set one of its own for the console, which
 * would run the victim's console in the setter's session, nor shadow this
 * one with a narrower path. It therefore goes with every request to this
 * host; only the console reads it. The name before it (`sg_session`,
 * Path=/console) is ignored, and expires on its own.
 */
export const COOKIE = '__Host-sg_session';
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
  readonly #store: SessionStore;
  readonly #idleMs: number;
  #lastSweep = 0;

  constructor(store: SessionStore, idleMinutes: number) {
    this.#store = store;
    this.#idleMs = Math.round(idleMinutes * 60_000);
  }

  /**
   * Starts a session for a user whose password was just checked; returns the
   * cookie value (the only copy of the id) and the session. login_failed when
   * the password checked is no longer the user's: a change between the check
   * and this write must not leave a session of the old password behind.
   */
  async create(user: Pick<User, 'email' | 'passwordHash'>, now = Date.now()): Promise<{ id: string; session: ConsoleSession }> {
    this.#sweep(now);
    const id = randomBytes(32).toString('base64url');
    const session: ConsoleSession = { email: user.email, csrf: randomBytes(32).toString('base64url'), createdAt: now, lastSeenAt: now };
    if (!(await this.#store.put(hash(id), session, user.passwordHash))) throw new AppError('login_failed');
    return { id, session };
  }

  /** The live session for a cookie value, or null (an expired one is deleted on the way). */
  async find(id: string, now = Date.now()): Promise<LiveSession | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
    const key = hash(id);
    const session = this.#store.get(key);
    if (!session || Math.max(session.createdAt, session.lastSeenAt) > now + CLOCK_SKEW_MS) return null;
    if (this.#expired(session, now)) {
      await this.#store.delete(key);
      return null;
    }
    if (now - session.lastSeenAt > Math.min(TOUCH_MS, this.#idleMs / 4)) {
      // Awaited, so the next request (on any thread) sees the new time; it
      // happens at most once a minute per session. Only a stored session is
      // touched: writing back the copy read above would bring back one that
      // a sign-out deleted meanwhile.
      const touched = { ...session, lastSeenAt: now };
      try {
        if (!(await this.#store.touch(key, now))) return null;
      } catch (err) {
        // Cluster mode with PostgreSQL away: the session goes on as it was
        // (reads answer from the replica); the next request touches it again.
        if (err instanceof AppError && err.code === 'storage_unavailable') return { key, session };
        throw err;
      }
      return { key, session: touched };
    }
    return { key, session };
  }

  /** When the session ends if no further request comes (ms since the epoch). */
  expiresAt(session: ConsoleSession): number {
    return Math.min(session.lastSeenAt + this.#idleMs, session.createdAt + ABSOLUTE_MS);
  }

  delete(key: string): Promise<void> {
    return this.#store.delete(key);
  }

  /** Ends every session of a user, on every thread and node (sign out everywhere); how many there were. */
  endAll(email: string): Promise<number> {
    return this.#store.deleteOfUser(email);
  }

  #expired(s: ConsoleSession, now: number): boolean {
    return now >= this.expiresAt(s);
  }

  #sweep(now: number): void {
    if (now - this.#lastSweep < SWEEP_MS) return;
    this.#lastSweep = now;
    const expired: string[] = [];
    for (const { key, value } of this.#store.all()) if (this.#expired(value, now)) expired.push(key);
    if (expired.length > 0) this.#store.delete(...expired).catch((err: unknown) => log('warn', 'session_sweep_failed', { error: err }));
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
  return `${COOKIE}=${id}; Path=/; Max-Age=${ABSOLUTE_MS / 1000}; HttpOnly; Secure; SameSite=Strict`;
}

export const CLEAR_COOKIE = `${COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;
