// A private Redis for a test: redis-server on a free loopback port with its
// working directory in a fresh temporary directory, nothing saved to disk;
// stopped (SIGKILL: it is a cache, nothing of it is to be kept) and started
// again on the same port on demand, removed at the end. A redis-server this
// helper started is killed when the test process exits, however it exits, so
// none outlives its test.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from './ports.js';

export interface TestRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL) and waits for it to exit; its data is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty). */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

export function redisInstalled(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of running) c.kill('SIGKILL');
});

export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-redis-'));
  const logFile = path.join(dir, 'redis.log');
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    if (child) throw new Error('this test Redis is already running');
    const c = spawn(
      'redis-server',
      // CLIENT PAUSE (tests of a stalled Redis) needs no debug command.
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', logFile],
      { stdio: 'ignore' },
    );
    child = c;
    let failed: Error | null = null;
    c.once('error', (err) => {
      failed = err;
    });
    running.add(c);
    c.once('exit', () => running.delete(c));
    try {
      await waitForPort(port, 10_000, () => failed !== null || c.exitCode !== null || c.signalCode !== null);
    } catch (err) {
      child = null;
      c.kill('SIGKILL');
      let tail = '';
      try {
        tail = readFileSync(logFile, 'utf8').slice(-2000);
      } catch {
        // no log written
      }
      throw new Error(`redis-server did not start on port ${port}: ${(failed as Error | null)?.message ?? (err as Error).message}\n${tail}`);
    }
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  try {
    await start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
