// A client that sends the head of a PUT or POST and part of its body, then
// goes away, must not leave the request counted as in flight: a graceful
// shutdown waits (up to 10 s) for in-flight requests, so each such request
// used to delay every later SIGTERM by the full 10 s. The body reader now
// rejects when the client aborts.
import tls from 'node:tls';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ threads: 2 });
});
afterAll(async () => {
  await server?.close();
});

function abandon(port: number, head: string): Promise<void> {
  return new Promise((resolve) => {
    const s = tls.connect({ host: '127.0.0.1', port, ca: server.ca, servername: 'localhost' }, () => {
      s.write(head);
      setTimeout(() => {
        s.destroy();
        resolve();
      }, 150);
    });
    s.on('error', () => resolve());
  });
}

it('half-sent bodies, abandoned, neither block other requests nor delay shutdown', async () => {
  const key = server.apiKey;
  for (const port of server.ports) {
    await abandon(port, `PUT /v1/account HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`);
    await abandon(port, `POST /v1/routes HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"name": "x", "p`);
  }
  for (const port of server.ports) expect((await call(port, server.ca, 'GET', '/v1/account', key)).status).toBe(200);

  const started = Date.now();
  expect(await server.stop()).toBe(0);
  expect(Date.now() - started).toBeLessThan(3000);
});
