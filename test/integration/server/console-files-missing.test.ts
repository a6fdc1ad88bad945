// serve without the console's built files (an install that lost
// src/console/static) stops with console_files_missing's one line, not a
// stack trace. The install is a copy of dist/ and bin/ beside links to
// everything else, with src/console/static left out.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../../helpers/ipdb-cache.js';
import { childEnv, tempDataDir } from '../../helpers/server.js';

const install = mkdtempSync(path.join(os.tmpdir(), 'splitguard-no-console-'));
const dataDir = tempDataDir();
afterAll(() => {
  rmSync(install, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

/** `to` holds links to every entry of `from` but those in `skip` (names relative to `from`, nested with '/'). */
function linkTree(from: string, to: string, skip: string[]): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    if (skip.includes(name)) continue;
    const nested = skip.filter((s) => s.startsWith(`${name}/`)).map((s) => s.slice(name.length + 1));
    if (nested.length > 0) linkTree(path.join(from, name), path.join(to, name), nested);
    else symlinkSync(path.join(from, name), path.join(to, name));
  }
}

it('exits 1 with one line naming where it looked', async () => {
  // dist/ and bin/ are copies: Node runs a module from its real path, and the console's files are looked for beside it.
  linkTree(ROOT, install, ['dist', 'bin', 'src/console/static']);
  cpSync(path.join(ROOT, 'dist'), path.join(install, 'dist'), { recursive: true });
  cpSync(path.join(ROOT, 'bin'), path.join(install, 'bin'), { recursive: true });
  const env = childEnv(dataDir, { PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: '1' });
  const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, [path.join(install, 'bin', 'splitguard.js'), 'serve'], { cwd: install, env, timeout: 20_000, encoding: 'utf8' }, (_err, _stdout, stderr) =>
      resolve({ code: child.exitCode, stderr }),
    );
  });
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toMatch(/^splitguard: the console's files were not found: looked in .*\n$/);
  expect(r.stderr).not.toContain('    at ');
});
