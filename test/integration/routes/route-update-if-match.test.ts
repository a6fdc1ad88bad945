// PUT /v1/routes/<id> with If-Match: a client that read a route sends its
// ETag back, and an update made by someone else since then is not
// overwritten: the stale update is 412 precondition_failed naming If-Match
// and changes nothing; so is a DELETE. Every If-Match line counts, not only
// the first. Many clients racing with the same tag: exactly one
// wins. A route's ETag is its updated_at, which every update moves forward,
// however fast they come. Without If-Match an update is unconditional, as
// before.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request, type Response } from '../../helpers/client.js';
import { createRoute, NO_RATE_LIMIT, type RouteBody } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: NO_RATE_LIMIT, threads: 2 });
});
afterAll(async () => {
  await server?.close();
});

const put = (id: number, json: unknown, ifMatch?: string, thread = 0): Promise<Response> =>
  request({ port: server.ports[thread], ca: server.ca, method: 'PUT', path: `/v1/routes/${id}`, key: server.apiKey, json, headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch } });
const get = (id: number) => request({ port: server.ports[0], ca: server.ca, method: 'GET', path: `/v1/routes/${id}`, key: server.apiKey });
const tagOf = (r: { updated_at: string }) => `"${r.updated_at}"`;

it('answers ETag on create, detail and update, and refuses a stale If-Match without changing anything', async () => {
  const created = await request({
    port: server.ports[0], ca: server.ca, method: 'POST', path: '/v1/routes', key: server.apiKey,
    json: { name: 'tagged', page_a: 'https://a.example.com/', page_b: 'https://b.example.com/' },
  });
  expect(created.status).toBe(201);
  expect(created.headers.etag).toBe(tagOf(created.json));
  const read = await get(created.json.id);
  expect(read.headers.etag).toBe(tagOf(created.json));

  // Someone else's edit lands after our read.
  const theirs = await put(created.json.id, { name: 'their edit', variants: [{ url: 'https://a.example.com/', weight: 1 }, { url: 'https://b.example.com/', weight: 1 }, { url: 'https://c.example.com/', weight: 1 }] });
  expect(theirs.status).toBe(200);
  expect(theirs.headers.etag).toBe(tagOf(theirs.json));
  expect(theirs.headers.etag).not.toBe(read.headers.etag);

  const stale = await put(created.json.id, { name: 'our edit', split_ratio: 0.9 }, read.headers.etag, 1);
  expect(stale.status, stale.body).toBe(412);
  expect(stale.json).toMatchObject({ code: 'precondition_failed', field: 'If-Match' });
  const after = await get(created.json.id);
  expect(after.json.name).toBe('their edit');
  expect(after.json.variants).toHaveLength(3);
  expect(after.headers.etag).toBe(theirs.headers.etag);

  // With the current tag, among others or alone, it goes through; so do "*" and no header at all.
  const fresh = await put(created.json.id, { name: 'our edit' }, `"1999-01-01T00:00:00.000Z", ${after.headers.etag}`, 1);
  expect(fresh.status, fresh.body).toBe(200);
  expect(fresh.json.variants).toHaveLength(3);
  expect((await put(created.json.id, { name: 'any version' }, '*')).status).toBe(200);
  expect((await put(created.json.id, { name: 'unconditional' })).status).toBe(200);
});

it('a weak tag never matches, and a malformed If-Match is 400 naming it', async () => {
  const route = await createRoute(server, { name: 'weak' });
  const weak = await put(route.id, { name: 'x' }, `W/${tagOf(route)}`);
  expect(weak.status).toBe(412);
  for (const header of ['2026-11-27T18:00:00.000Z', '"unterminated', '"a" "b"', '*, "a"']) {
    const r = await put(route.id, { name: 'x' }, header);
    expect(r.status, header).toBe(400);
    expect(r.json, header).toMatchObject({ code: 'invalid_parameter', field: 'If-Match' });
  }
  expect((await get(route.id)).json.name).toBe('weak');
});

it('reads every If-Match line: a stale tag behind an empty or "*" line is not skipped; an empty header is 400', async () => {
  const route = await createRoute(server, { name: 'lines' });
  await put(route.id, { name: 'moved on' });
  for (const lines of [['', tagOf(route)], ['*', tagOf(route)]]) {
    const r = await request({ port: server.ports[0], ca: server.ca, method: 'PUT', path: `/v1/routes/${route.id}`, key: server.apiKey, json: { name: 'x' }, headers: { 'If-Match': lines as unknown as string } });
    expect(r.status, JSON.stringify(lines)).toBe(400);
    expect(r.json).toMatchObject({ code: 'invalid_parameter', field: 'If-Match' });
  }
  for (const header of ['', '   ']) {
    const r = await put(route.id, { name: 'x' }, header);
    expect(r.status, JSON.stringify(header)).toBe(400);
  }
  expect((await get(route.id)).json.name).toBe('moved on');
});

it('a DELETE with a stale tag is 412 and deletes nothing; with the current tag it deletes', async () => {
  const route = await createRoute(server, { name: 'delete me' });
  const moved = await put(route.id, { name: 'moved on' });
  const del = (ifMatch: string) => request({ port: server.ports[1], ca: server.ca, method: 'DELETE', path: `/v1/routes/${route.id}`, key: server.apiKey, headers: { 'If-Match': ifMatch } });
  const stale = await del(tagOf(route));
  expect(stale.status).toBe(412);
  expect(stale.json).toMatchObject({ code: 'precondition_failed', field: 'If-Match' });
  expect((await get(route.id)).status).toBe(200);
  expect((await del(moved.headers.etag as string)).status).toBe(204);
  expect((await get(route.id)).status).toBe(404);
});

it('of 24 clients racing with the same tag on two threads, exactly one wins', async () => {
  const route: RouteBody = await createRoute(server, { name: 'raced' });
  const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => put(route.id, { name: `client ${i}` }, tagOf(route), i % 2)));
  const won = answers.filter((r) => r.status === 200);
  expect(won).toHaveLength(1);
  expect(answers.filter((r) => r.status === 412)).toHaveLength(23);
  expect((await get(route.id)).json.name).toBe(won[0].json.name);
});

it('every update moves updated_at forward, also many in one millisecond', async () => {
  const route = await createRoute(server, { name: 'fast' });
  const stamps = [route.updated_at];
  // Unconditional and concurrent: the store serialises them, and each must name a new version.
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => put(route.id, { name: `n${i}` }, undefined, i % 2)));
  for (const r of answers) expect(r.status).toBe(200);
  stamps.push(...answers.map((r) => r.json.updated_at as string));
  expect(new Set(stamps).size).toBe(41);
  const current = (await get(route.id)).json;
  expect(Math.max(...stamps.map(Date.parse))).toBe(Date.parse(current.updated_at));
});
