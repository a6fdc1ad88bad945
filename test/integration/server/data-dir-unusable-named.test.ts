// A SPLITGUARD_DATA_DIR that cannot be a directory stops the start at once
// with exit 1 and one line naming the variable, the path and why: a regular
// file, a path below a file, and a path below /proc/self, where Node 20's
// recursive mkdir never returned (the start spun at full CPU, printed
// nothing and ignored SIGTERM), and so did every CLI command there. Before,
// the first two named the path but not the variable.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { serveToExit } from '../../helpers/server.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'sg-data-dir-'));
const file = path.join(scratch, 'a-file');
writeFileSync(file, 'not a directory\n');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it.each([
  ['a regular file', file, /ENOTDIR: not a directory/],
  ['a path below a file', path.join(file, 'data'), /ENOTDIR: not a directory/],
  ['a path below /proc/self', '/proc/self/splitguard-data', /ENOENT|EACCES|EPERM|not permitted|no such file/i],
])('%s: exit 1 naming SPLITGUARD_DATA_DIR and the path', (_what, dataDir, why) => {
  const started = Date.now();
  const run = serveToExit(dataDir);
  expect(run.signal, `killed after ${Date.now() - started} ms: the start hung`).toBeNull();
  expect(run.status, run.stderr).toBe(1);
  const line = run.stderr.split('\n').find((l) => l.includes('SPLITGUARD_DATA_DIR'));
  expect(line, run.stderr).toBeDefined();
  expect(line).toContain(dataDir);
  expect(line).toMatch(why);
});

it('a CLI command on a data directory below /proc/self exits 1 naming the path', async () => {
  const dataDir = '/proc/self/splitguard-data';
  const r = await runCli(['account', 'create', '--name', 'x'], dataDir, {}, 10_000);
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toContain(dataDir);
});
