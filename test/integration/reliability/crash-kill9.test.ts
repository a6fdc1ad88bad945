// Crash safety, short version of `npm run stress:crash` (test/stress/crash.js,
// 20 cycles): three times, SIGKILL the whole server at a random moment while
// clients create, update and delete routes and follow short links; restart
// it and check every acknowledged route and deletion, the list and quota
// counters, that the store reads end to end, and that the clicks lost are
// within what one flush interval holds (rate x 1.5 s).
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../../helpers/ipdb-cache.js';
import { tempDataDir } from '../../helpers/server.js';

const dataDir = tempDataDir();
const report = path.join(dataDir, 'crash-report.json');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Cycle {
  acknowledged: { creates: number; updates: number; deletes: number; redirects: number };
  checked: { live: number; deleted: number };
  clicks: { acknowledged: number; stored: number; lost: number; bound: number };
}

it('keeps every acknowledged change across 3 kill -9 restarts, and loses at most one flush interval of clicks', async () => {
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'test', 'stress', 'crash.js'), '--cycles', '3', '--min-ms', '1200', '--max-ms', '2500', '--seed', String(Date.now() % 100_000), '--data-dir', dataDir, '--json', report], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d: Buffer) => output.push(d.toString()));
    child.stderr.on('data', (d: Buffer) => output.push(d.toString()));
    child.on('exit', resolve);
  });
  const result = JSON.parse(readFileSync(report, 'utf8')) as { cycles: Cycle[]; violations: { cycle: number; text: string }[] };
  expect(result.violations, output.join('')).toEqual([]);
  expect(code, output.join('')).toBe(0);
  expect(result.cycles).toHaveLength(3);
  for (const c of result.cycles) {
    // The load really ran before each kill.
    expect(c.acknowledged.creates + c.acknowledged.updates + c.acknowledged.deletes).toBeGreaterThan(0);
    expect(c.acknowledged.redirects).toBeGreaterThan(0);
    expect(c.checked.live).toBeGreaterThan(0);
    expect(c.clicks.lost).toBeLessThanOrEqual(c.clicks.bound);
  }
});
