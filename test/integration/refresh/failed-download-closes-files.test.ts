// A download that fails half-way leaves no open file behind: the partial
// body's descriptor is closed, so repeated failures neither exhaust the
// server's descriptors nor keep deleted partial files' disk space.
import { readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newAccount, refreshNow } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { type SourceServer, startSourceServer } from '../../helpers/sources.js';

let sources: SourceServer;
let server: TestServer;
beforeAll(async () => {
  sources = await startSourceServer();
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: sources.location('truncated') } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

/** What the server process's descriptors point at. */
function openFiles(pid: number): string[] {
  const dir = `/proc/${pid}/fd`;
  return readdirSync(dir).flatMap((fd) => {
    try {
      return [readlinkSync(path.join(dir, fd))];
    } catch {
      return []; // closed meanwhile
    }
  });
}

it.runIf(process.platform === 'linux')('closes the partial files of truncated downloads', async () => {
  const work = path.join(server.dataDir, 'ipdb', 'refresh-');
  for (let i = 0; i < 3; i++) {
    const { api_key } = await newAccount(server, `truncated ${i}`);
    const status = await refreshNow(server, api_key);
    expect(status.last_refresh!.nodes[0].error).toMatch(/closed after|truncated/);
  }
  expect(sources.requests.filter((r) => r.mode === 'truncated')).toHaveLength(6);
  // The refresh moves on at the first failed part; the other part's download
  // fails a moment later, and its file must be closed then too.
  const { value } = await waitUntil(
    async () => openFiles(server.process.pid!).filter((f) => f.startsWith(work)),
    (files) => files.length === 0,
    3000,
  ).catch((err: Error) => ({ value: [err.message] }));
  expect(value).toEqual([]);
});
