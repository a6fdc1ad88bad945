// ipdb/current.trie as a directory or a FIFO: `serve` and `ipdb refresh`
// stop at once with exit 1 and a one-line message that names the path and
// says what to do. Before, a directory printed a stack trace and a FIFO made
// the start wait for a writer forever.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'splitguard-not-a-file-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function dataDirWith(kind: 'directory' | 'fifo'): string {
  const dir = path.join(scratch, kind);
  mkdirSync(path.join(dir, 'ipdb'), { recursive: true });
  const file = path.join(dir, 'ipdb', 'current.trie');
  if (kind === 'directory') mkdirSync(file);
  else execFileSync('mkfifo', [file]);
  return dir;
}

it.each(['directory', 'fifo'] as const)('refuses a %s in place of the database, for serve and ipdb refresh', async (kind) => {
  const dataDir = dataDirWith(kind);
  const file = path.join(dataDir, 'ipdb', 'current.trie');
  for (const args of [['serve'], ['ipdb', 'refresh']]) {
    const r = await runCli(args, dataDir, { PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: '1', SPLITGUARD_IPDB_SOURCES: 'package:' }, 20_000);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
    expect(r.stderr).toBe(`splitguard: the database path is not a regular file (move it away and start again): ${file}\n`);
  }
});
