// Variants on routes (contract §10): a route takes 2-8 {url, weight}, keyed
// a … h in order, and always answers both forms (page_a = a, page_b = b,
// split_ratio only with exactly two variants). Bad lists are 400 naming the
// field; a PUT with variants replaces the list; default_group may name any
// existing key; split_ratio on a route of three variants is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: NO_RATE_LIMIT });
});
afterAll(async () => {
  await server?.close();
});

const url = (k: string) => `https://${k}.example.com/landing`;
const three = [{ url: url('a'), weight: 40 }, { url: url('b'), weight: 30 }, { url: url('c'), weight: 30 }];

it('creates a route of three variants and answers both forms', async () => {
  const r = await api(server, 'POST', '/v1/routes', { name: 'three', variants: three, default_group: 'c', append_click_id: true });
  expect(r.status).toBe(201);
  expect(r.json).toMatchObject({
    page_a: url('a'),
    page_b: url('b'),
    split_ratio: null,
    default_group: 'c',
    append_click_id: true,
    variants: [{ key: 'a', url: url('a'), weight: 40 }, { key: 'b', url: url('b'), weight: 30 }, { key: 'c', url: url('c'), weight: 30 }],
  });
  const got = await api(server, 'GET', `/v1/routes/${r.json.id}`);
  expect(got.json.variants).toEqual(r.json.variants);
});

it('keys eight variants a to h, in the order sent, and names the eighth as a default', async () => {
  const eight = Array.from({ length: 8 }, (_, i) => ({ url: url(`v${i}`), weight: i + 1 }));
  const r = await api(server, 'POST', '/v1/routes', { name: 'eight', variants: eight, default_group: 'h' });
  expect(r.status, r.body).toBe(201);
  expect(r.json.variants).toEqual(eight.map((v, i) => ({ key: 'abcdefgh'[i], ...v })));
  expect(r.json.default_group).toBe('h');
});

it('a two-variant list gives split_ratio = weight(a) / (weight(a) + weight(b)); keys may be sent if they match', async () => {
  const r = await api(server, 'POST', '/v1/routes', { name: 'two', variants: [{ key: 'a', url: url('a'), weight: 1 }, { url: url('b'), weight: 3 }] });
  expect(r.status).toBe(201);
  expect(r.json.split_ratio).toBe(0.25);
  // And the old form still gives its variants.
  const old = await api(server, 'POST', '/v1/routes', { name: 'old', page_a: url('a'), page_b: url('b'), split_ratio: 0.3 });
  expect(old.json.variants).toEqual([{ key: 'a', url: url('a'), weight: 0.3 }, { key: 'b', url: url('b'), weight: 0.7 }]);
  // b's weight is 1 − split_ratio as written, not its binary remainder (1 − 0.8 = 0.19999999999999996).
  for (const [ratio, rest] of [[0.8, 0.2], [0.9, 0.1], [0.7, 0.3]]) {
    const changed = await api(server, 'PUT', `/v1/routes/${old.json.id}`, { split_ratio: ratio });
    expect(changed.json.variants.map((v: { weight: number }) => v.weight)).toEqual([ratio, rest]);
    expect(changed.json.split_ratio).toBe(ratio);
  }
  // A ratio of more digits than a person writes is answered exactly as sent.
  for (const ratio of [1 / 3, 0.5714285714285714, 0.123456789012345]) {
    const changed = await api(server, 'PUT', `/v1/routes/${old.json.id}`, { split_ratio: ratio });
    expect(changed.json.split_ratio).toBe(ratio);
  }
  expect(old.json.append_click_id).toBe(false);
});

describe('400 naming the field', () => {
  const nine = Array.from({ length: 9 }, (_, i) => ({ url: url(String(i)), weight: 1 }));
  it.each([
    [{ variants: three, page_a: url('x') }, 'variants'],
    [{ variants: three, split_ratio: 0.5 }, 'variants'],
    [{ variants: [three[0]] }, 'variants'],
    [{ variants: nine }, 'variants'],
    [{ variants: 'a,b' }, 'variants'],
    [{ variants: [three[0], { url: 'javascript:alert(1)', weight: 1 }] }, 'variants[1].url'],
    [{ variants: [three[0], { weight: 1 }] }, 'variants[1].url'],
    [{ variants: [{ key: 'b', url: url('a'), weight: 1 }, three[1]] }, 'variants[0].key'],
    [{ variants: [three[0], three[1], { url: url('c'), weight: -1 }] }, 'variants[2].weight'],
    [{ variants: [three[0], { url: url('b'), weight: '5' }] }, 'variants[1].weight'],
    [{ variants: [three[0], { url: url('b'), weight: 1, colour: 'red' }] }, 'variants[1].colour'],
    [{ variants: [three[0], 7] }, 'variants[1]'],
    [{ variants: [{ url: url('a'), weight: 0 }, { url: url('b'), weight: 0 }] }, 'variants'],
    [{ variants: three, default_group: 'd' }, 'default_group'],
    [{ page_a: url('a'), page_b: url('b'), default_group: 'c' }, 'default_group'],
    [{ page_a: url('a'), page_b: url('b'), default_group: 'z' }, 'default_group'],
    [{ page_a: url('a'), page_b: url('b'), append_click_id: 'yes' }, 'append_click_id'],
    [{ page_a: url('a') }, 'page_b'],
  ])('POST %j → %s', async (body, field) => {
    const r = await api(server, 'POST', '/v1/routes', { name: 'bad', ...body });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('invalid_parameter');
    expect(r.json.field).toBe(field);
  });
});

describe('updates', () => {
  it('a PUT with variants replaces the list; page_a and page_b edit a and b of a longer list', async () => {
    const r = await api(server, 'POST', '/v1/routes', { name: 'grow', page_a: url('a'), page_b: url('b') });
    const id = r.json.id as number;
    const put = await api(server, 'PUT', `/v1/routes/${id}`, { variants: three, default_group: 'c' });
    expect(put.status).toBe(200);
    expect(put.json.variants.map((v: { key: string }) => v.key)).toEqual(['a', 'b', 'c']);
    expect(put.json.split_ratio).toBeNull();
    const page = await api(server, 'PUT', `/v1/routes/${id}`, { page_b: url('bb') });
    expect(page.json.variants[1]).toEqual({ key: 'b', url: url('bb'), weight: 30 });
    expect(page.json.page_b).toBe(url('bb'));
  });

  it('split_ratio on a route of three variants, or a shorter list that drops the default group, is 400 and changes nothing', async () => {
    const r = await api(server, 'POST', '/v1/routes', { name: 'three', variants: three, default_group: 'c' });
    const id = r.json.id as number;
    const ratio = await api(server, 'PUT', `/v1/routes/${id}`, { split_ratio: 0.5 });
    expect(ratio.status).toBe(400);
    expect(ratio.json.field).toBe('split_ratio');
    const shorter = await api(server, 'PUT', `/v1/routes/${id}`, { variants: three.slice(0, 2) });
    expect(shorter.status).toBe(400);
    expect(shorter.json.field).toBe('default_group');
    const after = await api(server, 'GET', `/v1/routes/${id}`);
    expect(after.json.variants).toHaveLength(3);
    expect(after.json.updated_at).toBe(r.json.updated_at);
    // With the default group moved in the same body it is accepted.
    const ok = await api(server, 'PUT', `/v1/routes/${id}`, { variants: three.slice(0, 2), default_group: 'b' });
    expect(ok.status).toBe(200);
    expect(ok.json.split_ratio).toBeCloseTo(40 / 70, 12);
  });
});
