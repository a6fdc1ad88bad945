// The piscina task that turns downloaded sources and feeds into a validated
// database file, off the serving threads: parse, compile, write to `out` (a
// temporary name: fsync, then the native reader validates it fully), and
// compute the keyword tables the classifiers of every thread will share.
import { buildFromFiles, type FileBuildReport, installDatabaseFile, rebuildWithFeeds } from './files.js';
import type { FeedFile } from './feeds/state.js';
import { IpDatabase } from './database.js';
import type { KeywordTables } from '../quality/classifier.js';
import { keywordTablesFor } from '../quality/keyword-cache.js';
import { builtInLists } from '../quality/lists.js';
import { binding } from './native.js';

// This pool thread only ever builds: under SCHED_IDLE it runs on CPU time
// the serving threads leave idle and yields to them at once (bench:swap,
// docs/performance.md). Refusal only costs priority.
const idle = binding.setIdleScheduling();

export interface BuildTask {
  /** The ASN data: source files, or (when only feeds changed) the database file whose ASN data is kept. */
  files?: string[];
  database?: string;
  /** The feeds to fold in, in priority order. */
  feeds: FeedFile[];
  excludeAsns: number[];
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
  /** Whether the build ran under SCHED_IDLE. */
  idleScheduling: boolean;
}

export default function build(task: BuildTask): BuildResult {
  const options = { sourceName: task.sourceName, dataVersion: task.dataVersion, feeds: task.feeds, excludeAsns: task.excludeAsns };
  const { bytes, report } = task.database !== undefined ? rebuildWithFeeds(task.database, options) : buildFromFiles(task.files ?? [], options);
  installDatabaseFile(bytes, task.out);
  const db = IpDatabase.open(task.out);
  try {
    return { report, tables: keywordTablesFor(db, builtInLists(), task.cacheDir), info: db.info, idleScheduling: idle };
  } finally {
    db.close();
  }
}
