// First start: an admin login and a default account with an API key, shown
// once and kept in <data dir>/bootstrap.json (mode 0600) for the operator.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { writeFileDurably } from './durable-file.js';
import { createAccount, createKey, createUser } from './store/accounts-store.js';
import type { Stores } from './store/db.js';

export interface BootstrapSecrets {
  admin_email: string;
  admin_password: string;
  account_id: number;
  api_key: string;
}

/** Creates the first user and account when the store has no user; returns the secrets, or null. */
export function bootstrap(stores: Stores, dataDir: string): BootstrapSecrets | null {
  if (stores.users.getKeysCount() > 0) return null;
  const account = createAccount(stores, 'default', undefined, true);
  const { token } = createKey(stores, account.id, 'bootstrap', true);
  const password = randomBytes(18).toString('base64url');
  const user = createUser(stores, 'admin@localhost', password, true, account.id);
  const secrets: BootstrapSecrets = { admin_email: user.email, admin_password: password, account_id: account.id, api_key: token };
  const file = path.join(dataDir, 'bootstrap.json');
  writeFileDurably(file, `${JSON.stringify(secrets, null, 2)}\n`, 0o600);
  return secrets;
}
