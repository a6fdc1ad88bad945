// A command whose reader stops early (`splitguard ipdb lookup --stdin | head
// -1`) ends quietly with exit 0 once the pipe is closed, instead of dying of
// an unhandled EPIPE with a stack trace.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { BIN, childEnv, tempDataDir } from '../../helpers/server.js';

const dataDir = tempDataDir();
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('ends with exit 0 and nothing on stderr when its output pipe closes', async () => {
  const child = spawn(process.execPath, [BIN, 'ipdb', 'lookup', '--stdin'], { env: childEnv(dataDir), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // The reader takes the first answer, then goes away.
  child.stdout.once('data', () => child.stdout.destroy());
  child.stdin.on('error', () => {}); // the command may end before it has read all of this
  for (let i = 0; i < 20_000; i++) child.stdin.write(`8.8.8.${i % 250}\n`);
  child.stdin.end();
  expect(await exited, stderr).toBe(0);
  expect(stderr).toBe('');
});
