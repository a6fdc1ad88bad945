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

/** Creates the first user and account when the store has no user; returns the secrets, or null. */
export async function bootstrap(storage: Storage, dataDir: string): Promise<BootstrapSecrets | null> {
  if (storage.users.list().length > 0) return null;
  const account = await storage.accounts.create('default', undefined, true);
  const { token } = await storage.keys.create(account.id, 'bootstrap', true);
  const password = randomBytes(18).toString('base64url');
  const user = await storage.users.create('admin@localhost', password, true, account.id);
  const secrets: BootstrapSecrets = { admin_email: user.email, admin_password: password, account_id: account.id, api_key: token };
  const file = path.join(dataDir, 'bootstrap.json');
  writeFileDurably(file, `${JSON.stringify(secrets, null, 2)}\n`, 0o600);
  return secrets;
}
