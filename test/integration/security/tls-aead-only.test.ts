// TLS 1.2 offers AEAD suites with ECDHE only: a client that offers nothing
// but CBC suites (with SHA-1 or SHA-256 MACs) or static RSA key exchange is
// refused in the handshake, while ECDHE with AES-GCM or ChaCha20-Poly1305 is
// accepted. Every answer carries Strict-Transport-Security.
import tls from 'node:tls';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { RedirectClient, createRoute } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

function handshake(ciphers: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = tls.connect(
      { host: '127.0.0.1', port: server.ports[0], ca: server.ca, servername: 'localhost', maxVersion: 'TLSv1.2', minVersion: 'TLSv1.2', ciphers: `${ciphers}:@SECLEVEL=0` },
      () => {
        const name = socket.getCipher().standardName;
        socket.destroy();
        resolve(name);
      },
    );
    socket.on('error', (err) => resolve(`refused: ${err.message}`));
  });
}

it.each(['ECDHE-ECDSA-AES128-SHA', 'ECDHE-ECDSA-AES256-SHA384', 'AES128-SHA', 'AES128-GCM-SHA256'])('refuses a TLS 1.2 client offering only %s', async (suite) => {
  expect(await handshake(suite)).toMatch(/^refused: .*(handshake failure|no shared cipher)/i);
});

it.each([
  ['ECDHE-ECDSA-AES128-GCM-SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'],
  ['ECDHE-ECDSA-AES256-GCM-SHA384', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'],
  ['ECDHE-ECDSA-CHACHA20-POLY1305', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'],
])('accepts %s', async (suite, standard) => {
  expect(await handshake(suite)).toBe(standard);
});

it('sends Strict-Transport-Security on API answers, pages and redirects', async () => {
  for (const path of ['/healthz', '/console/', '/v1/account', '/no/such/path']) {
    const res = await request({ port: server.ports[0], ca: server.ca, path });
    expect(res.headers['strict-transport-security'], path).toBe('max-age=31536000');
  }
  const route = await createRoute(server);
  const visits = new RedirectClient(server);
  expect((await visits.visit(route.code)).headers['strict-transport-security']).toBe('max-age=31536000');
  visits.close();
});
