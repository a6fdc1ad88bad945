// A test's own server (a publisher, a feed, a drip) on a free loopback port,
// with the connections it holds: its close destroys them first, so that a
// keep-alive or deliberately silent connection cannot hold server.close()
// open.
import type { AddressInfo, Server, Socket } from 'node:net';

export interface Loopback {
  /** `http://127.0.0.1:<port>`. */
  base: string;
  /** The connections the server holds now. */
  open: ReadonlySet<Socket>;
  close(): Promise<void>;
}

export async function listenLoopback(server: Server): Promise<Loopback> {
  const open = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
