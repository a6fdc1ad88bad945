// The redirect's Location is only ever a page the route's owner configured,
// with the short link's own query merged in, and nothing can break out of the
// header: CR, LF and other control characters are refused in stored URLs
// (the URL parser would silently drop them), encoded ones (%0d%0a) stay
// encoded, and a short link's query with encoded CR/LF is copied as it came,
// still encoded. Raw CR/LF in a request line never reach a handler. The
// answers are read as raw bytes, so a header break would be seen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, type Response } from '../../helpers/client.js';
import { header, rawRequest, type RawAnswer } from '../../helpers/raw-http.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ threads: 2, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: '100000' } });
});
afterAll(async () => {
  await server?.close();
});

let turn = 0;
function api(method: string, path: string, json?: unknown): Promise<Response> {
  return request({ port: server.ports[turn++ % 2], ca: server.ca, method, path, key: server.apiKey, json });
}

/** A route that sends everyone to page_a (split 1, no interception). */
async function routeTo(pageA: string): Promise<{ id: number; code: string; page_a: string }> {
  const r = await api('POST', '/v1/routes', { name: 'location', page_a: pageA, page_b: 'https://b.example.com/', split_ratio: 1, intercept_level: 'off' });
  expect(r.status, r.body).toBe(201);
  return r.json;
}

function visit(path: string, extra = '', timeoutMs = 5000): Promise<RawAnswer> {
  return rawRequest(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n${extra}\r\n`, { port: server.ports[turn++ % 2], ca: server.ca, timeoutMs });
}

/** The answer is one clean 302: known headers only, Location exactly `expected`. */
function expectRedirect(a: RawAnswer, expected: string): void {
  expect(a.outcome, a.raw).toBe('answered');
  expect(a.status, a.raw).toBe(302);
  expect(header(a, 'Location')).toBe(expected);
  const names = a.headers.map(([n]) => n.toLowerCase()).sort();
  for (const n of names) expect(['cache-control', 'content-length', 'content-type', 'date', 'location', 'set-cookie', 'strict-transport-security', 'uwebsockets'], a.raw).toContain(n);
  for (const [n, v] of a.headers) {
    expect(v, `${n} carries a control character`).not.toMatch(/[\u0000-\u001f\u007f]/);
    if (n.toLowerCase() === 'set-cookie') expect(v).toMatch(/^sg_vid=[A-Za-z0-9_-]+; /);
  }
  expect(a.body).toBe('Found\n');
}

describe('stored page URLs', () => {
  it.each([
    ['CR LF', 'https://a.example.com/x\r\nSet-Cookie: evil=1'],
    ['LF', 'https://a.example.com/x\nLocation: https://evil.example/'],
    ['CR', 'https://a.example.com/x\rSet-Cookie: evil=1'],
    ['CR LF in the host', 'https://a.example.com\r\n.evil.example/'],
    ['CR LF in the query', 'https://a.example.com/x?q=1\r\nSet-Cookie: evil=1'],
    ['a tab', 'https://a.example.com/x\tb'],
    ['NUL', 'https://a.example.com/x\u0000b'],
    ['DEL', 'https://a.example.com/x\u007fb'],
    ['a space', 'https://a.example.com/x y'],
    ['a vertical tab', 'https://a.example.com/x\u000bb'],
  ])('with %s are refused, on create and on update, naming the field', async (_label, url) => {
    for (const field of ['page_a', 'page_b']) {
      const body = { name: 'x', page_a: 'https://a.example.com/', page_b: 'https://b.example.com/', [field]: url };
      const created = await api('POST', '/v1/routes', body);
      expect(created.status, created.body).toBe(400);
      expect(created.json).toMatchObject({ code: 'invalid_parameter', field });
    }
    const route = await routeTo('https://a.example.com/ok');
    const updated = await api('PUT', `/v1/routes/${route.id}`, { page_a: url });
    expect(updated.status).toBe(400);
    expect(updated.json).toMatchObject({ code: 'invalid_parameter', field: 'page_a' });
    expectRedirect(await visit(`/r/${route.code}`), 'https://a.example.com/ok');
  });

  it.each([
    ['javascript:', 'javascript:alert(document.cookie)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['protocol-relative', '//evil.example/'],
    ['relative', '/r/elsewhere'],
    ['credentials', 'https://user:secret@a.example.com/'],
  ])('%s URLs are refused', async (_label, url) => {
    const r = await api('POST', '/v1/routes', { name: 'x', page_a: url, page_b: 'https://b.example.com/' });
    expect(r.status).toBe(400);
    expect(r.json.field).toBe('page_a');
  });

  it('with encoded CR LF (%0d%0a) are kept encoded: Location is exactly the stored URL', async () => {
    const route = await routeTo('https://a.example.com/p%0d%0aSet-Cookie:%20evil=1?next=%0D%0ALocation:%20https://evil.example/');
    expect(route.page_a).toBe('https://a.example.com/p%0d%0aSet-Cookie:%20evil=1?next=%0D%0ALocation:%20https://evil.example/');
    expectRedirect(await visit(`/r/${route.code}`), route.page_a);
  });

  it('with non-ASCII characters are stored percent-encoded, so the header stays ASCII', async () => {
    const route = await routeTo('https://a.example.com/caf\u00e9/\u2028?q=\u00fc');
    expect(route.page_a).toBe('https://a.example.com/caf%C3%A9/%E2%80%A8?q=%C3%BC');
    const a = await visit(`/r/${route.code}`);
    expectRedirect(a, route.page_a);
    expect(a.raw).toMatch(/^[\x20-\x7e\r\n]*$/);
  });
});

describe('the short link\'s query string', () => {
  let route: { id: number; code: string; page_a: string };
  beforeAll(async () => {
    route = await routeTo('https://a.example.com/landing?src=link#top');
  });

  it.each([
    'x=%0d%0aSet-Cookie:%20evil=1',
    'x=%0D%0A%0D%0A<html>',
    'a=%0a&b=%0d&c=%00&d=%7f',
    'redirect=https%3A%2F%2Fevil.example%2F',
    'utm_source=news&utm_medium=email',
  ])('?%s is merged as it came, still encoded', async (query) => {
    expectRedirect(await visit(`/r/${route.code}?${query}`), `https://a.example.com/landing?src=link&${query}#top`);
  });

  it('without a query, Location is the stored URL itself', async () => {
    expectRedirect(await visit(`/r/${route.code}`), route.page_a);
  });

  it.each([
    ['LF', 'x=a\nSet-Cookie: evil=1'],
    ['CR', 'x=a\rSet-Cookie: evil=1'],
    ['CR LF', 'x=a\r\nSet-Cookie: evil=1'],
    ['NUL', 'x=a\u0000b'],
  ])('raw %s in the request line: no response header is ever split', async (_label, query) => {
    const a = await visit(`/r/${route.code}?${query}`, '', 1500);
    // uWebSockets.js refuses the request line (no answer, then the
    // connection closes); whatever happens, no Set-Cookie: evil and no
    // second Location ever comes back.
    expect(a.raw).not.toMatch(/evil/);
    if (a.outcome === 'answered') expect(a.status).toBeGreaterThanOrEqual(400);
  });

  it('the Host header and X-Forwarded-Host have no say in Location', async () => {
    const a = await rawRequest(`GET /r/${route.code}?x=1 HTTP/1.1\r\nHost: evil.example\r\nX-Forwarded-Host: evil.example\r\nX-Forwarded-Proto: http\r\n\r\n`, {
      port: server.ports[0],
      ca: server.ca,
    });
    expectRedirect(a, 'https://a.example.com/landing?src=link&x=1#top');
  });
});

it('after 200 visits with assorted queries and cookies, every Location was one of the two configured pages', async () => {
  const r = await api('POST', '/v1/routes', { name: 'split', page_a: 'https://a.example.com/A', page_b: 'https://b.example.com/B', split_ratio: 0.5, intercept_level: 'off' });
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const query = i % 3 === 0 ? '' : `?i=${i}&v=%0d%0a${i}`;
    const a = await visit(`/r/${r.json.code}${query}`, i % 2 ? `Cookie: sg_vid=visitor${i}\r\n` : '');
    expect(a.status).toBe(302);
    const location = header(a, 'Location');
    const base = location.split('?')[0];
    expect(['https://a.example.com/A', 'https://b.example.com/B']).toContain(base);
    expect(location).toBe(`${base}${query}`);
    seen.add(base);
  }
  expect(seen.size).toBe(2);
});
