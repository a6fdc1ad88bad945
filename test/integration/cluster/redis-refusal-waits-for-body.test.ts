// Past the account limit decided in Redis, a /v1 call with a body is
// answered once the body has stopped arriving: a body sent in more pieces
// than BODY_PIECES is then refused with 400 naming the body and its
// connection closed (docs/reliability.md, finding 99). Before, the 429 went
// out while the pieces still came, and the reader could no longer close the
// connection: every further piece was handed over until the body ended.
import tls from 'node:tls';
import { expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { useCluster } from '../../helpers/cluster.js';

const cluster = useCluster({ nodes: 1, nginx: false, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: '1', SPLITGUARD_REDIS_TIMEOUT_MS: '2000' } });

/** Writes `first`, waits `pauseMs`, writes `rest`; what the server sent, and whether it closed the connection within `limitMs` after. */
function inTwoParts(port: number, ca: string, first: string, rest: string, pauseMs: number, limitMs: number): Promise<{ received: string; closed: boolean }> {
  return new Promise((resolve) => {
    let received = '';
    const socket = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      socket.write(first);
      setTimeout(() => {
        socket.write(rest);
        setTimeout(() => {
          socket.destroy();
          resolve({ received, closed: false });
        }, limitMs);
      }, pauseMs);
    });
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('close', () => resolve({ received, closed: true }));
    socket.on('error', () => {});
  });
}

it.skipIf(cluster.skip)('answers past the limit once the body has ended: one in tiny pieces is refused and its connection closed', async () => {
  const node = cluster.node(0);
  expect((await request({ port: node.ports[0], ca: node.ca, path: '/v1/account', key: node.apiKey })).status).toBe(200);
  const pieces = (text: string) => [...text].map((c) => `1\r\n${c}\r\n`).join('');
  const json = JSON.stringify({ name: 'late', page_a: 'https://a.example/', page_b: 'https://b.example/' }).padEnd(3000, ' ');
  const head = `POST /v1/routes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${node.apiKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
  // The first pieces, then a pause in which Redis refuses the call, then the rest.
  const { received, closed } = await inTwoParts(node.ports[0], node.ca, head + pieces(json.slice(0, 10)), `${pieces(json.slice(10))}0\r\n\r\n`, 500, 3000);
  expect(received.split('\r\n')[0], received.slice(0, 300)).toBe('HTTP/1.1 400 Bad Request');
  expect(received).toContain('"field":"body"');
  expect(closed).toBe(true);
});
