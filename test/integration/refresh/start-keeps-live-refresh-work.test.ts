// A start removes the work directories of refreshes whose process is gone,
// and keeps those of a process still running: an `ipdb refresh` of the CLI on
// the same data directory. Before, a server started during such a refresh
// removed its work directory, and the refresh failed blaming its source
// (`candidate.trie (ENOENT)`), recorded as the source's failure (the files
// review of 2026-11-27).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const dataDir = tempDataDir();
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('keeps a running process\'s refresh work and removes what dead ones left', async () => {
  // A pid that was alive a moment ago and is gone now.
  const gone = spawnSync(process.execPath, ['-e', '']).pid!;
  const work = (name: string) => {
    const dir = path.join(dataDir, 'ipdb', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'part-0-asn-ipv4.csv'), '1.0.0.0,1.0.0.255,13335,Cloudflare\n');
    return dir;
  };
  const live = work(`refresh-${process.pid}-${Date.now()}`);
  const dead = work(`refresh-${gone}-${Date.now()}`);
  const older = work(`refresh-${Date.now()}`);
  server = await startServer({ dataDir });
  expect(existsSync(live)).toBe(true);
  expect(existsSync(dead)).toBe(false);
  expect(existsSync(older)).toBe(false);
});
