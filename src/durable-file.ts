// Files that must survive a crash of the machine whole or not at all (the
// self-signed TLS pair, the first-start secrets, database files, the feed
// cache): written to a temporary sibling, fsynced, renamed into place, and
// the directory fsynced. Without this, a crash in the seconds after writing
// leaves an empty or partial file under the final name.
import { closeSync, fchmodSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/** The temporary sibling writeFileDurably writes first: <file>.<pid>.<ms>.tmp. */
const TEMPORARY = /^.+\.([0-9]+)\.[0-9]+\.tmp$/;

/** Whether process `pid` is alive (one of another user's counts: EPERM). */
export const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Removes from `dirs` the temporary files of durable writes whose process
 * was killed mid-write (up to a database's size each, left for good
 * otherwise). For a start, before it writes anything: its own pid's are
 * left over too (a container's server is pid 1 every time); another running
 * process's (a CLI command on the same data directory) are kept.
 */
export function removeDeadWrites(dirs: readonly string[]): void {
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = TEMPORARY.exec(name);
      if (!m) continue;
      const pid = Number(m[1]);
      if (pid === process.pid || !processAlive(pid)) rmSync(path.join(dir, name), { force: true });
    }
  }
}

/**
 * Writes `data` to `file` durably. `check`, if given, runs on the complete
 * temporary file before the rename (a database is validated there): when it
 * throws, nothing is renamed and the temporary file is removed.
 */
export function writeFileDurably(file: string, data: string | Uint8Array, mode = 0o644, check?: (tmp: string) => void): void {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    const fd = openSync(tmp, 'w', mode);
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      let at = 0;
      while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
      fchmodSync(fd, mode);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    check?.(tmp);
    renameSync(tmp, file);
  } catch (err) {
    // The cleanup must not hide the cause (in a missing or non-directory
    // parent, removing the temporary file fails too).
    try {
      rmSync(tmp, { force: true });
    } catch {
      // nothing was written there
    }
    throw err;
  }
  syncPath(path.dirname(file));
}

/**
 * Moves a complete file or directory into place durably: it is fsynced (a
 * directory's entries, not the files in it: the caller syncs those), renamed,
 * and the directory it now lies in fsynced.
 */
export function moveDurably(from: string, to: string): void {
  syncPath(from);
  renameSync(from, to);
  syncPath(path.dirname(to));
}

/** fsync of a file or a directory (opened read-only, which Linux allows for both). */
export function syncPath(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
