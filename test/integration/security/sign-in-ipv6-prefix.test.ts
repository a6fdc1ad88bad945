// The per-address limits count an IPv6 client by its /64 (the smallest block
// an ISP gives a household or a provider a VM), as they count one IPv4
// address. Through a trusted proxy (X-Forwarded-For, as behind a reverse
// proxy): 30 wrong passwords for the admin's email from 30 addresses of one
// /64 are at most 5 checked (5 per email at an address), and 35 bad API
// keys from one /64 end in 429 after 30. Before, each address had a count of
// its own: 30 of 30 guesses were checked, and one /64 could keep the
// password work full (sign-in-owner-during-flood.test.ts covers the owner).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { readBootstrap, startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ threads: 2, env: { SPLITGUARD_TRUST_PROXY: '127.0.0.9/32' } });
});
afterAll(() => server?.close());

const signIn = (i: number, email: string, password: string, forwardedFor?: string, localAddress = '127.0.0.9') =>
  request({
    port: server.ports[i % 2], ca: server.ca, method: 'POST', path: '/console/api/session/login', json: { email, password },
    localAddress, headers: forwardedFor ? { 'X-Forwarded-For': forwardedFor } : {}, timeoutMs: 60_000,
  });

it('limits wrong sign-ins from one IPv6 /64 like those from one address', async () => {
  const boot = readBootstrap(server.dataDir);
  const statuses: number[] = [];
  // 30 wrong passwords, one after another, each from another address of 2001:db8:1:2::/64.
  for (let i = 0; i < 30; i++) statuses.push((await signIn(i, boot.admin_email, `wrong-${i}`, `2001:db8:1:2::${(i + 1).toString(16)}`)).status);
  const checked = statuses.filter((s) => s === 401).length;
  expect(checked, `wrong passwords checked from one /64 within a minute: ${JSON.stringify(statuses)}`).toBeLessThanOrEqual(5);
  expect(statuses.slice(-10).every((s) => s === 429)).toBe(true);
});

it('limits bad API keys from one IPv6 /64 like those from one address', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 35; i++) {
    const r = await request({
      port: server.ports[i % 2], ca: server.ca, path: '/v1/account', key: `sg_${'x'.repeat(43)}`,
      localAddress: '127.0.0.9', headers: { 'X-Forwarded-For': `2001:db8:7:7::${(i + 1).toString(16)}` },
    });
    statuses.push(r.status);
  }
  expect(statuses.filter((s) => s === 401).length, JSON.stringify(statuses)).toBe(30);
  expect(statuses.slice(30)).toEqual([429, 429, 429, 429, 429]);
  // Another /64 has a count of its own.
  const other = await request({ port: server.ports[0], ca: server.ca, path: '/v1/account', key: `sg_${'x'.repeat(43)}`, localAddress: '127.0.0.9', headers: { 'X-Forwarded-For': '2001:db8:7:8::1' } });
  expect(other.status).toBe(401);
});
