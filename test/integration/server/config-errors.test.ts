// A bad configuration value stops `splitguard serve` before anything is
// touched: exit code 2, a one-line stderr message naming the variable, and
// no data directory created.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'splitguard-config-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it.each([
  ['PORT', 'abc'],
  ['PORT', '65536'],
  ['SPLITGUARD_THREADS', '0'],
  ['SPLITGUARD_TRUST_PROXY', 'nonsense'],
  ['SPLITGUARD_BASE_URL', 'ftp://x'],
  ['SPLITGUARD_RATE_LIMIT_PER_MIN', '-1'],
  ['SPLITGUARD_BUILD_MEMORY_MB', '32'],
  ['SPLITGUARD_CHANGE_LOG_MB', '0'],
  ['SPLITGUARD_SKETCH_DAYS', '27'],
  ['SPLITGUARD_CONVERSION_QUOTA', '-1'],
  ['SPLITGUARD_CONVERSION_QUOTA', '1e7'],
  ['HOST', 'not-an-address'],
])('%s=%s: exit 2 and a message naming the variable', async (variable, value) => {
  const dataDir = path.join(scratch, `${variable}-${value.replace(/\W/g, '_')}`);
  const r = await runCli(['serve'], dataDir, { PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: '1', [variable]: value });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(new RegExp(`^splitguard: ${variable} must be `));
  expect(r.stderr).toContain(value);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stdout).toBe('');
  expect(existsSync(dataDir)).toBe(false);
});
