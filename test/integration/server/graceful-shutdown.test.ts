// SIGTERM drains: the listening socket closes at once (new connections are
// refused) while a request already in progress (a PUT whose body is only
// half sent) is still read to the end, handled and answered 200; then the
// process exits 0 and the change it made is on disk.
import net from 'node:net';
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { call, request } from '../../helpers/client.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const dataDir = tempDataDir();
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Resolves with the error code of a plain TCP connect ('connected' if it was accepted). */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/**
 * Connects until one is refused, answering the last outcome. A connection the
 * kernel completed into the listen backlog just before the socket closed is
 * reset rather than refused (ECONNRESET): the socket was closing, not yet
 * closed, so that outcome is not final either.
 */
async function refusedWithin(port: number, ms: number): Promise<string> {
  const deadline = Date.now() + ms;
  let last = '';
  while (Date.now() < deadline) {
    last = await tryConnect(port);
    if (last === 'ECONNREFUSED') return last;
    await new Promise((r) => setTimeout(r, 20));
  }
  return last;
}

it('finishes the request in flight, refuses new connections, and exits 0', async () => {
  const server = await startServer({ dataDir });
  servers.push(server);
  const port = server.ports[0];
  const body = Buffer.from(JSON.stringify({ name: 'drained while stopping' }));
  let refusal = '';
  let afterSigterm: unknown;

  const put = request({
    port,
    ca: server.ca,
    method: 'PUT',
    path: '/v1/account',
    key: server.apiKey,
    headers: { 'Content-Type': 'application/json' },
    body,
    pause: {
      at: Math.floor(body.length / 2),
      until: async () => {
        // The headers and half the body are in the kernel. A full round trip
        // on a second connection, opened after them, makes sure the server's
        // event loop has read them (the request is now in flight).
        expect((await call(port, server.ca, 'GET', '/healthz')).status).toBe(200);
        void server.stop('SIGTERM');
        refusal = await refusedWithin(port, 5_000);
        afterSigterm = await call(port, server.ca, 'GET', '/healthz').then(
          (r) => r.status,
          (err: NodeJS.ErrnoException) => err.code,
        );
      },
    },
  });

  const r = await put;
  expect(refusal).toBe('ECONNREFUSED');
  expect(afterSigterm).toBe('ECONNREFUSED');
  expect(r.status).toBe(200);
  expect(r.json).toMatchObject({ id: server.accountId, name: 'drained while stopping' });

  expect(await server.exited).toBe(0);
  const events = server.logs().map((l) => l.event);
  expect(events).toContain('signal');
  expect(server.logs().find((l) => l.event === 'stopped')).toMatchObject({ cleanThreads: 1 });

  // The drained request's write was committed before the answer.
  const again = await startServer({ dataDir });
  servers.push(again);
  const get = await call(again.ports[0], again.ca, 'GET', '/v1/account', again.apiKey);
  expect(get.json.name).toBe('drained while stopping');
});
