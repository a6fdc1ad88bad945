// POST /v1/conversions against the real server: click ids come from real
// redirects of a route with append_click_id (sg_cid, before the fragment,
// at most 40 URL-safe characters; none for intercepted visitors, and none
// the short link's own query brings along); a
// conversion is 202, the same visitor, route and goal again 200 duplicate
// (on the other thread too), another goal counts apart; forged, altered
// and malformed ids are 400 invalid_click_id naming click_id; another
// account's or a deleted route is 404; batches answer per entry in order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { api, inParallel, NO_RATE_LIMIT, RedirectClient, TRUST_LOOPBACK, visitorId } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let client: RedirectClient;
let otherKey: string;
const DATACENTER = '8.8.8.8'; // Google, AS15169: on the built-in blacklist at level low
const url = (k: string) => `https://${k}.example.com/landing?src=sg#offer`;
let route: { id: number; code: string };

beforeAll(async () => {
  server = await startServer({ threads: 2, env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK } });
  client = new RedirectClient(server);
  otherKey = (await runCliJson<{ api_key: string }>(['account', 'create', '--name', 'other'], server.dataDir)).api_key;
  const r = await api(server, 'POST', '/v1/routes', {
    name: 'exp', variants: [{ url: url('a'), weight: 1 }, { url: url('b'), weight: 1 }, { url: url('c'), weight: 1 }],
    append_click_id: true, intercept_level: 'low',
  });
  route = r.json;
});
afterAll(async () => {
  client?.close();
  await server?.close();
});

/** A new visit's click id and the variant its page says. */
async function click(visitor = visitorId(), query = ''): Promise<{ id: string; variant: string }> {
  const v = await client.visit(route.code, { visitor, query });
  expect(v.status).toBe(302);
  const m = /^https:\/\/([abc])\.example\.com\/landing\?src=sg(?:&[^#]*)?&sg_cid=([A-Za-z0-9_-]+)#offer$/.exec(v.location!);
  expect(m, v.location).not.toBeNull();
  return { variant: m![1], id: m![2] };
}

const convert = (body: unknown, key?: string, thread = 0) => api(server, 'POST', '/v1/conversions', body, { key, thread });

it('appends sg_cid last in the query and before the fragment, at most 40 URL-safe characters', async () => {
  const { id } = await click(visitorId(), 'utm_source=mail');
  expect(id.length).toBeLessThanOrEqual(40);
  const v = await client.visit(route.code, { visitor: visitorId(), query: 'utm_source=mail' });
  expect(v.location).toMatch(/\?src=sg&utm_source=mail&sg_cid=[A-Za-z0-9_-]{1,40}#offer$/);
});

it('drops an sg_cid the short link itself carries, however spelt, so that only the visitor\'s own reaches the page', async () => {
  // Published as /r/<code>?sg_cid=<one visitor's id>, a link credited every visitor's conversion to that visitor.
  const planted = (await click()).id;
  for (const query of [`sg_cid=${planted}&utm=x`, `utm=x&sg%5Fcid=${planted}`, `sg_cid=${planted}`]) {
    const v = await client.visit(route.code, { visitor: visitorId(), query });
    expect(v.location, query).toMatch(query.startsWith('sg_cid') && !query.includes('utm') ? /\?src=sg&sg_cid=[A-Za-z0-9_-]{1,40}#offer$/ : /\?src=sg&utm=x&sg_cid=[A-Za-z0-9_-]{1,40}#offer$/);
    expect(v.location).not.toContain(planted);
  }
  // Intercepted visitors' pages do not get it either.
  const intercepted = await client.visit(route.code, { visitor: visitorId(), forwardedFor: DATACENTER, query: `sg_cid=${planted}` });
  expect(intercepted.location).not.toContain('sg_cid');
});

it('gives intercepted visitors no click id', async () => {
  // A blacklisted data-center address (the test database's fixture) behind the trusted loopback proxy.
  const v = await client.visit(route.code, { visitor: visitorId(), forwardedFor: DATACENTER });
  expect(v.status).toBe(302);
  expect(v.location).not.toContain('sg_cid');
});

it('counts a conversion once per visitor, route and goal, on any thread', async () => {
  const visitor = visitorId();
  const first = await click(visitor);
  const r = await convert({ click_id: first.id, goal: 'signup', value: 12.5 });
  expect(r.status).toBe(202);
  expect(r.json).toEqual({ route_id: route.id, variant: first.variant, goal: 'signup', duplicate: false });
  // The same visitor's next click (another token) on the other thread: the same visitor.
  const again = await click(visitor);
  expect(again.variant).toBe(first.variant);
  const dup = await convert({ click_id: again.id, goal: 'signup' }, undefined, 1);
  expect(dup.status).toBe(200);
  expect(dup.json.duplicate).toBe(true);
  // Another goal counts on its own; the default goal is "conversion".
  const other = await convert({ click_id: first.id });
  expect(other.status).toBe(202);
  expect(other.json.goal).toBe('conversion');
});

it('counts racing duplicates exactly once', async () => {
  const { id } = await click();
  const answers = await inParallel(Array.from({ length: 40 }, (_, i) => i), 40, (i) => convert({ click_id: id, goal: 'race' }, undefined, i % 2));
  expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
  expect(answers.filter((a) => a.status === 200 && a.json.duplicate === true)).toHaveLength(39);
});

describe('refusals', () => {
  it('400 invalid_click_id for forged, altered, moved or malformed ids', async () => {
    const { id } = await click();
    const bytes = Buffer.from(id, 'base64url');
    const altered = Buffer.from(bytes);
    altered[3] ^= 1;
    const forged = Buffer.from(bytes);
    forged.fill(7, 18);
    for (const bad of [altered.toString('base64url'), forged.toString('base64url'), 'x', '', `${id}A`, 'A'.repeat(35), 42, null]) {
      const r = await convert({ click_id: bad });
      expect(r.status, String(bad)).toBe(400);
      expect(r.json).toMatchObject({ code: 'invalid_click_id', field: 'click_id' });
    }
  });

  it.each([
    [{ goal: 'signup' }, 'click_id'],
    [{ click_id: 'x', goal: 'Sign Up' }, 'goal'],
    [{ click_id: 'x', goal: '' }, 'goal'],
    [{ click_id: 'x', goal: 'g'.repeat(65) }, 'goal'],
    [{ click_id: 'x', value: '12' }, 'value'],
    [{ click_id: 'x', value: 1e13 }, 'value'],
    [{ click_id: 'x', extra: 1 }, 'extra'],
    [{ conversions: [] }, 'conversions'],
    [{ conversions: {} }, 'conversions'],
    [{ conversions: Array.from({ length: 101 }, () => ({ click_id: 'x' })) }, 'conversions'],
    [{ conversions: [{ click_id: 'x' }], more: 1 }, 'more'],
    [[1, 2], 'body'],
  ])('400 invalid_parameter for %j naming %s', async (body, field) => {
    const r = await convert(body);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'invalid_parameter', field });
  });

  it('404 for another account\'s route and for a deleted route', async () => {
    const { id } = await click();
    const other = await convert({ click_id: id }, otherKey);
    expect(other.status).toBe(404);
    expect(other.json).toMatchObject({ code: 'not_found', field: 'click_id' });
    const r = await api(server, 'POST', '/v1/routes', { name: 'gone', page_a: url('a'), page_b: url('b'), append_click_id: true, intercept_level: 'off' });
    const v = await client.visit(r.json.code, { visitor: visitorId() });
    const token = /sg_cid=([A-Za-z0-9_-]+)/.exec(v.location!)![1];
    expect((await api(server, 'DELETE', `/v1/routes/${r.json.id}`)).status).toBe(204);
    const gone = await convert({ click_id: token });
    expect(gone.status).toBe(404);
  });
});

it('takes a batch of up to 100 and answers per entry, in order', async () => {
  const clicks = await inParallel(Array.from({ length: 98 }, (_, i) => i), 16, () => click());
  const conversions = [
    ...clicks.map((c) => ({ click_id: c.id, goal: 'batch' })),
    { click_id: clicks[0].id, goal: 'batch' },
    { click_id: 'nope', goal: 'batch' },
  ];
  const r = await convert({ conversions });
  expect(r.status).toBe(200);
  expect(r.json.results).toHaveLength(100);
  clicks.forEach((c, i) => expect(r.json.results[i]).toEqual({ route_id: route.id, variant: c.variant, goal: 'batch', duplicate: false }));
  expect(r.json.results[98]).toMatchObject({ duplicate: true });
  expect(r.json.results[99]).toMatchObject({ code: 'invalid_click_id', field: 'conversions[99].click_id' });
});
