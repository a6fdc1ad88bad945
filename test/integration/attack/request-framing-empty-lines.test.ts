// Framing headers with an empty line: uWS reads an empty first
// Transfer-Encoding or Content-Length line as no header at all, so
// `Content-Length:` then `Content-Length: 5` was two different lengths that
// passed the framing guard, and the body ran as a request of its own (the
// attack review of 2026-11-27). Behind a trusted proxy, where smuggling has an
// intermediary to fool, every request's header lines are judged one by one;
// a direct request is walked when a first line has a value.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RawAnswer, rawRequest } from '../../helpers/raw-http.js';
import { api, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let proxied: TestServer;
let direct: TestServer;
beforeAll(async () => {
  [proxied, direct] = await Promise.all([
    startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_TRUST_PROXY: '127.0.0.1' } }),
    startServer({ env: NO_RATE_LIMIT }),
  ]);
});
afterAll(() => Promise.all([proxied?.close(), direct?.close()]));

const send = (server: TestServer, bytes: string): Promise<RawAnswer> => rawRequest(bytes, { port: server.ports[0], ca: server.ca, timeoutMs: 5000 });
const auth = (server: TestServer) => `Authorization: Bearer ${server.apiKey}\r\n`;
const routeCount = async (server: TestServer) => (await api(server, 'GET', '/v1/routes')).json.pagination.total as number;
const body = JSON.stringify({ name: 'smuggled', page_a: 'https://a.example/', page_b: 'https://b.example/' });
const smuggled = (server: TestServer) => `POST /v1/routes HTTP/1.1\r\nHost: x\r\n${auth(server)}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

function expectRefused(answer: RawAnswer, field: string): void {
  expect(answer.outcome, answer.raw).toBe('answered');
  expect(answer.status).toBe(400);
  expect(JSON.parse(answer.body)).toMatchObject({ code: 'invalid_parameter', field });
  expect(answer.headers.some(([n, v]) => n.toLowerCase() === 'connection' && v === 'close')).toBe(true);
}

it.each([
  ['Content-Length: \r\nContent-Length: 2', 'Content-Length'],
  ['Content-Length: 2\r\nContent-Length: ', 'Content-Length'],
  ['Content-Length: ', 'Content-Length'],
  ['Transfer-Encoding: \r\nContent-Length: 2', 'Transfer-Encoding'],
  ['Transfer-Encoding: \r\nTransfer-Encoding: chunked', 'Transfer-Encoding'],
  ['Transfer-Encoding: ', 'Transfer-Encoding'],
])('behind a trusted proxy, answers 400 naming the header and closes for %j', async (headers, field) => {
  expectRefused(await send(proxied, `POST /v1/ip/check HTTP/1.1\r\nHost: x\r\n${auth(proxied)}${headers}\r\n\r\n{}`), field);
});

it.each([
  ['Transfer-Encoding: \r\nContent-Length: 2', 'Transfer-Encoding'],
  ['Content-Length: 2\r\nContent-Length: ', 'Content-Length'],
])('directly, answers 400 for %j (a first line with a value: the lines are judged)', async (headers, field) => {
  expectRefused(await send(direct, `POST /v1/ip/check HTTP/1.1\r\nHost: x\r\n${auth(direct)}${headers}\r\n\r\n{}`), field);
});

it('behind a trusted proxy, never runs a request smuggled behind an empty framing line', async () => {
  const before = await routeCount(proxied);
  const hidden = smuggled(proxied);
  for (const framing of [`Content-Length: \r\nContent-Length: ${hidden.length}`, 'Transfer-Encoding: \r\nTransfer-Encoding: chunked']) {
    const answer = await send(proxied, `GET /healthz HTTP/1.1\r\nHost: x\r\n${framing}\r\n\r\n${hidden}`);
    expect(answer.outcome === 'closed' || answer.status === 400, `${framing}: ${answer.raw}`).toBe(true);
    expect(answer.raw).not.toMatch(/201 Created/);
  }
  // Give a request that did run time to be stored before counting.
  await new Promise((r) => setTimeout(r, 300));
  expect(await routeCount(proxied)).toBe(before);
});

it('behind a trusted proxy, still serves plain chunked and Content-Length bodies', async () => {
  const json = JSON.stringify({ ips: ['8.8.8.8'] });
  const head = `POST /v1/ip/check HTTP/1.1\r\nHost: x\r\n${auth(proxied)}Content-Type: application/json\r\nX-Forwarded-For: 203.0.113.9\r\n`;
  const chunked = await send(proxied, `${head}Transfer-Encoding: chunked\r\n\r\n${json.length.toString(16)}\r\n${json}\r\n0\r\n\r\n`);
  expect(chunked.status, chunked.raw).toBe(200);
  const sized = await send(proxied, `${head}Content-Length: ${json.length}\r\nContent-Length: ${json.length}\r\n\r\n${json}`);
  expect(sized.status, sized.raw).toBe(200);
});
