// The connection guard's listing (NETLINK_SOCK_DIAG): a connection made to a
// local node:net server is found by the server's port, from the server's
// side, with the client's address and port, its socket inode, and
// with the queues the kernel has: bytes the server has not read, bytes the
// client has not acknowledged. IPv4 comes as dotted text, IPv6 as IPv6.
import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { binding, type NativeConnection } from '../../src/ipdb/native.js';

const ESTABLISHED = 1;
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

/** A server that never reads (pauseOnConnect) and writes `reply` bytes to each connection. */
async function listen(host: string, reply: number): Promise<{ server: net.Server; port: number; accepted: Promise<net.Socket> }> {
  let resolveAccepted!: (s: net.Socket) => void;
  const accepted = new Promise<net.Socket>((r) => (resolveAccepted = r));
  const server = net.createServer({ pauseOnConnect: true }, (socket) => {
    cleanup.push(() => socket.destroy());
    if (reply > 0) socket.write(Buffer.alloc(reply, 1));
    resolveAccepted(socket);
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  cleanup.push(() => server.close());
  return { server, port: (server.address() as net.AddressInfo).port, accepted };
}

async function connect(port: number, host: string, localAddress: string): Promise<net.Socket> {
  const client = net.connect({ port, host, localAddress });
  cleanup.push(() => client.destroy());
  await new Promise<void>((r, j) => client.once('connect', r).once('error', j));
  client.pause();
  return client;
}

/** Lists until `check` holds (queues fill asynchronously), or returns the last listing. */
async function listUntil(ports: number[], check: (l: NativeConnection[]) => boolean): Promise<NativeConnection[]> {
  const guard = new binding.ConnectionGuard();
  try {
    let list: NativeConnection[] = [];
    for (let i = 0; i < 100; i++) {
      list = guard.list(ports);
      if (check(list)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    return list;
  } finally {
    guard.close();
  }
}

it('finds an IPv4 connection by the server port with the client address, port and both queues', async () => {
  const { port, accepted } = await listen('127.0.0.1', 8 << 20);
  const client = await connect(port, '127.0.0.1', '127.0.0.3');
  await accepted;
  client.write(Buffer.alloc(1000, 2));

  const list = await listUntil([port], (l) => l.length === 1 && l[0].receiveQueue === 1000 && l[0].sendQueue > 0);
  expect(list).toHaveLength(1);
  const c = list[0];
  expect(c.address).toBe('127.0.0.3');
  expect(c.port).toBe(client.localPort);
  expect(c.localPort).toBe(port);
  expect(c.state).toBe(ESTABLISHED);
  expect(c.inode).toBeGreaterThan(0);
  // Not read by the (paused) server: exactly what the client wrote.
  expect(c.receiveQueue).toBe(1000);
  // Written by the server, not all acknowledged by the paused client (8 MB exceeds its buffers).
  expect(c.sendQueue).toBeGreaterThan(0);
  expect(c.bytesAcked).toBeGreaterThan(0);
  expect(c.bytesAcked).toBeLessThan(8 << 20);
  expect(c.lastReceiveMs).toBeGreaterThanOrEqual(0);
  expect(c.lastReceiveMs).toBeLessThan(10_000);
});

it('finds an IPv6 connection with the address as IPv6 text', async () => {
  const { port, accepted } = await listen('::1', 0);
  const client = await connect(port, '::1', '::1');
  await accepted;
  const list = await listUntil([port], (l) => l.length === 1);
  expect(list).toHaveLength(1);
  expect(list[0].address).toBe('::1');
  expect(list[0].port).toBe(client.localPort);
  expect(list[0].sendQueue).toBe(0);
  expect(list[0].receiveQueue).toBe(0);
  expect(list[0].inode).toBeGreaterThan(0);
});

it('lists only the given ports, never the listening socket or the client side', async () => {
  const a = await listen('127.0.0.1', 0);
  const b = await listen('127.0.0.1', 0);
  const ca = await connect(a.port, '127.0.0.1', '127.0.0.4');
  await connect(b.port, '127.0.0.1', '127.0.0.5');
  await a.accepted;
  await b.accepted;
  const onlyA = await listUntil([a.port], (l) => l.length >= 1);
  expect(onlyA.map((c) => [c.address, c.port])).toEqual([['127.0.0.4', ca.localPort]]);
  const both = await listUntil([a.port, b.port], (l) => l.length >= 2);
  expect(both.map((c) => c.address).sort()).toEqual(['127.0.0.4', '127.0.0.5']);
});

it('refuses a port outside 1-65535 with a code', () => {
  const guard = new binding.ConnectionGuard();
  try {
    expect(() => guard.list([0])).toThrow(expect.objectContaining({ code: 'connguard_invalid_argument' }));
    expect(() => guard.list([70_000])).toThrow(expect.objectContaining({ code: 'connguard_invalid_argument' }));
  } finally {
    guard.close();
  }
  expect(() => guard.list([1])).toThrow(expect.objectContaining({ code: 'connguard_closed' }));
});
