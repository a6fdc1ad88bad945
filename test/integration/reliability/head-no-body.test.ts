// A HEAD request is answered with headers only. uWebSockets.js writes a body
// even to HEAD when asked to, and the 405 on /v1 and the 404 elsewhere used
// to carry their JSON body: on a kept-alive connection the client reads
// those bytes as the start of the next response. Sent as raw bytes on one
// connection: HEAD, then GET; the second answer must start right after the
// first one's headers. Every HEAD answer says `Content-Length: 0` and
// `Connection: close` (issue 14, finding 9: see endHead in
// src/http/respond.ts); a GET that came in the same write is still answered
// before the close.
import tls from 'node:tls';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseResponse } from '../../helpers/raw-http.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

/** HEAD `path` then GET /healthz on one connection; resolves with everything received. */
function headThenGet(path: string, key?: string): Promise<string> {
  const auth = key ? `Authorization: Bearer ${key}\r\n` : '';
  return new Promise((resolve, reject) => {
    let raw = '';
    const s = tls.connect({ host: '127.0.0.1', port: server.ports[0], ca: server.ca, servername: 'localhost' }, () => {
      s.write(`HEAD ${path} HTTP/1.1\r\nHost: localhost\r\n${auth}\r\nGET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    });
    const timer = setTimeout(() => {
      s.destroy();
      resolve(raw);
    }, 3000);
    s.on('data', (d: Buffer) => {
      raw += d.toString('latin1');
      if (/"status":"ok"/.test(raw)) {
        clearTimeout(timer);
        s.destroy();
        resolve(raw);
      }
    });
    s.on('error', reject);
  });
}

it.each<[string, string, boolean, number]>([
  ['405 on a /v1 endpoint', '/v1/account', true, 405],
  ['404 on an unknown /v1 path', '/v1/nowhere', true, 404],
  ['401 without a key', '/v1/account', false, 401],
  ['404 outside /v1', '/nowhere', false, 404],
  ['/healthz', '/healthz', false, 200],
  ['an unknown short link', '/r/zzzzzzzz', false, 404],
  ['a console API call without a session', '/console/api/session', false, 401],
  ['a missing console asset', '/console/missing.js', false, 404],
])('HEAD: %s has Content-Length: 0, Connection: close and no body', async (_label, path, withKey, status) => {
  const raw = await headThenGet(path, withKey ? server.apiKey : undefined);
  const head = raw.slice(0, raw.indexOf('\r\n\r\n') + 4);
  expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect(head).toMatch(/\r\nContent-Length: 0\r\n/i);
  expect(head).toMatch(/\r\nConnection: close\r\n/i);
  // The next bytes are the GET's answer, not a body.
  const next = raw.slice(head.length);
  expect(next).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  expect(parseResponse(next)?.body).toMatch(/"status":"ok"/);
});
