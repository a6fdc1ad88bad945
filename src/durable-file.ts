// Small files that must survive a crash of the machine whole or not at all
// (the self-signed TLS pair, the first-start secrets): written to a
// temporary file, fsynced, renamed into place, and the directory fsynced.
// Without this, a crash in the seconds after writing leaves an empty file.
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';

export function writeFileDurably(file: string, text: string, mode: number): void {
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, text);
    fchmodSync(fd, mode);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  const dir = openSync(path.dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
