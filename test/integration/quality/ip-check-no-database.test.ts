// With no database loaded (current.trie damaged, and no source that can
// repair it), an IP check says so: 503 database_unavailable with
// Retry-After, for the single and the batch form. Before, it was 500
// internal, as if the server had failed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { closedPortLocation } from '../../helpers/sources.js';

let dataDir: string;
let server: TestServer;
beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'splitguard-test-'));
  mkdirSync(path.join(dataDir, 'ipdb'));
  writeFileSync(path.join(dataDir, 'ipdb', 'current.trie'), 'not a database\n'.repeat(10));
  server = await startServer({ dataDir, env: { SPLITGUARD_IPDB_SOURCES: await closedPortLocation() } });
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('answers 503 database_unavailable with Retry-After', async () => {
  for (const [method, p, json] of [['GET', '/v1/ip/check?ip=8.8.8.8'], ['POST', '/v1/ip/check', { ips: ['8.8.8.8'] }]] as const) {
    const res = await api(server, method, p, json);
    expect(res.status, res.body).toBe(503);
    expect(res.json).toEqual({ error: 'no IP database is loaded yet; try again shortly', code: 'database_unavailable', field: null });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  }
});
