// The console's own endpoints, registered in an EndpointTable like the /v1 ones and
// called with the session's account (see server.ts):
//   GET    /console/api/keys              the account's API keys (never the secrets)
//   POST   /console/api/keys              {"name"} → the key, with its secret shown this once
//   POST   /console/api/keys/:id/reset    a new secret under the same name; the old one stops at once
//   DELETE /console/api/keys/:id          revoke
//   GET    /console/api/accounts          admins: every account with its quota, usage and logins
//   PUT    /console/api/accounts/:id      admins: {"quota"}
// Everything else the console shows comes from the /v1 handlers themselves.
import { accountView } from '../api/account.js';
import { objectBody, stringField } from '../api/validate.js';
import { AppError, invalidParameter } from '../errors.js';
import type { ApiRequest, EndpointTable } from '../http/endpoint-table.js';
import { MAX_QUOTA } from '../store/accounts-store.js';
import { type Account, type ApiKey, parseId } from '../store/db.js';
import type { Storage } from '../store/storage.js';

/** A key as the console shows it; `used` is this thread's unflushed last use (ms), if any. */
function keyView(k: ApiKey, used: number | undefined) {
  const lastUsed = used !== undefined && (!k.lastUsedAt || Date.parse(k.lastUsedAt) < used) ? new Date(used).toISOString() : k.lastUsedAt;
  return { id: k.id, name: k.name, prefix: k.prefix, created_at: k.createdAt, last_used_at: lastUsed, revoked_at: k.revokedAt };
}

function adminAccountView(a: Account, users: { email: string; admin: boolean }[]) {
  return { ...accountView(a), admin: Boolean(a.admin), users };
}

/**
 * `keyUse` is the thread's map of key hash → last use (ms) not yet written
 * to storage (http/api-endpoint.ts fills it, server.worker.ts flushes it every 30 s).
 */
export function registerConsoleEndpoints(table: EndpointTable, storage: Storage, keyUse: Map<string, number>): void {
  const { accounts, keys, users } = storage;
  const ownKey = (req: ApiRequest): ApiKey => {
    const key = keys.byId(req.params.id);
    if (!key || key.accountId !== req.account.id) throw new AppError('not_found', `key ${req.params.id} does not exist`, 'id');
    return key;
  };
  const view = (k: ApiKey) => keyView(k, keyUse.get(k.hash));

  table.add('GET', '/console/api/keys', (req) => ({ status: 200, body: { data: keys.list(req.account.id).map(view) } }));

  table.add('POST', '/console/api/keys', async (req) => {
    const body = objectBody(req.body, ['name']);
    const name = stringField(body.name, 'name', 1, 100);
    // The key carries the rights of the user who makes it, never more.
    const { token, key } = await keys.create(req.account.id, name, req.admin);
    return { status: 201, body: { ...view(key), api_key: token } };
  });

  table.add(
    'POST',
    '/console/api/keys/:id/reset',
    async (req) => {
      const old = ownKey(req);
      // Like a new key, the replacement carries no more than the resetting user's rights.
      // Undefined: revoked, before or by a reset racing this one (which made the one replacement).
      const fresh = old.revokedAt ? undefined : await keys.reset(old.id, req.admin);
      if (!fresh) throw invalidParameter('id', 'is a revoked key; create a new key instead');
      return { status: 200, body: { ...view(fresh.key), api_key: fresh.token, replaces: old.id } };
    },
    { body: false },
  );

  table.add('DELETE', '/console/api/keys/:id', async (req) => {
    const key = ownKey(req);
    return { status: 200, body: view((await keys.revoke(key.id)) ?? key) };
  });

  table.add('GET', '/console/api/accounts', () => {
    const byAccount = new Map<number, { email: string; admin: boolean }[]>();
    for (const u of users.list()) {
      const list = byAccount.get(u.accountId) ?? [];
      list.push({ email: u.email, admin: u.admin });
      byAccount.set(u.accountId, list);
    }
    return { status: 200, body: { data: accounts.list().map((a) => adminAccountView(a, byAccount.get(a.id) ?? [])) } };
  }, { admin: true });

  table.add('PUT', '/console/api/accounts/:id', async (req) => {
    const id = parseId(req.params.id);
    if (id === 0) throw invalidParameter('id', 'must be a positive integer');
    const body = objectBody(req.body, ['quota'], ['id', 'name', 'routes_created', 'quota_remaining', 'created_at', 'admin', 'users']);
    const quota = body.quota;
    if (typeof quota !== 'number' || !Number.isInteger(quota) || quota < 0 || quota > MAX_QUOTA) {
      throw invalidParameter('quota', `must be an integer from 0 to ${MAX_QUOTA}`);
    }
    const updated = await accounts.update(id, { quota });
    if (!updated) throw new AppError('not_found', `account ${id} does not exist`, 'id');
    const logins = users.list().filter((u) => u.accountId === id).map((u) => ({ email: u.email, admin: u.admin }));
    return { status: 200, body: adminAccountView(updated, logins) };
  }, { admin: true });
}
