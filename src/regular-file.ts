// Files read from paths an operator controls are read only when they are
// regular files: reading a FIFO blocks the reading thread for good (no signal
// handler runs on it, so even SIGTERM cannot end the process), and a
// directory or a device is nothing to read.

import { readFileSync, statSync } from 'node:fs';
import { AppError } from './errors.js';

/**
 * What stands at `file`. A path that cannot be followed (a symlink loop, a
 * file where a directory should be, a directory that may not be searched) is
 * 'other', like a FIFO or a device: something is there that is not a file
 * to read.
 */
function standing(file: string): 'missing' | 'file' | 'directory' | 'other' {
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    return st === undefined ? 'missing' : st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other';
  } catch {
    return 'other';
  }
}

/** Whether something other than a regular file stands at `file` (false when nothing does). */
export function notARegularFile(file: string): boolean {
  const found = standing(file);
  return found === 'directory' || found === 'other';
}

/**
 * Whether something other than a directory stands at `dir` (false when
 * nothing does). Below such an entry every path fails with ENOTDIR, which
 * notARegularFile takes for "something there": the refusal must name `dir`,
 * not a file below it that does not exist.
 */
export function notADirectory(dir: string): boolean {
  const found = standing(dir);
  return found === 'file' || found === 'other';
}

/** Whether `file` is a regular file (false when it is missing or anything else). */
export function isRegularFile(file: string): boolean {
  return standing(file) === 'file';
}

/**
 * The bytes of `file`. A missing file or a directory fails as reading it
 * does (ENOENT, EISDIR); anything else that is not a regular file fails
 * without being opened, as AppError not_a_regular_file.
 */
export function readRegularFile(file: string): Buffer {
  if (standing(file) === 'other') throw new AppError('not_a_regular_file', file);
  return readFileSync(file);
}
