// A regular file where the data directory keeps its ipdb/ or tls/ directory:
// the start (and `ipdb refresh`) stops with exit 1 and one line naming that
// entry, and a first start has bootstrapped nothing. Before, the refusal
// named a file below it that does not exist (ipdb/current.trie, tls/cert.pem:
// stat fails with ENOTDIR), and with tls/ a file the first start printed the
// admin password and API key and wrote the store before it failed.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { tempDataDir } from '../../helpers/server.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'splitguard-entry-not-a-dir-'));
const dirs: string[] = [scratch];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const SERVE_ENV = { PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: '1', SPLITGUARD_IPDB_SOURCES: 'package:' };
const refusal = (entry: string) => `splitguard: ${entry} is not a directory; the data directory needs a directory there (move it away and start again)\n`;

it('names ipdb/ when it is a file, for serve and ipdb refresh', async () => {
  const dataDir = path.join(scratch, 'ipdb-a-file');
  mkdirSync(dataDir);
  const entry = path.join(dataDir, 'ipdb');
  writeFileSync(entry, 'x\n');
  for (const args of [['serve'], ['ipdb', 'refresh']]) {
    const r = await runCli(args, dataDir, SERVE_ENV, 20_000);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
    expect(r.stderr).toBe(refusal(entry));
  }
});

it('names tls/ when it is a file, before a first start bootstraps anything', async () => {
  const dataDir = tempDataDir();
  dirs.push(dataDir);
  const entry = path.join(dataDir, 'tls');
  writeFileSync(entry, 'x\n');
  const before = readdirSync(dataDir).sort();
  const r = await runCli(['serve'], dataDir, SERVE_ENV, 20_000);
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toBe(refusal(entry));
  expect(readdirSync(dataDir).sort()).toEqual(before);
});
