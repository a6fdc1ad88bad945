// The open-file limit `splitguard serve` runs under, shared by every server
// thread, the connections they hold, the store and the refresh. serve raises
// the soft limit to the hard one before anything else opens a descriptor
// (this module loads little for that reason: the CLI calls it before the
// threads and the server's modules load), and refuses to start when even the
// hard limit leaves the process too few descriptors of its own beside the
// connection guard's default cap (http/connection-guard.ts).
//
// What the process holds for itself at start: 27 descriptors plus 5 per
// server thread (Node's event loops, LMDB, TLS, the sealed database copy;
// docs/performance.md, "Figures behind code comments"); a refresh's downloads and its build process's pipes, and cluster
// mode's pools, take more while they run. Below the minimum a start fails
// wherever the descriptors run out: in Node's module loader (EMFILE), or in
// lmdb-js opening the store, whose error path then crashes the process
// (lmdb 3.5.6: EnvWrap::openEnv -> closeEnv -> ~ExtendedEnv, SIGSEGV).
import { AppError } from '../errors.js';
import { binding } from '../ipdb/native.js';
import { log } from '../log.js';

export interface FileLimit {
  soft: number;
  /** Infinity when unlimited. */
  hard: number;
}

/** The share of the limit the guard's global cap takes by default; the rest is the process's own. */
export const DEFAULT_SHARE_OF_FILE_LIMIT = 0.8;

/** Descriptors the process keeps for itself: the measured need above, with room for a refresh and a cluster's pools. */
const reservedFor = (threads: number) => 32 + 8 * threads;

/**
 * The least open-file limit serve starts with: what is left beside the
 * default cap, rounded as the guard rounds it, holds the process's own.
 */
function minimumFileLimit(threads: number): number {
  const reserved = reservedFor(threads);
  let limit = reserved;
  while (limit - Math.floor(limit * DEFAULT_SHARE_OF_FILE_LIMIT) < reserved) limit++;
  return limit;
}

/**
 * Raises the soft limit to the hard one. Throws file_limit_too_low when that
 * is under minimumFileLimit(threads); null when the limit cannot be read
 * (logged: the guard then has no default global cap).
 */
export function raiseFileLimit(threads: number): FileLimit | null {
  let limit: FileLimit;
  try {
    limit = binding.raiseFileLimit();
  } catch (err) {
    log('error', 'file_limit_unknown', { error: err });
    return null;
  }
  const least = minimumFileLimit(threads);
  if (limit.soft < least) {
    const them = threads === 1 ? '1 server thread needs' : `${threads} server threads need`;
    throw new AppError(
      'file_limit_too_low',
      `${limit.soft} (hard limit ${limit.hard}); ${them} at least ${least}: raise it (ulimit -n, or LimitNOFILE= under systemd) or run fewer threads (SPLITGUARD_THREADS)`,
    );
  }
  return limit;
}
