// Every invalid POST /v1/routes body is 400 invalid_parameter naming the
// field: missing required fields, bad names, page URLs that are not absolute
// http(s) URLs (or carry credentials, spaces, line breaks, an sg_cid, or are too long),
// out-of-range or mistyped split_ratio, unknown enum values, unknown fields
// and each read-only field. Nothing is created by a refused request; the
// limits themselves (200 characters, 2048 characters, 0 and 1) are accepted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, NO_RATE_LIMIT, PAGE_A, PAGE_B } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: NO_RATE_LIMIT });
});
afterAll(async () => {
  await server?.close();
});

const valid = { name: 'Valid', page_a: PAGE_A, page_b: PAGE_B };
const without = (k: keyof typeof valid) => Object.fromEntries(Object.entries(valid).filter(([key]) => key !== k));
const longUrl = (n: number) => `https://example.com/${'a'.repeat(n - 'https://example.com/'.length)}`;

const cases: [string, Record<string, unknown>, string][] = [
  ['name missing', without('name'), 'name'],
  ['page_a missing', without('page_a'), 'page_a'],
  ['page_b missing', without('page_b'), 'page_b'],
  ['name empty', { ...valid, name: '' }, 'name'],
  ['name only spaces', { ...valid, name: '   \t ' }, 'name'],
  ['name 201 characters', { ...valid, name: 'n'.repeat(201) }, 'name'],
  ['name 201 characters outside the BMP', { ...valid, name: '\u{1F600}'.repeat(201) }, 'name'],
  ['name not a string', { ...valid, name: 42 }, 'name'],
  ['name null', { ...valid, name: null }, 'name'],
  ['page_a javascript:', { ...valid, page_a: 'javascript:alert(1)' }, 'page_a'],
  ['page_a data:', { ...valid, page_a: 'data:text/html,<script>alert(1)</script>' }, 'page_a'],
  ['page_a ftp:', { ...valid, page_a: 'ftp://example.com/file' }, 'page_a'],
  ['page_a relative path', { ...valid, page_a: '/landing' }, 'page_a'],
  ['page_a without a scheme', { ...valid, page_a: 'example.com/landing' }, 'page_a'],
  ['page_a protocol-relative', { ...valid, page_a: '//example.com/landing' }, 'page_a'],
  // The URL parser mends these into https://example.com/; the schema says ^https?://.
  ['page_a scheme without slashes', { ...valid, page_a: 'https:example.com' }, 'page_a'],
  ['page_a scheme with backslashes', { ...valid, page_a: 'https:\\\\example.com' }, 'page_a'],
  ['page_a scheme with one slash', { ...valid, page_a: 'http:/example.com' }, 'page_a'],
  ['page_a with user and password', { ...valid, page_a: 'https://user:secret@example.com/' }, 'page_a'],
  ['page_a with a user', { ...valid, page_a: 'https://user@example.com/' }, 'page_a'],
  ['page_a 2049 characters', { ...valid, page_a: longUrl(2049) }, 'page_a'],
  ['page_a with CR LF', { ...valid, page_a: 'https://example.com/a\r\nSet-Cookie: x=1' }, 'page_a'],
  ['page_a with LF', { ...valid, page_a: 'https://example.com/a\nb' }, 'page_a'],
  ['page_a with a space', { ...valid, page_a: 'https://example.com/a b' }, 'page_a'],
  ['page_a with a tab', { ...valid, page_a: 'https://example.com/a\tb' }, 'page_a'],
  ['page_a empty', { ...valid, page_a: '' }, 'page_a'],
  ['page_a not a string', { ...valid, page_a: 7 }, 'page_a'],
  ['page_b javascript:', { ...valid, page_b: 'javascript:alert(1)' }, 'page_b'],
  ['page_b relative', { ...valid, page_b: 'b.html' }, 'page_b'],
  ['page_b with credentials', { ...valid, page_b: 'http://u:p@example.com/' }, 'page_b'],
  // The redirect appends each visitor's sg_cid; a page reads the first one.
  ['page_a carrying sg_cid', { ...valid, page_a: 'https://example.com/a?sg_cid=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, 'page_a'],
  ['page_b carrying sg%5Fcid after a parameter', { ...valid, page_b: 'https://example.com/b?src=x&sg%5Fcid=A' }, 'page_b'],
  ['a variant url carrying sg_cid', { name: 'V', variants: [{ url: PAGE_A, weight: 1 }, { url: 'https://example.com/c?sg_cid', weight: 1 }] }, 'variants[1].url'],
  ['split_ratio below 0', { ...valid, split_ratio: -0.01 }, 'split_ratio'],
  ['split_ratio above 1', { ...valid, split_ratio: 1.01 }, 'split_ratio'],
  ['split_ratio a string', { ...valid, split_ratio: '0.5' }, 'split_ratio'],
  ['split_ratio null', { ...valid, split_ratio: null }, 'split_ratio'],
  ['split_ratio a boolean', { ...valid, split_ratio: true }, 'split_ratio'],
  ['default_group "c"', { ...valid, default_group: 'c' }, 'default_group'],
  ['default_group "A"', { ...valid, default_group: 'A' }, 'default_group'],
  ['intercept_level "max"', { ...valid, intercept_level: 'max' }, 'intercept_level'],
  ['intercept_level a number', { ...valid, intercept_level: 2 }, 'intercept_level'],
  ['an unknown field', { ...valid, colour: 'blue' }, 'colour'],
  ['read-only id', { ...valid, id: 5 }, 'id'],
  ['read-only code', { ...valid, code: 'abcdEFGH' }, 'code'],
  ['read-only short_url', { ...valid, short_url: 'https://localhost/r/abcdEFGH' }, 'short_url'],
  ['read-only status', { ...valid, status: 'active' }, 'status'],
  ['read-only created_at', { ...valid, created_at: '2026-01-01T00:00:00.000Z' }, 'created_at'],
  ['read-only updated_at', { ...valid, updated_at: '2026-01-01T00:00:00.000Z' }, 'updated_at'],
];

describe('refused bodies', () => {
  it.each(cases)('%s → 400 naming the field', async (_label, body, field) => {
    const r = await api(server, 'POST', '/v1/routes', body);
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('invalid_parameter');
    expect(r.json.field).toBe(field);
    expect(typeof r.json.error).toBe('string');
    expect(r.json.error).toContain(field);
  });

  it('a body that is not an object → 400 naming body', async () => {
    for (const body of [[valid], 'route', 12, null]) {
      const r = await api(server, 'POST', '/v1/routes', body);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ code: 'invalid_parameter', field: 'body' });
    }
  });

  it('none of the refused requests created a route', async () => {
    const list = await api(server, 'GET', '/v1/routes');
    expect(list.status).toBe(200);
    expect(list.json.pagination.total).toBe(0);
    const account = await api(server, 'GET', '/v1/account');
    expect(account.json.routes_created).toBe(0);
  });
});

it('accepts the limits: 200 characters after trimming, 2048-character URLs, ratios 0 and 1', async () => {
  const a = await api(server, 'POST', '/v1/routes', { ...valid, name: `  ${'n'.repeat(200)}  `, page_a: longUrl(2048), split_ratio: 0 });
  expect(a.status).toBe(201);
  expect(a.json.name).toBe('n'.repeat(200));
  expect(a.json.page_a).toBe(longUrl(2048));
  expect(a.json.split_ratio).toBe(0);
  const b = await api(server, 'POST', '/v1/routes', { ...valid, name: 'x', split_ratio: 1, default_group: 'b', intercept_level: 'low' });
  expect(b.status).toBe(201);
  expect(b.json).toMatchObject({ name: 'x', split_ratio: 1, default_group: 'b', intercept_level: 'low' });
  // 200 characters outside the BMP are 400 UTF-16 units: characters count (they were refused).
  const c = await api(server, 'POST', '/v1/routes', { ...valid, name: '\u{1F600}'.repeat(200) });
  expect(c.status, c.body).toBe(201);
});

it('accepts page parameters that only resemble the click id, and one in the fragment', async () => {
  const page = 'https://example.com/a?sg_cid2=1&xsg_cid=2&src=sg_cid#sg_cid=3';
  const r = await api(server, 'POST', '/v1/routes', { ...valid, page_a: page });
  expect(r.status, r.body).toBe(201);
  expect(r.json.page_a).toBe(page);
});
