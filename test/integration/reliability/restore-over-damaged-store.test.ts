// The way back from a damaged store is the one its refusal names: a restore
// from a backup. It replaces the damaged store (which lmdb-js cannot be
// trusted to open for the in-use check: store/lmdb-file.ts), keeps it beside
// the new one, and the server then starts and serves what the backup held.
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { api, createRoute } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const dataDir = tempDataDir();
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('restores a backup over a damaged store, keeps the damaged one, and serves again', async () => {
  server = await startServer({ dataDir });
  const route = await createRoute(server, { name: 'kept by the backup' });
  expect(await server.stop()).toBe(0);
  const backup = path.join(dataDir, 'backup.mdb');
  expect((await runCli(['backup', '--out', backup], dataDir)).code).toBe(0);

  writeFileSync(path.join(dataDir, 'db', 'data.mdb'), randomBytes(65536));
  const refused = await runCli(['backup', '--out', path.join(dataDir, 'again.mdb')], dataDir);
  expect(refused.code, refused.stderr).toBe(1);

  const restored = await runCliJson<{ previous: string }>(['restore', '--from', backup], dataDir);
  expect(existsSync(path.join(restored.previous, 'data.mdb'))).toBe(true);

  server = await startServer({ dataDir });
  const again = await api(server, 'GET', `/v1/routes/${route.id}`);
  expect(again.status).toBe(200);
  expect(again.json.name).toBe('kept by the backup');
});
