// GET /v1/account: the authenticated account, its quotas and usage.
// PUT /v1/account: rename it ({"name": ...}); quotas are the operators' (console, CLI).
// Both answer with usageView: accountView (the account record, which the
// console's session and accounts list show too) and the conversions it
// stores against SPLITGUARD_CONVERSION_QUOTA, read from the store that
// counts them (store/experiments-store.ts).
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

/** The account with its conversions: `conversions_stored` null only when the count cannot be read now (cluster mode, PostgreSQL away); `conversion_quota` null: no limit. */
async function usageView(storage: Storage, a: Account) {
  const limit = storage.experiments.conversionQuota;
  return { ...accountView(a), conversions_stored: await storage.experiments.storedConversions(a.id), conversion_quota: limit === 0 ? null : limit };
}

export function registerAccountEndpoints(table: EndpointTable, storage: Storage): void {
  table.add('GET', '/v1/account', async (req) => ({ status: 200, body: await usageView(storage, req.account) }));
  table.add('PUT', '/v1/account', async (req) => {
    const body = objectBody(req.body, ['name'], ['id', 'quota', 'routes_created', 'quota_remaining', 'conversions_stored', 'conversion_quota', 'created_at']);
    const name = stringField(body.name, 'name', 1, 200);
    const updated = await storage.accounts.update(req.account.id, { name });
    if (!updated) throw new AppError('not_found', `account ${req.account.id} does not exist`);
    return { status: 200, body: await usageView(storage, updated) };
  });
}
