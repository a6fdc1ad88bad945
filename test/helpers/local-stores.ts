// A local store (the LMDB of a data directory) in a temporary directory, for
// unit tests of what reads and writes it: opened before the file's tests,
// closed and removed after them.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Accounts, NEVER_MATCHING_PASSWORD_HASH } from '../../src/store/accounts-store.js';
import { openStores, type Stores } from '../../src/store/db.js';
import { LmdbBackend } from '../../src/store/lmdb-backend.js';
import { Routes } from '../../src/store/routes-store.js';

export function useLocalStores(prefix: string): { readonly stores: Stores } {
  let dir: string | undefined;
  let stores: Stores | undefined;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    stores = openStores(dir);
  });
  afterAll(async () => {
    await stores?.root.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get stores() {
      return stores!;
    },
  };
}

/**
 * useLocalStores with the single node's back end and the account and route
 * repositories over it, made once the store is open (read the getters in
 * hooks and tests).
 */
export function useLocalRepositories(prefix: string): { readonly stores: Stores; readonly backend: LmdbBackend; readonly accounts: Accounts; readonly routes: Routes } {
  const local = useLocalStores(prefix);
  let made: { backend: LmdbBackend; accounts: Accounts; routes: Routes } | undefined;
  beforeAll(() => {
    const backend = new LmdbBackend(local.stores);
    made = { backend, accounts: new Accounts(local.stores, backend), routes: new Routes(local.stores, backend) };
  });
  return {
    get stores() {
      return local.stores;
    },
    get backend() {
      return made!.backend;
    },
    get accounts() {
      return made!.accounts;
    },
    get routes() {
      return made!.routes;
    },
  };
}

/**
 * A console user stored directly (no password checked): what Sessions.create
 * takes, the user whose password was just checked. The hash matches no password.
 */
export function storedUser(stores: Stores, email: string): { email: string; passwordHash: string } {
  const passwordHash = NEVER_MATCHING_PASSWORD_HASH;
  stores.users.putSync(email, { email, passwordHash, admin: false, accountId: 1, createdAt: new Date(0).toISOString() });
  return { email, passwordHash };
}
