// First start creates the admin login and a default account with an API
// key, printed once on stderr and kept in <data dir>/bootstrap.json (mode
// 0600), and a self-signed certificate valid for 127.0.0.1. A second start
// on the same data directory creates nothing new: no second admin or
// account, the same key, the same certificate (a client that trusts the
// first one connects to the second server).
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { call } from '../../helpers/client.js';
import { readBootstrap, startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const dataDir = tempDataDir();
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const mode = (file: string) => statSync(file).mode & 0o777;

it('writes bootstrap.json once, mode 0600, with a working key, and reuses everything on the next start', async () => {
  const first = await startServer({ dataDir });
  servers.push(first);
  const file = path.join(dataDir, 'bootstrap.json');
  expect(mode(file)).toBe(0o600);
  expect(mode(path.join(dataDir, 'tls', 'key.pem'))).toBe(0o600);

  const boot = readBootstrap(dataDir);
  expect(Object.keys(boot).sort()).toEqual(['account_id', 'admin_email', 'admin_password', 'api_key']);
  expect(boot.admin_email).toBe('admin@localhost');
  expect(boot.admin_password.length).toBeGreaterThanOrEqual(16);
  expect(boot.api_key).toMatch(/^sg_[A-Za-z0-9_-]{43}$/);
  expect(first.output()).toContain(boot.api_key);
  expect(first.logs().map((l) => l.event)).toEqual(expect.arrayContaining(['bootstrap', 'tls_self_signed']));
  // The log names the file but never carries the secrets.
  expect(JSON.stringify(first.logs())).not.toContain(boot.api_key);
  expect(JSON.stringify(first.logs())).not.toContain(boot.admin_password);

  const account = await call(first.ports[0], first.ca, 'GET', '/v1/account', boot.api_key);
  expect(account.status).toBe(200);
  expect(account.json.id).toBe(boot.account_id);

  const bootText = readFileSync(file, 'utf8');
  const bootMtime = statSync(file).mtimeMs;
  const cert = readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
  const key = readFileSync(path.join(dataDir, 'tls', 'key.pem'), 'utf8');
  expect(await first.stop()).toBe(0);

  const second = await startServer({ dataDir });
  servers.push(second);
  const events = second.logs().map((l) => l.event);
  expect(events).not.toContain('bootstrap');
  expect(events).not.toContain('tls_self_signed');
  expect(second.output()).not.toContain('first start');
  expect(second.output()).not.toContain(boot.api_key);
  expect(readFileSync(file, 'utf8')).toBe(bootText);
  expect(statSync(file).mtimeMs).toBe(bootMtime);
  expect(readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8')).toBe(cert);
  expect(readFileSync(path.join(dataDir, 'tls', 'key.pem'), 'utf8')).toBe(key);

  // Trusting the first start's certificate is enough for the second server.
  const again = await call(second.ports[0], first.ca, 'GET', '/v1/account', boot.api_key);
  expect(again.status).toBe(200);
  expect(again.json.id).toBe(boot.account_id);

  // No second default account was made (the next one is number 2) and the admin exists once.
  const next = await runCliJson<{ account_id: number }>(['account', 'create', '--name', 'after restart'], dataDir);
  expect(next.account_id).toBe(boot.account_id + 1);
  const dup = await runCli(['user', 'create', '--email', 'admin@localhost', '--password', 'another-password', '--admin'], dataDir);
  expect(dup.code).not.toBe(0);
  expect(dup.stderr).toMatch(/already exists/);
});
