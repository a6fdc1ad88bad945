// Framing that uWS would read one way and a proxy in front another is
// refused (RFC 9112 6.3): a Transfer-Encoding other than exactly "chunked",
// both Transfer-Encoding and Content-Length, or two Content-Length headers
// that differ. The answer is 400 (when nothing else was pipelined behind the
// request) and the connection is closed; a request smuggled behind one is
// never run. Before, "xchunked" and "gzip, chunked" were read as chunked and
// the smuggled request behind them was answered.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RawAnswer, rawRequest } from '../../helpers/raw-http.js';
import { api, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: NO_RATE_LIMIT });
});
afterAll(() => server?.close());

const send = (bytes: string): Promise<RawAnswer> => rawRequest(bytes, { port: server.ports[0], ca: server.ca, timeoutMs: 5000 });
const auth = () => `Authorization: Bearer ${server.apiKey}\r\n`;
const routeCount = async () => (await api(server, 'GET', '/v1/routes')).json.pagination.total as number;

it.each([
  ['Transfer-Encoding: xchunked', 'Transfer-Encoding'],
  ['Transfer-Encoding: gzip, chunked', 'Transfer-Encoding'],
  ['Transfer-Encoding: chunked\r\nTransfer-Encoding: identity', 'Transfer-Encoding'],
  ['Content-Length: 2\r\nContent-Length: 5', 'Content-Length'],
])('answers 400 naming the header and closes for %j', async (headers, field) => {
  const answer = await send(`POST /v1/ip/check HTTP/1.1\r\nHost: x\r\n${auth()}${headers}\r\n\r\n0\r\n\r\n`);
  expect(answer.outcome).toBe('answered');
  expect(answer.status).toBe(400);
  expect(JSON.parse(answer.body)).toMatchObject({ code: 'invalid_parameter', field });
  expect(answer.headers.some(([n, v]) => n.toLowerCase() === 'connection' && v === 'close')).toBe(true);
});

it('closes the connection on a Content-Length that is not a number (uWS itself refuses it)', async () => {
  const answer = await send(`POST /v1/ip/check HTTP/1.1\r\nHost: x\r\n${auth()}Content-Length: 0x2\r\n\r\n{}`);
  expect(answer.outcome === 'closed' || answer.status === 400, answer.raw).toBe(true);
});

it('never runs a request smuggled behind a refused one', async () => {
  const before = await routeCount();
  const body = JSON.stringify({ name: 'smuggled', page_a: 'https://a.example/', page_b: 'https://b.example/' });
  const smuggled = `POST /v1/routes HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  for (const framing of ['Transfer-Encoding: xchunked', 'Content-Length: 0\r\nContent-Length: 1', 'Transfer-Encoding: chunked\r\nContent-Length: 4']) {
    const answer = await send(`GET /healthz HTTP/1.1\r\nHost: x\r\n${framing}\r\n\r\n0\r\n\r\n${smuggled}`);
    expect(answer.outcome === 'closed' || answer.status === 400, `${framing}: ${answer.raw}`).toBe(true);
    expect(answer.raw).not.toMatch(/201 Created/);
  }
  expect(await routeCount()).toBe(before);
});

it('still serves plain chunked and Content-Length bodies', async () => {
  const json = JSON.stringify({ ips: ['8.8.8.8'] });
  const chunked = await send(`POST /v1/ip/check HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: Chunked\r\n\r\n${json.length.toString(16)}\r\n${json}\r\n0\r\n\r\n`);
  expect(chunked.status).toBe(200);
  const sized = await send(`POST /v1/ip/check HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n${json}`);
  expect(sized.status).toBe(200);
});
