// The threads never map a file of the data directory. Each database they
// serve is a sealed memory copy of current.trie (a memfd that can neither
// shrink, grow nor be written: native SealedCopy), which every thread opens
// through /proc/self/fd/<fd>. Anyone who can write to the data directory can
// truncate a file there, and a mapping whose pages vanish raises SIGBUS on
// the next read, ending the process; a sealed copy cannot be truncated, even
// by root, and is reachable from no path outside this process.
//
// Lifetime: the descriptor stays open while a thread may still open the copy
// (until every thread has swapped to the next one); closing it then does not
// unmap anything, the mappings keep the memory until their last reader goes.
import { closeSync, rmSync } from 'node:fs';
import path from 'node:path';
import { binding } from './native.js';

export interface ServingCopy {
  fd: number;
  /** The path every thread opens the copy by. */
  path: string;
}

/** A sealed memory copy of `source` (throws the reader's ipdb_* error when it cannot be made). */
export function publish(source: string): ServingCopy {
  const fd = binding.sealedCopy(source);
  return { fd, path: `/proc/self/fd/${fd}` };
}

/** Lets a copy go once no thread will open it again. */
export function release(copy: ServingCopy | null): void {
  if (copy !== null) closeSync(copy.fd);
}

/** Removes the file copies (ipdb/serving/) that versions before sealed copies left. */
export function removeServingFiles(dataDir: string): void {
  rmSync(path.join(dataDir, 'ipdb', 'serving'), { recursive: true, force: true });
}
