// Anyone who may write to the data directory can truncate a file there. The
// server maps no file of it (the IP database it serves is a sealed memory
// copy, src/ipdb/serving.ts) and reads the others whole, so truncating every
// file while redirects and IP checks run kills nothing: the server keeps
// classifying with the database it loaded. Before, truncating the serving
// copy under ipdb/serving/ ended the process with SIGBUS.
//
// Not covered: LMDB's own files under db/. LMDB maps data.mdb and cannot
// survive it being truncated (it is the same as deleting the store, see
// docs/reliability.md); nothing but splitguard may write there.
import { readdirSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertAnswering } from '../../helpers/attack.js';
import { check } from '../../helpers/refresh.js';
import { createRoute, NO_RATE_LIMIT, PAGE_B, RedirectClient, TRUST_LOOPBACK } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ threads: 2, env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK } });
});
afterAll(() => server?.close());

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : e.isFile() ? [p] : [];
  });
}

it('keeps serving and classifying after every file of the data directory is truncated', async () => {
  const route = await createRoute(server, { split_ratio: 1, default_group: 'b', intercept_level: 'medium' });
  const visits = new RedirectClient(server);
  const files = filesUnder(server.dataDir).filter((f) => !f.startsWith(path.join(server.dataDir, 'db') + path.sep));
  expect(files.map((f) => path.relative(server.dataDir, f))).toEqual(expect.arrayContaining(['ipdb/current.trie', 'tls/cert.pem', 'tls/key.pem', 'bootstrap.json']));
  for (const file of files) {
    expect(statSync(file).size).toBeGreaterThan(0);
    truncateSync(file, 0);
    for (let thread = 0; thread < 2; thread++) {
      expect((await visits.visit(route.code, { thread, forwardedFor: '8.8.8.8' })).location).toBe(PAGE_B);
      expect(await check(server, '8.8.8.8', thread)).toMatchObject({ found: true, asn: 15169, intercepted: true });
    }
  }
  visits.close();
  await assertAnswering(server);
  expect(server.process.exitCode).toBeNull();
  expect(server.process.signalCode).toBeNull();
});
