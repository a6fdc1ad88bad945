// Files read from paths an operator controls are read only when they are
// regular files: reading a FIFO blocks the reading thread for good (no signal
// handler runs on it, so even SIGTERM cannot end the process), and a
// directory or a device is nothing to read.

import { readFileSync, statSync } from 'node:fs';

/** Whether something other than a regular file stands at `file` (false when nothing does). */
export function notARegularFile(file: string): boolean {
  const st = statSync(file, { throwIfNoEntry: false });
  return st !== undefined && !st.isFile();
}

/** The bytes of `file`; throws, without reading, when it is missing or not a regular file. */
export function readRegularFile(file: string): Buffer {
  if (!statSync(file).isFile()) throw new Error(`${file} is not a regular file`);
  return readFileSync(file);
}
