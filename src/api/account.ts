// GET /v1/account: the authenticated account, its quota and usage.
import type { Account } from '../store/db.js';
import type { Router } from '../http/router.js';

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

export function registerAccountRoutes(router: Router): void {
  router.add('GET', '/v1/account', (req) => ({ status: 200, body: accountView(req.account) }));
}
