// Runs once before the test files. Integration tests spawn the real server
// from dist/, so dist/ is rebuilt first when any source file is newer than
// its output (a stale build would test yesterday's code); then the IP
// database that every test server copies is built once (ipdb-cache.ts).
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ensureCachedDatabase, ROOT } from './ipdb-cache.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return sources(file);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [file] : [];
  });
}

function distIsStale(): boolean {
  const src = path.join(ROOT, 'src');
  for (const file of sources(src)) {
    const out = path.join(ROOT, 'dist', path.relative(src, file).replace(/\.ts$/, '.js'));
    let built: number;
    try {
      built = statSync(out).mtimeMs;
    } catch {
      return true;
    }
    if (statSync(file).mtimeMs > built) return true;
  }
  return false;
}

export default function setup(): void {
  if (distIsStale()) {
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
        cwd: ROOT,
        stdio: 'pipe',
      });
    } catch (err) {
      const e = err as { stdout?: Buffer; stderr?: Buffer };
      throw new Error(`building dist/ failed:\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`);
    }
  }
  ensureCachedDatabase();
}
