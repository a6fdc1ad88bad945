// A returning visitor keeps its page: the same sg_vid gets the same page on
// repeated requests on both threads, with no new cookie. A visitor without a
// (valid) cookie gets Set-Cookie sg_vid=<22 base64url chars>; HttpOnly;
// Secure; SameSite=Lax; Max-Age=31536000, and keeps its page when it
// presents that cookie, again on both threads.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRoute, NO_RATE_LIMIT, pageOf, RedirectClient, type RouteBody, type Visit, visitorId } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let client: RedirectClient;
let route: RouteBody;
beforeAll(async () => {
  server = await startServer({ threads: 2, env: NO_RATE_LIMIT });
  expect(server.ports).toHaveLength(2);
  client = new RedirectClient(server);
  route = await createRoute(server, { split_ratio: 0.5 });
});
afterAll(async () => {
  client?.close();
  await server?.close();
});

/** The cookie set by a visit: its value and its attributes (names lower-cased). */
function issuedCookie(v: Visit): { id: string; attributes: Map<string, string> } {
  expect(v.setCookie).toHaveLength(1);
  const [pair, ...attrs] = v.setCookie[0].split(';').map((s) => s.trim());
  const m = /^sg_vid=([A-Za-z0-9_-]*)$/.exec(pair);
  expect(m, v.setCookie[0]).not.toBeNull();
  const attributes = new Map(attrs.map((a) => {
    const [k, val = ''] = a.split('=');
    return [k.toLowerCase(), val] as [string, string];
  }));
  return { id: m![1], attributes };
}

it('keeps a visitor with a cookie on one page, on both threads', async () => {
  const seen = new Set<string>();
  for (let n = 0; n < 24; n++) {
    const visitor = visitorId();
    const pages = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const v = await client.visit(route.code, { visitor, thread: i % 2 });
      expect(v.setCookie).toEqual([]);
      pages.add(pageOf(v));
    }
    expect(pages.size).toBe(1);
    seen.add([...pages][0]);
  }
  // 24 visitors at 0.5 all on one page would mean the cookie is not what decides.
  expect(seen).toEqual(new Set(['a', 'b']));
});

it('issues a one-year HttpOnly, Secure, SameSite=Lax cookie to a new visitor, who then keeps its page', async () => {
  const pagesSeen = new Set<string>();
  const ids = new Set<string>();
  for (let n = 0; n < 16; n++) {
    const first = await client.visit(route.code, { thread: n % 2 });
    const page = pageOf(first);
    const { id, attributes } = issuedCookie(first);
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(attributes.get('max-age')).toBe('31536000');
    expect(attributes.has('httponly')).toBe(true);
    expect(attributes.has('secure')).toBe(true);
    expect(attributes.get('samesite')?.toLowerCase()).toBe('lax');
    expect(attributes.get('path')).toBe('/');
    ids.add(id);
    pagesSeen.add(page);
    for (let i = 0; i < 4; i++) {
      const again = await client.visit(route.code, { visitor: id, thread: i % 2 });
      expect(pageOf(again)).toBe(page);
      expect(again.setCookie).toEqual([]);
    }
    // Among other cookies, in any position.
    const mixed = await client.visit(route.code, { cookie: `theme=dark; sg_vid=${id}; lang=en`, thread: 1 });
    expect(pageOf(mixed)).toBe(page);
    expect(mixed.setCookie).toEqual([]);
  }
  expect(ids.size).toBe(16);
  expect(pagesSeen).toEqual(new Set(['a', 'b']));
});

it('replaces a malformed sg_vid with a new one', async () => {
  for (const cookie of ['sg_vid=short', `sg_vid=${'x'.repeat(21)}!`, `sg_vid=${'y'.repeat(23)}`, `xsg_vid=${visitorId()}`]) {
    const v = await client.visit(route.code, { cookie });
    expect(v.status).toBe(302);
    const { id } = issuedCookie(v);
    expect(id, cookie).toMatch(/^[A-Za-z0-9_-]{22}$/);
  }
});
