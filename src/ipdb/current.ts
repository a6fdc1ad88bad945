// The data directory's current database: <data dir>/ipdb/current.trie. It is
// only ever replaced by rename (files.ts), never written in place, because a
// mapped file that shrinks under a reader faults.
import { closeSync, existsSync, mkdirSync, openSync, readSync } from 'node:fs';
import { AppError, IpdbError } from '../errors.js';
import { notADirectory, notARegularFile } from '../regular-file.js';
import { binding } from './native.js';
import { FEEDS, type FeedDefinition } from './feeds/registry.js';
import { feedFiles } from './feeds/state.js';
import { excludedFromAsnFeeds } from '../quality/lists.js';
import path from 'node:path';
import { embeddedSource } from './embedded.js';
import { buildFromFiles, installDatabaseFile, type FileBuildReport } from './files.js';
import { Field, FORMAT_VERSION, MAGIC } from './format.js';

export function currentDatabasePath(dataDir: string): string {
  return path.join(dataDir, 'ipdb', 'current.trie');
}

/**
 * The format version of a trie file when it is one (magic matches) of a
 * version this build cannot read; null otherwise, including for files too
 * short or damaged to tell, which the reader then refuses by name.
 */
function otherFormatVersion(file: string): number | null {
  const head = Buffer.alloc(Field.version + 4);
  const fd = openSync(file, 'r');
  try {
    if (readSync(fd, head, 0, head.length, 0) < head.length) return null;
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1', 0, MAGIC.length) !== MAGIC) return null;
  const version = head.readUInt32LE(Field.version);
  return version === FORMAT_VERSION ? null : version;
}

/**
 * Returns the path of the current database, building it from the embedded
 * package (and the feeds' shipped snapshots) first when the data directory has none, or when the one it has was
 * written in another trie format version (an upgrade): `replacedVersion` then
 * names that version (else null). The next refresh brings the refreshed data
 * back.
 */
export function ensureCurrentDatabase(
  dataDir: string,
  onProgress?: (phase: string, fraction: number) => void,
  feeds: readonly FeedDefinition[] = FEEDS,
): { file: string; built: FileBuildReport | null; replacedVersion: number | null } {
  const file = currentDatabasePath(dataDir);
  if (notADirectory(path.dirname(file))) throw new AppError('not_a_directory', path.dirname(file));
  const exists = existsSync(file);
  // A directory, FIFO or device in its place is the operator's to move away:
  // reading a FIFO would wait for a writer forever, and replacing a
  // directory would throw away whatever is in it.
  if (notARegularFile(file)) {
    throw new IpdbError('ipdb_not_a_file', `${binding.statuses.ipdb_not_a_file} (move it away and start again)`, file);
  }
  const replacedVersion = exists ? otherFormatVersion(file) : null;
  if (exists && replacedVersion === null) return { file, built: null, replacedVersion };
  mkdirSync(path.dirname(file), { recursive: true });
  const source = embeddedSource();
  // The feeds as shipped (their snapshots): the first refresh brings them up to date.
  const { bytes, report } = buildFromFiles(source.files, {
    sourceName: source.name,
    dataVersion: source.version,
    onProgress,
    feeds: feedFiles(feeds, null, dataDir),
    excludeAsns: excludedFromAsnFeeds(),
  });
  installDatabaseFile(bytes, file);
  return { file, built: report, replacedVersion };
}
