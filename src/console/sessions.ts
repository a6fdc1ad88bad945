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
 * The session id travels in two cookies, its first SPLIT characters and the
 * rest. The `__Host-` prefix makes the browser refuse such a cookie from
 * anywhere but this host, over HTTPS, for Path=/ and without Domain, so a
 * page on another host of the same site (evil.example.com beside
 * sg.example.com) can neither set one for the console, which would run the
 * victim's console in the setter's session, nor shadow it with a narrower
 * path. Two, because uWS drops the bytes above 0x7f that begin a header
 * value: a cookie the sibling names `é__Host-sg_session` (no prefix to the
 * browser, so set with Domain and a longer path, and sent first) reaches us
 * as `__Host-sg_session`. Only the first cookie of the header can lose its
 * first bytes, so a sibling gets at most one half through: every pairing of
 * the halves the header carries is tried (sessionIdsOf), and one with the
 * sibling's half names no session, while the victim's own pair still does.
 * The cookies go with every request to this host; only the console reads
 * them. The name before them (`sg_session`, Path=/console) is ignored, and
 * expires on its own.
 */
const COOKIES = ['__Host-sg_session', '__Host-sg_session_b'] as const;
const SPLIT = 22;
/** Cookies of one name read from a header (a browser sends one of each; a sibling's may add one). */
const MAX_SAME = 3;
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

  /** The live session of the first of `ids` that names one (sessionIdsOf), or null. */
  async findAny(ids: readonly string[], now = Date.now()): Promise<LiveSession | null> {
    for (const id of ids) {
      const live = await this.find(id, now);
      if (live) return live;
    }
    return null;
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

/** Spaces and tabs around a cookie's name or value (RFC 6265 OWS); nothing else, such as U+00A0 or U+FEFF, which `trim()` would also take. */
const OWS = /^[ \t]+|[ \t]+$/g;

/** The values of the first `max` cookies named exactly `name` in a Cookie header. */
function cookieValues(header: string, name: string, max: number): string[] {
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).replace(OWS, '') === name && values.push(part.slice(eq + 1).replace(OWS, '')) === max) break;
  }
  return values;
}

/** The value of the first cookie named exactly `name` in a Cookie header ('' when absent). */
export function readCookie(header: string, name: string): string {
  return cookieValues(header, name, 1)[0] ?? '';
}

/** The session ids a Cookie header can carry: every pairing of its halves (see COOKIES), at most MAX_SAME² of them. */
export function sessionIdsOf(header: string): string[] {
  const firsts = cookieValues(header, COOKIES[0], MAX_SAME).filter((v) => v.length === SPLIT);
  const rests = cookieValues(header, COOKIES[1], MAX_SAME).filter((v) => v !== '');
  return firsts.flatMap((first) => rests.map((rest) => first + rest));
}

/** Whether the header carries either session cookie (an answer that refuses it then clears them). */
export function hasSessionCookie(header: string): boolean {
  return COOKIES.some((name) => readCookie(header, name) !== '');
}

/** The Set-Cookie values that hold `id` (two: see COOKIES). */
export function sessionCookies(id: string): string[] {
  return [id.slice(0, SPLIT), id.slice(SPLIT)].map((part, i) => `${COOKIES[i]}=${part}; Path=/; Max-Age=${ABSOLUTE_MS / 1000}; HttpOnly; Secure; SameSite=Strict`);
}

export const CLEAR_COOKIES: readonly string[] = COOKIES.map((name) => `${name}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`);
