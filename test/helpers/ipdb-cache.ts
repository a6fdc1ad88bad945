// The IP database every test server starts with. Building it from the
// installed @ip-location-db/asn package takes seconds, so it is built once
// per package version and builder, kept in the system temp directory, and
// copied into each test's data directory at ipdb/current.trie.
//
// The file is built by the same code a first start runs
// (dist/ipdb/current.js ensureCurrentDatabase), in a child process, so the
// test runner never loads the native addon itself.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The version of the embedded source package, which is also the database's data version. */
export function embeddedPackageVersion(): string {
  const require = createRequire(path.join(ROOT, 'package.json'));
  const pkg = JSON.parse(readFileSync(require.resolve('@ip-location-db/asn/package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** Where the cached file lives: keyed by the package version, the builder's code, the feeds' snapshots and the built-in lists. */
function cachedDatabasePath(): string {
  const builder = createHash('sha256');
  for (const name of ['build.js', 'format.js', 'sources.js', 'files.js', 'current.js', 'feeds/registry.js', 'feeds/parse.js', 'feeds/state.js']) {
    builder.update(readFileSync(path.join(ROOT, 'dist', 'ipdb', name)));
  }
  for (const name of ['hosting-list.js', 'lists.js', 'keywords.js']) builder.update(readFileSync(path.join(ROOT, 'dist', 'quality', name)));
  // The snapshots are the feeds a first start folds in; the built-in lists
  // decide which ASNs the hosting feeds spare.
  for (const dir of [path.join(ROOT, 'feeds', 'snapshots'), path.join(ROOT, 'src', 'quality', 'lists')]) {
    for (const name of readdirSync(dir).sort()) builder.update(name).update(readFileSync(path.join(dir, name)));
  }
  const key = `${embeddedPackageVersion()}-${builder.digest('hex').slice(0, 12)}`;
  return path.join(os.tmpdir(), 'splitguard-test-ipdb', `asn-${key}.trie`);
}

/** Builds the cached database if it is not there yet; returns its path. Safe to race: the file appears by rename. */
export function ensureCachedDatabase(): string {
  const target = cachedDatabasePath();
  if (existsSync(target)) return target;
  mkdirSync(path.dirname(target), { recursive: true });
  const scratch = mkdtempSync(path.join(path.dirname(target), 'build-'));
  try {
    const current = pathToFileURL(path.join(ROOT, 'dist', 'ipdb', 'current.js')).href;
    execFileSync(
      process.execPath,
      ['--input-type=module', '-e', `const { ensureCurrentDatabase } = await import(${JSON.stringify(current)}); ensureCurrentDatabase(${JSON.stringify(scratch)});`],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    renameSync(path.join(scratch, 'ipdb', 'current.trie'), target);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return target;
}

/** Copies the cached database into `dataDir` where the server looks for it. */
export function installTestDatabase(dataDir: string): void {
  const source = ensureCachedDatabase();
  mkdirSync(path.join(dataDir, 'ipdb'), { recursive: true });
  copyFileSync(source, path.join(dataDir, 'ipdb', 'current.trie'));
}
