// The data directory's current database: <data dir>/ipdb/current.trie. It is
// only ever replaced by rename (files.ts), never written in place, because a
// mapped file that shrinks under a reader faults.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { embeddedSource } from './embedded.js';
import { buildFromFiles, installDatabaseFile, type FileBuildReport } from './files.js';

export function currentDatabasePath(dataDir: string): string {
  return path.join(dataDir, 'ipdb', 'current.trie');
}

/**
 * Returns the path of the current database, building it from the embedded
 * package first when the data directory has none.
 */
export function ensureCurrentDatabase(
  dataDir: string,
  onProgress?: (phase: string, fraction: number) => void,
): { file: string; built: FileBuildReport | null } {
  const file = currentDatabasePath(dataDir);
  if (existsSync(file)) return { file, built: null };
  mkdirSync(path.dirname(file), { recursive: true });
  const source = embeddedSource();
  const { bytes, report } = buildFromFiles(source.files, { sourceName: source.name, dataVersion: source.version, onProgress });
  installDatabaseFile(bytes, file);
  return { file, built: report };
}
