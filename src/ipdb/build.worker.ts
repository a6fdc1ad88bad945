// The database build's own process (refresh.ts runBuild): it turns
// downloaded sources and feeds into a validated database file: parse,
// compile, write to `out` (a temporary name: fsync, then the native reader
// validates it fully), check new ASN data against the serving database
// (candidate.ts), and compute the keyword tables the classifiers of every
// thread will share. The task is the one IPC message it receives; it sends
// back one answer, the result or the error's code and message, and exits.
import { checkCandidate, checkCandidateSize } from './candidate.js';
import { buildFromFiles, type FileBuildReport, installDatabaseFile, rebuildWithFeeds } from './files.js';
import type { FeedFile } from './feeds/state.js';
import { IpDatabase } from './database.js';
import type { KeywordTables } from '../quality/classifier.js';
import { keywordTablesFor } from '../quality/keyword-cache.js';
import { builtInLists } from '../quality/lists.js';
import { binding } from './native.js';

// Its parent's pid is its one argument: a build whose server died ends with
// it (the kernel's signal), and one whose server is already gone never starts.
if (!binding.endWithParent(Number(process.argv[2]))) process.exit(1);

// This process only ever builds: under SCHED_IDLE, every thread of it (V8's
// collector threads too), it runs on CPU time the serving threads leave idle
// and yields to them at once (bench:swap, docs/performance.md). Refusal only
// costs priority.
const idle = binding.setIdleScheduling();

export interface BuildTask {
  /** The ASN data: source files, or (when only feeds changed) the database file whose ASN data is kept. */
  files?: string[];
  database?: string;
  /**
   * New ASN data only: the serving database to check the candidate against
   * (a file that does not open, or none, leaves only the well-known owners).
   */
  compareWith?: string;
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

/** What the build process sends back: its result, or what its error says. */
export type BuildAnswer = { result: BuildResult } | { error: { code: string | undefined; message: string } };

process.once('message', (task: BuildTask) => {
  let answer: BuildAnswer;
  try {
    answer = { result: build(task) };
  } catch (err) {
    answer = { error: { code: (err as { code?: string }).code, message: (err as Error).message } };
  }
  process.send!(answer, () => process.exit(0));
});

function build(task: BuildTask): BuildResult {
  const options = { sourceName: task.sourceName, dataVersion: task.dataVersion, feeds: task.feeds, excludeAsns: task.excludeAsns };
  const { bytes, report } = task.database !== undefined ? rebuildWithFeeds(task.database, options) : buildFromFiles(task.files ?? [], options);
  const current = task.compareWith === undefined ? null : openIfValid(task.compareWith);
  try {
    if (task.compareWith !== undefined) checkCandidateSize(bytes.length, current);
    installDatabaseFile(bytes, task.out);
    const db = IpDatabase.open(task.out);
    try {
      if (task.compareWith !== undefined) checkCandidate(db, current);
      return { report, tables: keywordTablesFor(db, builtInLists(), task.cacheDir), info: db.info, idleScheduling: idle };
    } finally {
      db.close();
    }
  } finally {
    current?.close();
  }
}

/** The database at `file`, or null when it is missing or damaged (the refresh repairing it has nothing to compare with). */
function openIfValid(file: string): IpDatabase | null {
  try {
    return IpDatabase.open(file);
  } catch {
    return null;
  }
}
