// An upgrade: the data directory's current.trie was written in another trie
// format version. The server rebuilds it from the embedded package at start
// (logging the version it replaced) and serves with it, instead of running
// without a database until the next refresh. A file that is not a trie file
// at all is still refused, never replaced (redirect-fail-open.test.ts).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Field, FORMAT_VERSION } from '../../../src/ipdb/format.js';
import { request } from '../../helpers/client.js';
import { buildFixture, rechecksum } from '../../helpers/fixture.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let dataDir: string;
let server: TestServer;
const current = () => path.join(dataDir, 'ipdb', 'current.trie');

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'splitguard-test-'));
  mkdirSync(path.join(dataDir, 'ipdb'));
  const old = buildFixture();
  new DataView(old.buffer, old.byteOffset).setUint32(Field.version, FORMAT_VERSION - 1, true);
  writeFileSync(current(), rechecksum(old));
  server = await startServer({ dataDir });
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('rebuilds the database in the current format and says which version it replaced', async () => {
  const built = server.logs().find((l) => l.event === 'database_built');
  expect(built?.replacedFormatVersion).toBe(FORMAT_VERSION - 1);
  expect(server.logs().some((l) => l.event === 'database_unavailable')).toBe(false);
  expect(readFileSync(current()).readUInt32LE(Field.version)).toBe(FORMAT_VERSION);
  const health = await request({ port: server.ports[0], ca: server.ca, path: '/healthz' });
  expect(health.status).toBe(200);
});
