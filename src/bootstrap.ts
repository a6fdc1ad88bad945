// First start: an admin login and a default account with an API key, shown
// once and kept in <data dir>/bootstrap.json (mode 0600) for the operator.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { writeFileDurably } from './durable-file.js';
import type { Storage } from './store/storage.js';

export interface BootstrapSecrets {
  admin_email: string;
  admin_password: string;
  account_id: number;
  api_key: string;
}

/**
 * Creates the first user and account when the store has no user; returns the
 * secrets, or null, and why bootstrap.json could not be written (null when it
 * was). The store has them by then and a later start makes none: the caller
 * must show them whatever happened to the file.
 */
export async function bootstrap(storage: Storage, dataDir: string): Promise<{ secrets: BootstrapSecrets; fileError: string | null } | null> {
  if (storage.users.list().length > 0) return null;
  const account = await storage.accounts.create('default', undefined, true);
  const { token } = await storage.keys.create(account.id, 'bootstrap', true);
  const password = randomBytes(18).toString('base64url');
  const user = await storage.users.create('admin@localhost', password, true, account.id);
  const secrets: BootstrapSecrets = { admin_email: user.email, admin_password: password, account_id: account.id, api_key: token };
  const file = path.join(dataDir, 'bootstrap.json');
  try {
    writeFileDurably(file, `${JSON.stringify(secrets, null, 2)}\n`, 0o600);
    return { secrets, fileError: null };
  } catch (err) {
    return { secrets, fileError: (err as Error).message };
  }
}
