// Shutting down by inode: exactly the socket named is ended (the client sees
// the connection end, by FIN or reset) and another connection to the same
// server goes on working; an inode that is gone, or one that never was, does
// nothing, and the listening socket is never touched even if named.
import { readlinkSync } from 'node:fs';
import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { binding } from '../../src/ipdb/native.js';

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

/** An echo server; resolves each accepted socket in order. */
async function echoServer() {
  const accepted: net.Socket[] = [];
  const server = net.createServer((s) => {
    accepted.push(s);
    s.on('error', () => {});
    s.pipe(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => server.close());
  return { server, port: (server.address() as net.AddressInfo).port, accepted };
}

async function connect(port: number): Promise<{ socket: net.Socket; ended: Promise<string> }> {
  const socket = net.connect({ port, host: '127.0.0.1' });
  cleanup.push(() => socket.destroy());
  const ended = new Promise<string>((r) => {
    socket.once('end', () => r('end'));
    socket.once('error', (e: NodeJS.ErrnoException) => r(e.code ?? 'error'));
  });
  await new Promise<void>((r, j) => socket.once('connect', r).once('error', j));
  return { socket, ended };
}

function echo(socket: net.Socket, text: string): Promise<string> {
  return new Promise((resolve) => {
    socket.once('data', (d) => resolve(d.toString()));
    socket.write(text);
  });
}

const inodeOf = (fd: number) => Number(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))![1]);

it('ends exactly the connection named and leaves the other one working', async () => {
  const { port } = await echoServer();
  const a = await connect(port);
  const b = await connect(port);
  expect(await echo(a.socket, 'a1')).toBe('a1');
  expect(await echo(b.socket, 'b1')).toBe('b1');

  const guard = new binding.ConnectionGuard();
  cleanup.push(() => guard.close());
  const list = guard.list([port]);
  const target = list.find((c) => c.port === a.socket.localPort)!;
  const other = list.find((c) => c.port === b.socket.localPort)!;
  expect(target.inode > 0 && other.inode > 0).toBe(true);

  expect(guard.shutdown([target.inode])).toBe(1);
  expect(['end', 'ECONNRESET']).toContain(await a.ended);
  expect(await echo(b.socket, 'b2')).toBe('b2');

  // The server side saw the end and closed its descriptor; the socket is gone.
  for (let i = 0; i < 100 && guard.list([port]).some((c) => c.inode === target.inode); i++) await new Promise((r) => setTimeout(r, 10));
  expect(guard.list([port]).map((c) => c.inode)).toEqual([other.inode]);
});

it('does nothing for an inode that is gone or never was', async () => {
  const { port } = await echoServer();
  const a = await connect(port);
  const b = await connect(port);
  const guard = new binding.ConnectionGuard();
  cleanup.push(() => guard.close());
  const gone = guard.list([port]).find((c) => c.port === a.socket.localPort)!.inode;
  a.socket.destroy();
  for (let i = 0; i < 100 && guard.list([port]).some((c) => c.inode === gone); i++) await new Promise((r) => setTimeout(r, 10));
  expect(guard.list([port]).some((c) => c.inode === gone)).toBe(false);

  expect(guard.shutdown([gone])).toBe(0);
  expect(guard.shutdown([2 ** 40 + 12345])).toBe(0);
  expect(guard.shutdown([])).toBe(0);
  expect(await echo(b.socket, 'still')).toBe('still');
});

it('never shuts down a listening socket or a descriptor that is not a connection', async () => {
  const { server, port } = await echoServer();
  const listenFd = (server as unknown as { _handle: { fd: number } })._handle.fd;
  const guard = new binding.ConnectionGuard();
  cleanup.push(() => guard.close());
  expect(guard.shutdown([inodeOf(listenFd)])).toBe(0);
  const c = await connect(port);
  expect(await echo(c.socket, 'ok')).toBe('ok');
});

it('refuses inodes that are not positive integers with a code', () => {
  const guard = new binding.ConnectionGuard();
  cleanup.push(() => guard.close());
  expect(() => guard.shutdown([-1])).toThrow(expect.objectContaining({ code: 'connguard_invalid_argument' }));
  expect(() => guard.shutdown([1.5])).toThrow(expect.objectContaining({ code: 'connguard_invalid_argument' }));
});
