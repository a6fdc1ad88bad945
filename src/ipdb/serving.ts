// The threads never map current.trie itself. Each database they serve is a
// private, read-only copy under ipdb/serving/, so an operator who overwrites
// or truncates current.trie in place (cp instead of mv) cannot pull pages out
// from under a mapping (which would raise SIGBUS). A copy is removed once no
// thread serves it; unlinking a mapped file is safe, the pages stay until the
// last mapping goes.
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

export function servingDir(dataDir: string): string {
  return path.join(dataDir, 'ipdb', 'serving');
}

/** Copies `source` to a new serving file and returns its path. */
export function publish(dataDir: string, source: string): string {
  const dir = servingDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${Date.now()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}.trie`);
  copyFileSync(source, file);
  chmodSync(file, 0o444);
  return file;
}

/** Removes every serving file except those in `keep`. */
export function prune(dataDir: string, keep: ReadonlySet<string>): void {
  const dir = servingDir(dataDir);
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    if (!keep.has(file)) rmSync(file, { force: true });
  }
}
