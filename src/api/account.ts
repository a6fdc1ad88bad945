// GET /v1/account: the authenticated account, its quota and usage.
// PUT /v1/account: rename it ({"name": ...}); quotas are the operators' (console, CLI).
import { AppError } from '../errors.js';
import type { EndpointTable } from '../http/endpoint-table.js';
import type { Account } from '../store/db.js';
import type { Storage } from '../store/storage.js';
import { objectBody, stringField } from './validate.js';

export function accountView(a: Account) {
  return {
    id: a.id,
    name: a.name,
    quota: a.quota,
    routes_created: a.routesCreated,
    quota_remaining: Math.max(0, a.quota - a.routesCreated),
    created_at: a.createdAt,
  };
}

export function registerAccountEndpoints(table: EndpointTable, storage: Storage): void {
  table.add('GET', '/v1/account', (req) => ({ status: 200, body: accountView(req.account) }));
  table.add('PUT', '/v1/account', async (req) => {
    const body = objectBody(req.body, ['name'], ['id', 'quota', 'routes_created', 'quota_remaining', 'created_at']);
    const name = stringField(body.name, 'name', 1, 200);
    const updated = await storage.accounts.update(req.account.id, { name });
    if (!updated) throw new AppError('not_found', `account ${req.account.id} does not exist`);
    return { status: 200, body: accountView(updated) };
  });
}
