// The piscina task that turns downloaded sources into a validated database
// file, off the serving threads: parse, compile, write to `out` (a temporary
// name: fsync, then the native reader validates it fully), and compute the
// keyword tables the classifiers of every thread will share.
import { buildFromFiles, type FileBuildReport, installDatabaseFile } from './files.js';
import { IpDatabase } from './database.js';
import type { KeywordTables } from '../quality/classifier.js';
import { keywordTablesFor } from '../quality/keyword-cache.js';
import { builtInLists } from '../quality/lists.js';

export interface BuildTask {
  files: string[];
  out: string;
  /** Where keyword tables are cached (quality/keyword-cache.ts): the server finds them there after an install. */
  cacheDir: string;
  sourceName: string;
  dataVersion: string;
}

export interface BuildResult {
  report: FileBuildReport;
  tables: KeywordTables;
  info: IpDatabase['info'];
}

export default function build(task: BuildTask): BuildResult {
  const { bytes, report } = buildFromFiles(task.files, { sourceName: task.sourceName, dataVersion: task.dataVersion });
  installDatabaseFile(bytes, task.out);
  const db = IpDatabase.open(task.out);
  try {
    return { report, tables: keywordTablesFor(db, builtInLists(), task.cacheDir), info: db.info };
  } finally {
    db.close();
  }
}
