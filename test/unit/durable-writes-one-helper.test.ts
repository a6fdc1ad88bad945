// Every file splitguard puts in place goes through src/durable-file.ts
// (temporary sibling, fsync, rename, directory fsync): no other module
// renames or writes a file in place itself. A new caller that does fails here.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');
const HELPER = path.join(SRC, 'durable-file.ts');
/** Calls that put a file in place: a rename, or a write straight to the final name. */
const IN_PLACE = /\b(renameSync|rename|writeFileSync|writeFile|appendFileSync|appendFile)\s*\(/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

it('has no rename or in-place write outside src/durable-file.ts', () => {
  const offenders = sources(SRC)
    .filter((f) => f !== HELPER)
    .flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${path.relative(SRC, f)}:${i + 1}` }))
        .filter(({ line }) => IN_PLACE.test(line) && !line.trimStart().startsWith('//') && !line.trimStart().startsWith('*')),
    )
    .map((o) => `${o.at}: ${o.line.trim()}`);
  expect(offenders).toEqual([]);
});

it('is used by every module that installs a file', () => {
  const users = sources(SRC)
    .filter((f) => /from '(\.\.\/)+durable-file\.js'|from '\.\/durable-file\.js'/.test(readFileSync(f, 'utf8')))
    .map((f) => path.relative(SRC, f))
    .sort();
  // The TLS pair, the first-start secrets, database files, the feed cache, the keyword cache, backups.
  expect(users).toEqual(expect.arrayContaining(['bootstrap.ts', 'cli/backup.ts', 'ipdb/feeds/update.ts', 'ipdb/files.ts', 'ipdb/refresh.ts', 'quality/keyword-cache.ts', 'tls/self-signed.ts']));
});
