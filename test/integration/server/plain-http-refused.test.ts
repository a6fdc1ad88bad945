// The port speaks TLS only: a plain-HTTP request gets no HTTP response
// (the connection is closed, never answered with a status line), and the
// same port still answers HTTPS afterwards.
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

/** Sends `text` over a plain TCP connection; resolves with what came back once the server closes it. */
function plain(port: number, text: string): Promise<{ received: Buffer; error: string | null }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let error: string | null = null;
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(text));
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error('the server kept a plain-HTTP connection open for 10 s'));
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
    });
    socket.on('close', () => resolve({ received: Buffer.concat(chunks), error }));
  });
}

it('closes a plain-HTTP connection without an HTTP status line', async () => {
  const { received, error } = await plain(server.ports[0], 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  expect(received.toString('latin1')).not.toMatch(/HTTP\/1\.[01] \d{3}/);
  // Whatever came back (if anything) is not HTTP: at most a TLS alert record.
  if (received.length > 0) expect(received[0]).toBe(0x15);
  expect(error === null || error === 'ECONNRESET').toBe(true);

  const https = await call(server.ports[0], server.ca, 'GET', '/healthz');
  expect(https.status).toBe(200);
});
