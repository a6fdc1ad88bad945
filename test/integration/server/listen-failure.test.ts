// A server thread that cannot listen (the port is taken) stops start-up:
// the other threads are stopped too, and `splitguard serve` exits 1 at once
// with a message naming the address, instead of hanging with no listener.
import net from 'node:net';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { tempDataDir } from '../../helpers/server.js';

const dataDir = tempDataDir();
const blocker = net.createServer();
let port = 0;
beforeAll(async () => {
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  port = (blocker.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => blocker.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

it('exits 1 promptly when the port is taken', async () => {
  const started = Date.now();
  const r = await runCli(['serve'], dataDir, { PORT: String(port), HOST: '127.0.0.1', SPLITGUARD_THREADS: '2' }, 20_000);
  expect(r.code, r.stdout + r.stderr).toBe(1);
  expect(r.stderr).toContain(`could not listen on 127.0.0.1:${port}`);
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(r.stdout).not.toContain('"event":"listening"');
});
