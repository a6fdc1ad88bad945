// A first start whose bootstrap.json cannot be written (here a directory
// stands in its place; a full disk or a read-only directory does the same)
// still starts and shows the admin login and the API key, saying that this is
// their only copy. Before, the start died with a stack trace after the store
// had them, and every later start made none: the login and the key were lost.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const dataDir = tempDataDir();
let server: TestServer;
beforeAll(async () => {
  mkdirSync(path.join(dataDir, 'bootstrap.json'));
  server = await startServer({ dataDir });
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('shows the login and the key once, says the file could not be written, and the key works', async () => {
  const file = path.join(dataDir, 'bootstrap.json');
  expect(server.logs().find((l) => l.event === 'bootstrap_file_unwritable')).toMatchObject({ level: 'error', file });
  const shown = /API key for account (\d+): (sg_\S+)/.exec(server.output());
  expect(shown, server.output()).not.toBeNull();
  expect(server.output()).toMatch(/admin login admin@localhost \/ \S+/);
  expect(server.output()).toContain(`(shown once and only here: ${file} could not be written: `);
  const res = await api({ ...server, apiKey: shown![2] }, 'GET', '/v1/account');
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ id: Number(shown![1]) });
});
