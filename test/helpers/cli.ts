// Runs the splitguard command as an operator would: a separate process on
// the same data directory (possibly while a server runs on it).
import { execFile } from 'node:child_process';
import { BIN, childEnv, type Env } from './server.js';
import { ROOT } from './ipdb-cache.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], dataDir: string, env: Env = {}, timeoutMs = 30_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, env: childEnv(dataDir, env), timeout: timeoutMs, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') {
          reject(new Error(`splitguard ${args.join(' ')} failed to run: ${err.message}\n${stdout}${stderr}`));
          return;
        }
        resolve({ code: child.exitCode, stdout, stderr });
      },
    );
  });
}

/** Runs a command that must succeed and print one JSON object. */
export async function runCliJson<T = Record<string, unknown>>(args: string[], dataDir: string, env: Env = {}): Promise<T> {
  const r = await runCli(args, dataDir, env);
  if (r.code !== 0) throw new Error(`splitguard ${args.join(' ')} exited ${r.code}\n${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
