// Hostile client shapes for the attack suite (test/integration/attack/): raw
// TLS connections that pipeline requests without reading, reset or half-close
// the connection, or hold it open; and the probes that judge the server
// afterwards (still answering, memory back near where it was).
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { request } from './client.js';
import { createRoute } from './routes.js';
import type { TestServer } from './server.js';

/** How a hostile connection ends: TCP reset, a plain close (TLS close_notify then FIN), or a half-close (FIN, still reading). */
export type Ending = 'rst' | 'fin' | 'half-close';

export interface Family {
  name: string;
  /** One request, byte for byte. */
  request: string;
}

/**
 * One request of every endpoint family the server answers: static files,
 * console pages and API, /v1 with and without a key (large and small
 * answers, a body read), /healthz, /metrics, the 404 catch-all and the
 * redirect (302, HEAD, unknown code).
 */
export async function endpointFamilies(server: TestServer): Promise<Family[]> {
  const route = await createRoute(server);
  const auth = `Authorization: Bearer ${server.apiKey}\r\n`;
  const body = JSON.stringify({ ips: ['8.8.8.8', '1.1.1.1'] });
  const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
  return [
    { name: 'static file', request: get('/console/app.js') },
    { name: 'console page', request: get('/console/routes') },
    { name: 'console api', request: get('/console/api/session') },
    { name: 'v1 large answer', request: get('/v1/admin/blacklist?limit=100', auth) },
    { name: 'v1 unauthenticated', request: get('/v1/account') },
    {
      name: 'v1 with a body',
      request: `POST /v1/ip/check HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    },
    { name: 'healthz', request: get('/healthz') },
    { name: 'metrics', request: get('/metrics') },
    { name: 'not found', request: get('/no/such/path') },
    { name: 'redirect', request: get(`/r/${route.code}`) },
    { name: 'redirect HEAD', request: `HEAD /r/${route.code} HTTP/1.1\r\nHost: x\r\n\r\n` },
    { name: 'redirect unknown', request: get('/r/ZZZZZZZZ') },
  ];
}

/** A TLS connection over a TCP socket the caller can reset. */
export function connect(port: number, localAddress?: string): Promise<{ tcp: net.Socket; tls: tls.TLSSocket }> {
  return new Promise((resolve, reject) => {
    const tcp = net.connect({ host: '127.0.0.1', port, localAddress });
    tcp.on('error', () => {});
    const socket = tls.connect({ socket: tcp, rejectUnauthorized: false, servername: 'localhost' }, () => resolve({ tcp, tls: socket }));
    socket.on('error', (err) => reject(err));
  });
}

/**
 * Writes `count` copies of `bytes` in one write, reads nothing for `holdMs`,
 * then ends the connection as `ending` says. Resolves once the socket is gone.
 */
export async function pipelineAndDrop(port: number, bytes: string, count: number, ending: Ending, holdMs = 150): Promise<void> {
  const { tcp, tls: socket } = await connect(port);
  socket.pause();
  socket.write(bytes.repeat(count));
  await sleep(holdMs);
  const gone = new Promise<void>((resolve) => tcp.once('close', () => resolve()));
  if (ending === 'rst') {
    tcp.resetAndDestroy();
  } else if (ending === 'fin') {
    socket.destroy();
  } else {
    // Half-close: FIN on our side, then read whatever the server still sends.
    socket.end();
    socket.resume();
    setTimeout(() => tcp.destroy(), 2000).unref();
  }
  await gone;
}

/** The server answers /healthz 200 on every thread (throws with the server's output otherwise). */
export async function assertAnswering(server: TestServer): Promise<void> {
  for (const port of server.ports) {
    const res = await request({ port, ca: server.ca, path: '/healthz', timeoutMs: 5000 }).catch((err: Error) => ({ status: 0, body: err.message }));
    if (res.status !== 200) throw new Error(`/healthz on port ${port} answered ${res.status} (${res.body})\n${server.output().slice(-2000)}`);
  }
}

/** Resident memory of a process, in MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
