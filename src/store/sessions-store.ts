// Console sessions by the SHA-256 (hex) of their cookie value: read from the
// local store, written through the back end. The rules (idle and absolute
// limits, CSRF) are console/sessions.ts's.
import type { Backend } from './backend.js';
import type { ConsoleSession, Stores } from './db.js';

export class SessionStore {
  readonly #stores: Stores;
  readonly #backend: Backend;

  constructor(stores: Stores, backend: Backend) {
    this.#stores = stores;
    this.#backend = backend;
  }

  get(hash: string): ConsoleSession | undefined {
    return this.#stores.sessions.get(hash);
  }

  /** Every session with its key, for sweeping expired ones. */
  all(): Iterable<{ key: string; value: ConsoleSession }> {
    return this.#stores.sessions.getRange();
  }

  /** False, and nothing stored, when the user's password hash is no longer `passwordHash` (backend.ts). */
  put(hash: string, session: ConsoleSession, passwordHash: string): Promise<boolean> {
    return this.#backend.putSession(hash, session, passwordHash);
  }

  /** False when the session is gone: a sign-out between reading it and this write is not undone. */
  touch(hash: string, lastSeenAt: number): Promise<boolean> {
    return this.#backend.touchSession(hash, lastSeenAt);
  }

  delete(...hashes: string[]): Promise<void> {
    return this.#backend.deleteSessions(hashes);
  }

  /** Deletes every session of a user; how many there were. */
  deleteOfUser(email: string): Promise<number> {
    return this.#backend.deleteUserSessions(email);
  }
}
