// `--help` after any command prints the usage (exit 0): `ipdb lookup --help`
// was "Unknown option '--help'" (exit 2). `--version` prints the package's
// version; it was an unknown command.
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { ROOT } from '../../helpers/ipdb-cache.js';
import { tempDataDir } from '../../helpers/server.js';
import path from 'node:path';

const dataDir = tempDataDir();
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it.each([[['--help']], [['help']], [['ipdb', 'lookup', '--help']], [['account', 'create', '-h']], [['backup', '--help']]])('%j prints the usage, exit 0', async (args) => {
  const r = await runCli(args, dataDir);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^splitguard: short-link A\/B router/);
  for (const line of ['splitguard ipdb lookup', 'splitguard account create', 'splitguard backup', 'splitguard --version']) expect(r.stdout).toContain(line);
  expect(r.stderr).toBe('');
});

it('--version prints the version, exit 0', async () => {
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  for (const args of [['--version'], ['version']]) {
    const r = await runCli(args, dataDir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
  }
});
