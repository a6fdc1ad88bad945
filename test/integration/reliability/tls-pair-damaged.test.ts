// The generated TLS pair damaged on disk (left empty by a machine crash soon
// after the first start, before it reached the disk; it is now written with
// fsync, but older installations and other causes remain). The next start
// generates a new pair and serves with it, instead of stopping with uWS's
// "App construction failed".
import { readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const dataDir = tempDataDir();
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('generates the self-signed pair again when the files no longer parse', async () => {
  const first = await startServer({ dataDir });
  servers.push(first);
  expect(await first.stop()).toBe(0);
  const cert = path.join(dataDir, 'tls', 'cert.pem');
  const key = path.join(dataDir, 'tls', 'key.pem');
  const oldCert = readFileSync(cert, 'utf8');

  for (const damage of [() => (truncateSync(cert, 0), truncateSync(key, 0)), () => writeFileSync(key, readFileSync(key, 'utf8').slice(0, 60))]) {
    damage();
    const s = await startServer({ dataDir });
    servers.push(s);
    expect(s.logs().some((l) => l.event === 'tls_self_signed')).toBe(true);
    expect(s.ca).not.toBe(oldCert);
    expect((await call(s.ports[0], s.ca, 'GET', '/healthz')).status).toBe(200);
    expect(await s.stop()).toBe(0);
  }
  // An intact pair is kept.
  const kept = readFileSync(cert, 'utf8');
  const s = await startServer({ dataDir });
  servers.push(s);
  expect(s.ca).toBe(kept);
  expect(s.logs().some((l) => l.event === 'tls_self_signed')).toBe(false);
});
