// One server per data directory. Two `serve` processes on one directory
// would each keep rate limits, lifetime quotas and failed-sign-in counts of
// their own (an account would get twice its limit), run the refresh schedule
// twice, and each clear the other's refresh and write leftovers at its
// start. So a start takes an exclusive flock(2) on <data dir>/splitguard.lock
// and holds it until it has stopped; `restore`, which swaps the store out
// from under a server, takes it for its swap.
//
// The lock is the kernel's, on the open file description: it is gone when
// the descriptor closes or the process ends, however it ends (kill -9 too),
// so a crash leaves nothing stale, and a restarted container whose server is
// pid 1 again is not refused by a pid that merely matches. The file's text,
// "<role> <pid>", is only what a refusal names; the file is never removed
// (a process that opened it just before the removal would lock a file that
// no longer has the name). On file systems without locks (some network
// file systems answer ENOLCK) nothing is refused, and the start logs that it
// could not take the lock.
import { closeSync, constants, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import { AppError } from './errors.js';
import { binding } from './ipdb/native.js';
import { log } from './log.js';

const DATA_LOCK_FILE = 'splitguard.lock';

/** Who holds the lock: the refusal says so. */
type Role = 'server' | 'restore';

const EWOULDBLOCK = 11;

export interface DataDirLock {
  /** Closes the descriptor, and with it the lock. Once only; later calls do nothing. */
  release(): void;
}

/** What the lock file says of its holder, for the refusal ("the server with pid 4242"); tolerant of any text. */
function holder(fd: number): string {
  const buf = Buffer.alloc(64);
  let n = 0;
  try {
    n = readSync(fd, buf, 0, buf.length, 0);
  } catch {
    // unreadable: named as another process
  }
  const m = /^(server|restore) ([1-9][0-9]{0,9})\n/.exec(buf.toString('latin1', 0, n));
  if (!m) return 'another process';
  return m[1] === 'server' ? `the server with pid ${m[2]}` : `a restore (pid ${m[2]})`;
}

/**
 * Takes the data directory's lock for `role`, or throws data_dir_in_use
 * naming the holder. The directory must exist.
 */
export function lockDataDir(dataDir: string, role: Role): DataDirLock {
  const file = path.join(dataDir, DATA_LOCK_FILE);
  let fd: number;
  try {
    // O_NOFOLLOW: a symbolic link put in its place is refused, not followed
    // (Node opens every descriptor close-on-exec: no child inherits the lock).
    fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    throw new AppError('storage_unusable', `${file}: ${(err as Error).message}`, null, { cause: err });
  }
  const errno = binding.lockExclusive(fd);
  if (errno === EWOULDBLOCK) {
    const who = holder(fd);
    closeSync(fd);
    throw new AppError('data_dir_in_use', `${dataDir} is held by ${who}`);
  }
  if (errno !== 0) {
    log('warn', 'data_dir_lock_unavailable', { file, errno });
  } else {
    try {
      ftruncateSync(fd, 0);
      writeSync(fd, `${role} ${process.pid}\n`, 0);
    } catch {
      // The lock holds without its text; a refusal then says "another process".
    }
  }
  let open = true;
  return {
    release() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}
