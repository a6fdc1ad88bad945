// One server per data directory. Two `serve` processes on one directory
// would each keep rate limits, lifetime quotas and failed-sign-in counts of
// their own (an account would get twice its limit), run the refresh schedule
// twice, and each clear the other's refresh and write leftovers at its
// start. So a start takes an exclusive flock(2) on the data directory itself
// and holds it until it has stopped; `restore`, which swaps the store out
// from under a server, takes it for its swap.
//
// The lock is the kernel's, on the open file description of the directory:
// it is gone when the descriptor closes or the process ends, however it ends
// (kill -9 too), so a crash leaves nothing stale, and there is no lock file
// that a cleaner, `rm` or `rsync --delete` could take away from under a
// running server (or that a link put in its place could turn into a write to
// another file). The refusal names the holder from the kernel's own table,
// /proc/locks, and its command line. Where the file system cannot lock
// (ENOLCK on some network file systems; EBADF on NFS, which emulates flock
// with POSIX locks that need a descriptor open for writing) nothing is
// refused, and the start logs that it could not take the lock.
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { AppError } from './errors.js';
import { binding } from './ipdb/native.js';
import { log } from './log.js';

export interface DataDirLock {
  /** Closes the descriptor, and with it the lock. Once only; later calls do nothing. */
  release(): void;
}

/**
 * Who holds the flock on the inode, for the refusal: "the server with pid
 * 4242", "a restore (pid 4242)", or "another process" when the kernel's
 * table does not say (no /proc, the holder gone meanwhile). A /proc/locks
 * line: `1: FLOCK  ADVISORY  WRITE <pid> <major>:<minor>:<inode> 0 EOF`.
 */
function holder(inode: number): string {
  let pid: string | undefined;
  try {
    for (const line of readFileSync('/proc/locks', 'latin1').split('\n')) {
      const m = /^\d+: FLOCK +\S+ +WRITE +(\d+) +[0-9a-f]+:[0-9a-f]+:(\d+) /.exec(line);
      if (m && Number(m[2]) === inode) pid = m[1];
    }
    if (pid === undefined) return 'another process';
    // A command line's arguments are NUL-separated: ... bin/splitguard.js serve
    const args = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
    return args.includes('restore') ? `a restore (pid ${pid})` : `the server with pid ${pid}`;
  } catch {
    return pid === undefined ? 'another process' : `process ${pid}`;
  }
}

/** Takes the data directory's lock, or throws data_dir_in_use naming the holder. The directory must exist. */
export function lockDataDir(dataDir: string): DataDirLock {
  let fd: number;
  try {
    fd = openSync(dataDir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (err) {
    throw new AppError('storage_unusable', `${dataDir}: ${(err as Error).message}`, null, { cause: err });
  }
  const errno = binding.lockExclusive(fd);
  if (errno === os.constants.errno.EWOULDBLOCK) {
    const who = holder(fstatSync(fd).ino);
    closeSync(fd);
    throw new AppError('data_dir_in_use', `${dataDir} is held by ${who}`);
  }
  if (errno !== 0) log('warn', 'data_dir_lock_unavailable', { dataDir, errno });
  let open = true;
  return {
    release() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}
