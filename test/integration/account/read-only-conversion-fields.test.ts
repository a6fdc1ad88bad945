// PUT /v1/account refuses conversions_stored and conversion_quota as
// read-only, as it does quota and routes_created: 400 invalid_parameter
// naming the field, "<field> is read-only", nothing changed. Before, they
// were unknown fields ("is not a known field").
import { expect, it } from 'vitest';
import { expectReply } from '../../helpers/openapi.js';
import { api, useRedirectServer } from '../../helpers/routes.js';

const sg = useRedirectServer({ threads: 1 });

it.each([
  [{ name: 'x', conversions_stored: 0 }, 'conversions_stored'],
  [{ conversion_quota: null }, 'conversion_quota'],
])('%j is 400 naming %s as read-only', async (body, field) => {
  const r = await api(sg.server, 'PUT', '/v1/account', body);
  expectReply(r, '/v1/account', 'PUT', 400, { code: 'invalid_parameter', field });
  expect(r.json.error).toBe(`${field} is read-only`);
  expect((await api(sg.server, 'GET', '/v1/account')).json.name).toBe('default');
});
