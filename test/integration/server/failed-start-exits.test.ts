// The server threads are created early (they load their modules while the
// main thread opens the store and the database, serve/threads.ts spawn()),
// so a start that fails after that point must still end the process rather
// than leave it waiting on threads that were never told to start.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'splitguard-failed-start-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it('exits with an error when the store cannot be opened after the threads were created', async () => {
  const dataDir = path.join(scratch, 'data');
  mkdirSync(dataDir);
  // Where the LMDB store lives, a plain file: opening it fails.
  writeFileSync(path.join(dataDir, 'db'), 'not a store');
  const r = await runCli(['serve'], dataDir, { PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: '2' }, 20_000);
  expect(r.code, r.stderr).not.toBe(0);
  expect(r.code, 'the process was killed by the timeout instead of exiting').not.toBeNull();
  expect(r.stderr).toMatch(/^splitguard: /);
});
