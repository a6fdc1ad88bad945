// A request whose framing is refused (Transfer-Encoding: xchunked, two
// different Content-Lengths) needs no key, and must not grow the server's
// output by a constant per request. Its 400 was written outside a corked
// callback, and uWebSockets.js printed a 150-byte, non-JSON warning to
// standard error for every write: five per refusal (750 bytes), without
// limit, at the rate the server completes TLS handshakes: a stranger could
// fill the disk holding the service's logs (journald and Docker keep stderr
// with stdout).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rawRequest } from '../../helpers/raw-http.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

const REQUESTS = 100;

it.each([
  ['Transfer-Encoding: xchunked'],
  ['Content-Length: 2\r\nContent-Length: 5'],
])('writes no output per refused request (%j)', async (framing) => {
  await new Promise((r) => setTimeout(r, 300));
  const before = server.output().length;
  for (let i = 0; i < REQUESTS; i += 10) {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => rawRequest(`POST /v1/ip/check HTTP/1.1\r\nHost: x\r\n${framing}\r\n\r\n`, { port: server.ports[0], ca: server.ca })),
    );
    for (const a of answers) expect(a.status, a.raw).toBe(400);
  }
  await new Promise((r) => setTimeout(r, 300));
  const grown = server.output().slice(before);
  expect(grown.length, grown.slice(0, 600)).toBeLessThan(1000);
});
