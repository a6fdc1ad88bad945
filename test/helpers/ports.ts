// A loopback TCP port that nothing listens on at the moment of asking (the
// kernel's pick for port 0, released again): for a service a test starts
// itself, or for a connection that is to be refused.
import net, { type AddressInfo } from 'node:net';

export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Resolves once something accepts connections on the loopback port; fails after `timeoutMs` or when `gone()` says the server died. */
export async function waitForPort(port: number, timeoutMs: number, gone: () => boolean = () => false): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (gone() || Date.now() > until) throw new Error(`nothing accepts connections on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
