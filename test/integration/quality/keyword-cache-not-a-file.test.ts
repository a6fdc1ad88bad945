// The keyword tables' cache (data/ipdb/keywords-*.bin) is read at every
// start; a FIFO in its place hung the start for good. It is now read only
// when it is a regular file: anything else is a miss, computed and written
// over, and the server starts.
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const dataDir = tempDataDir();
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('starts with a FIFO where the keyword cache goes, and writes the cache over it', async () => {
  const first = await startServer({ dataDir });
  servers.push(first);
  expect(await first.stop()).toBe(0);
  const ipdb = path.join(dataDir, 'ipdb');
  const [name] = readdirSync(ipdb).filter((n) => n.startsWith('keywords-'));
  expect(name).toBeDefined();
  const cache = path.join(ipdb, name);
  rmSync(cache);
  expect(spawnSync('mkfifo', [cache]).status).toBe(0);

  const second = await startServer({ dataDir, timeoutMs: 20_000 });
  servers.push(second);
  expect(statSync(cache).isFile()).toBe(true);
  expect(await second.stop()).toBe(0);
});
