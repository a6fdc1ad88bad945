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

/** `input` is written to the command's standard input, which then ends (without it, the input stays open and empty). */
export function runCli(args: string[], dataDir: string, env: Env = {}, timeoutMs = 30_000, input?: string | Buffer): Promise<CliResult> {
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
    // A command that refuses its input stops reading it and ends: the rest
    // of the write fails (EPIPE), which is that refusal, not the test's error.
    child.stdin!.on('error', () => {});
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** Runs a command that must succeed and print one JSON object. */
export async function runCliJson<T = Record<string, unknown>>(args: string[], dataDir: string, env: Env = {}, input?: string | Buffer): Promise<T> {
  const r = await runCli(args, dataDir, env, undefined, input);
  if (r.code !== 0) throw new Error(`splitguard ${args.join(' ')} exited ${r.code}\n${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
