// Load, short version of `npm run stress:soak` (test/stress/soak.js, 10
// minutes at half the measured capacity): 10 seconds of mixed traffic
// (redirects, IP checks single and batched, route reads and writes, a
// database refresh with a swap on every thread) at a modest fixed rate, with
// no error of any kind: every answer has its expected status, no connection
// fails, the server logs no error, and every redirect answered is counted.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../../helpers/ipdb-cache.js';
import { tempDataDir } from '../../helpers/server.js';

const RATE = 150;
const dataDir = tempDataDir();
const report = path.join(dataDir, 'soak-report.json');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it(`answers 20 s of mixed traffic at ${RATE} requests/s, a refresh included, without an error`, async () => {
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'test', 'stress', 'soak.js'), '--seconds', '10', '--rate', String(RATE), '--window', '5', '--refresh-at', '0.25', '--data-dir', dataDir, '--json', report], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d: Buffer) => output.push(d.toString()));
    child.stderr.on('data', (d: Buffer) => output.push(d.toString()));
    child.on('exit', resolve);
  });
  const log = output.join('');
  const result = JSON.parse(readFileSync(report, 'utf8'));
  expect(result.errors, log).toMatchObject({ total: 0, samples: [], serverLogErrors: [] });
  for (const [stream, c] of Object.entries(result.counts as Record<string, { answered: number; errors: number }>)) {
    expect(c.errors, stream).toBe(0);
    expect(c.answered, stream).toBeGreaterThan(0);
  }
  // The rate was held (within what the generator's per-second pacing gives).
  expect(result.achievedRps).toBeGreaterThan(RATE * 0.8);
  expect(result.refresh).toMatchObject({ status: 202, outcome: 'updated' });
  expect(result.clicks.lost).toBe(0);
  // The script's exit code also judges RSS growth and p99 steadiness, which
  // 20 s cannot show; here the server must just have stopped cleanly.
  expect(result.exitCode, log).toBe(0);
  expect(code, log).not.toBeNull();
}, 120_000);
