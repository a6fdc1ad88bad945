// A taken port stops start-up before any thread starts: `splitguard serve`
// exits 1 at once with a message naming the address, instead of hanging with
// no listener, and instead of sharing the port with another process that
// listens with SO_REUSEPORT (as the server's own threads do).
import { spawn } from 'node:child_process';
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
  expect(r.stderr).toContain(`the address is already in use`);
  expect(r.stderr).toContain(`127.0.0.1:${port}`);
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(r.stdout).not.toContain('"event":"listening"');
});

it('exits 1 instead of sharing the port with another SO_REUSEPORT listener', async () => {
  // Node 20 cannot set SO_REUSEPORT itself; python holds such a socket.
  const holder = spawn('python3', ['-c', [
    'import socket, sys, time',
    's = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)',
    "s.bind(('127.0.0.1', 0)); s.listen()",
    'print(s.getsockname()[1], flush=True); time.sleep(30)',
  ].join('\n')], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const shared = Number(await new Promise<string>((resolve) => holder.stdout!.once('data', (d) => resolve(String(d).trim()))));
    const r = await runCli(['serve'], dataDir, { PORT: String(shared), HOST: '127.0.0.1', SPLITGUARD_THREADS: '1' }, 20_000);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain(`the address is already in use`);
    expect(r.stdout).not.toContain('"event":"listening"');
  } finally {
    holder.kill();
  }
});
