// A data directory's feed downloads are its own, and only regular files are
// read from them. The feed state names its files by name, resolved against
// the directory that reads it: a refresh in a copy of the directory (a move,
// a restore) replaced the downloads of the directory it came from, since the
// state held absolute paths. And a download that is no longer readable at
// build time (a FIFO, which blocked the refresh for good with SIGTERM
// unanswered, or a damaged file, whose feed silently vanished from the
// database) gives way to the feed's snapshot, with a warning.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { torList } from '../../helpers/feed-server.js';
import { installTestDatabase } from '../../helpers/ipdb-cache.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'sg-feed-dirs-'));
const A = path.join(root, 'a');
const B = path.join(root, 'b');
const list = (name: string, count: number) => {
  const file = path.join(root, name);
  writeFileSync(file, torList(Array.from({ length: count }, (_, i) => `185.220.101.${i + 1}`)));
  return pathToFileURL(file).href;
};
const refresh = (dataDir: string, tor: string) =>
  runCli(['ipdb', 'refresh'], dataDir, { SPLITGUARD_IPDB_SOURCES: 'package:', SPLITGUARD_FEEDS: 'tor', SPLITGUARD_FEED_SOURCES: `tor=${tor}` }, 90_000);
const downloads = (dataDir: string) => readdirSync(path.join(dataDir, 'ipdb', 'feeds')).filter((f) => /^tor\.[0-9a-z]+\.0$/.test(f));
async function torVersion(dataDir: string): Promise<string> {
  const info = await runCli(['ipdb', 'info'], dataDir, { SPLITGUARD_FEEDS: 'tor' });
  expect(info.code, info.stderr).toBe(0);
  return (JSON.parse(info.stdout) as { feeds: { name: string; version: string }[] }).feeds.find((f) => f.name === 'tor')!.version;
}

beforeAll(async () => {
  installTestDatabase(A);
  const first = await refresh(A, list('tor-40', 40));
  expect(first.code, first.stderr).toBe(0);
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('a copy of the directory replaces its own downloads, not the original\'s', async () => {
  const original = downloads(A);
  expect(original).toHaveLength(1);
  cpSync(A, B, { recursive: true });
  const r = await refresh(B, list('tor-30', 30));
  expect(r.code, r.stderr).toBe(0);
  expect(downloads(A)).toEqual(original);
  expect(downloads(B)).toHaveLength(1);
  expect(downloads(B)).not.toEqual(original);
  expect(await torVersion(A)).not.toMatch(/^snapshot/);
}, 120_000);

// A FIFO is not good data at all (the next download replaces it in full, no
// conditional request); a damaged regular file is found only by the build.
it.each([
  ['a FIFO', (file: string) => execFileSync('mkfifo', [file]), null],
  ['random bytes', (file: string) => writeFileSync(file, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))), /feed_unreadable.*snapshot/],
])('a download replaced by %s gives way to the snapshot', async (_what, replace, warning) => {
  const [download] = downloads(A);
  const file = path.join(A, 'ipdb', 'feeds', download);
  rmSync(file);
  replace(file);
  // No source for tor this time, and a database to repair: the build folds in what the state names.
  writeFileSync(path.join(A, 'ipdb', 'current.trie'), '');
  const r = await refresh(A, '');
  expect(r.code, r.stderr).toBe(0);
  if (warning) expect(`${r.stdout}${r.stderr}`).toMatch(warning);
  expect(await torVersion(A)).toMatch(/^snapshot /);
  rmSync(file);
  writeFileSync(file, torList(['185.220.101.1']));
}, 120_000);
