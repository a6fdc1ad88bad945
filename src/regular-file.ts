// Files read from paths an operator controls are read only when they are
// regular files: reading a FIFO blocks the reading thread for good (no signal
// handler runs on it, so even SIGTERM cannot end the process), and a
// directory or a device is nothing to read.

import { readFileSync, statSync } from 'node:fs';

/**
 * What stands at `file`. A path that cannot be followed (a symlink loop, a
 * file where a directory should be, a directory that may not be searched) is
 * 'other', like a directory or a FIFO: something is there that is not a file
 * to read.
 */
function standing(file: string): 'missing' | 'file' | 'other' {
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    return st === undefined ? 'missing' : st.isFile() ? 'file' : 'other';
  } catch {
    return 'other';
  }
}

/** Whether something other than a regular file stands at `file` (false when nothing does). */
export function notARegularFile(file: string): boolean {
  return standing(file) === 'other';
}

/** Whether `file` is a regular file (false when it is missing or anything else). */
export function isRegularFile(file: string): boolean {
  return standing(file) === 'file';
}

/** The bytes of `file`; throws, without reading, when it is missing or not a regular file. */
export function readRegularFile(file: string): Buffer {
  const found = standing(file);
  if (found !== 'file') throw new Error(`${file} ${found === 'missing' ? 'does not exist' : 'is not a regular file'}`);
  return readFileSync(file);
}
