// A durable write (src/durable-file.ts) goes to <file>.<pid>.<ms>.tmp, then
// is renamed; a process killed in between (kill -9, OOM, power loss) leaves
// the temporary file, up to a whole database (15 MB) each. A start removes
// those of writers that no longer run, in the data directory, ipdb/,
// ipdb/feeds/ and tls/, and keeps a running writer's (a CLI command on the
// same directory). Before, nothing removed them: reproduced on a real start
// killed as ipdb/current.trie.<pid>.<ms>.tmp appeared.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const dataDir = tempDataDir();
// A process that has ended: its pid names no running writer.
const dead = spawnSync(process.execPath, ['-e', '']).pid!;
const leftovers = [
  path.join('ipdb', `current.trie.${dead}.1795764847993.tmp`),
  path.join('ipdb', 'feeds', `tor.abc.0.${dead}.1795764847993.tmp`),
  path.join('tls', `key.pem.${dead}.1795764847993.tmp`),
  `bootstrap.json.${dead}.1795764847993.tmp`,
];
// This test's own process is running: its write may be under way.
const running = path.join('ipdb', `current.trie.${process.pid}.1795764847993.tmp`);
let server: TestServer;
beforeAll(async () => {
  for (const f of [...leftovers, running]) {
    mkdirSync(path.dirname(path.join(dataDir, f)), { recursive: true });
    writeFileSync(path.join(dataDir, f), Buffer.alloc(1 << 20));
  }
  server = await startServer({ dataDir });
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('removes the temporary files of killed writers at start, and keeps a running one\'s', () => {
  expect(leftovers.filter((f) => existsSync(path.join(dataDir, f)))).toEqual([]);
  expect(existsSync(path.join(dataDir, running))).toBe(true);
});
