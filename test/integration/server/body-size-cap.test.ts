// Request bodies are capped at 64 KiB: one byte more is 413
// payload_too_large whether the size is declared up front (Content-Length)
// or only found out while reading (Transfer-Encoding: chunked). A body of
// exactly 64 KiB is read and handled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, limits, request } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

const LIMIT = 64 * 1024;

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

/** A JSON rename body of exactly `size` bytes: {"name":"<spaces>x"}. */
function renameBody(size: number, name = 'x'): Buffer {
  const head = '{"name":"';
  const tail = `${name}"}`;
  return Buffer.concat([Buffer.from(head), Buffer.alloc(size - head.length - tail.length, 0x20), Buffer.from(tail)]);
}

const put = (body: Buffer, chunked: boolean) =>
  request({ port: server.ports[0], ca: server.ca, method: 'PUT', path: '/v1/account', key: server.apiKey, body, chunked, headers: { 'Content-Type': 'application/json' } });

describe.each([
  ['Content-Length', false],
  ['chunked transfer encoding', true],
])('a body sent with %s', (_label, chunked) => {
  it('of 64 KiB + 1 byte is 413 payload_too_large', async () => {
    const r = await put(renameBody(LIMIT + 1), chunked);
    expect(r.status).toBe(413);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.json).toMatchObject({ code: 'payload_too_large', field: null });
    expect(limits(r).limit).toBe(60);
  });

  it('of exactly 64 KiB is accepted', async () => {
    const name = chunked ? 'exactly chunked' : 'exactly declared';
    const r = await put(renameBody(LIMIT, name), chunked);
    expect(r.status).toBe(200);
    expect(r.json.name).toBe(name);
  });
});

it('leaves the account unchanged after a refused body', async () => {
  const before = await call(server.ports[0], server.ca, 'GET', '/v1/account', server.apiKey);
  const r = await put(renameBody(LIMIT + 1, 'too big'), false);
  expect(r.status).toBe(413);
  const after = await call(server.ports[0], server.ca, 'GET', '/v1/account', server.apiKey);
  expect(after.json.name).toBe(before.json.name);
});
