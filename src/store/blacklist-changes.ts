// The operator's changes to the ASN blacklist, by ASN (quality/blacklist-store.ts
// validates them and merges them with the built-in entries): read from the
// local store, written through the back end.
import type { Backend } from './backend.js';
import type { BlacklistChange, BlacklistEdit, Stores } from './db.js';

export class BlacklistChanges {
  readonly #stores: Stores;
  readonly #backend: Backend;

  constructor(stores: Stores, backend: Backend) {
    this.#stores = stores;
    this.#backend = backend;
  }

  get(asn: number): BlacklistChange | undefined {
    return this.#stores.blacklist.get(asn);
  }

  all(): BlacklistChange[] {
    return [...this.#stores.blacklist.getRange().map(({ value }) => value)];
  }

  /** False when the ASN already has an entry. */
  add(change: BlacklistChange): Promise<boolean> {
    return this.#backend.addBlacklistEntry(change);
  }

  /** The entry as written, or null when the ASN has none and `seed` is null (Backend.setBlacklistEnabled). */
  setEnabled(asn: number, edit: BlacklistEdit, seed: BlacklistChange | null): Promise<BlacklistChange | null> {
    return this.#backend.setBlacklistEnabled(asn, edit, seed);
  }

  /** False when the ASN has no entry. */
  remove(asn: number): Promise<boolean> {
    return this.#backend.removeBlacklistEntry(asn);
  }
}
