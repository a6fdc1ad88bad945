// Building a trie file from source files on disk and installing it safely.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.js';
import { buildDatabase, type BuildReport } from './build.js';
import { IpDatabase } from './database.js';
import { parseSources, type ParsedSources } from './sources.js';

export interface BuildFromFilesOptions {
  sourceName?: string;
  dataVersion?: string;
  onProgress?: (phase: string, fraction: number) => void;
}

export interface FileBuildReport extends BuildReport {
  lines: number;
  malformed: number;
  unrouted: number;
  malformedExamples: ParsedSources['malformedExamples'];
}

/** Parses and compiles source files (CSV/TSV, plain or gzip) into trie bytes. */
export function buildFromFiles(files: string[], options: BuildFromFilesOptions = {}): { bytes: Uint8Array; report: FileBuildReport } {
  const inputs = files.map((file) => {
    try {
      return { name: path.basename(file), data: readFileSync(file) };
    } catch (err) {
      throw new AppError('ipdb_source_unreadable', `${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, null, { cause: err });
    }
  });
  const parsed = parseSources(inputs, (f) => options.onProgress?.('parse', f));
  const { bytes, report } = buildDatabase(parsed, {
    sourceName: options.sourceName ?? inputs.map((i) => i.name).join(', '),
    dataVersion: options.dataVersion ?? new Date().toISOString().slice(0, 10).replaceAll('-', ''),
    onProgress: (f) => options.onProgress?.('build', f),
  });
  return {
    bytes,
    report: { ...report, lines: parsed.lines, malformed: parsed.malformed, unrouted: parsed.unrouted, malformedExamples: parsed.malformedExamples },
  };
}

/**
 * Writes trie bytes to `file` without ever exposing a partial file: a
 * temporary sibling is written, fsynced, fully validated by the native
 * reader, then renamed over the target and the directory fsynced.
 */
export function installDatabaseFile(bytes: Uint8Array, file: string): void {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    const fd = openSync(tmp, 'w', 0o644);
    try {
      let at = 0;
      while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    IpDatabase.open(tmp).close();
    renameSync(tmp, file);
    const dirFd = openSync(path.dirname(file), 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch (err) {
    // The cleanup must not hide the cause (in a missing or non-directory
    // parent, removing the temporary file fails too).
    try {
      rmSync(tmp, { force: true });
    } catch {
      // nothing was written there
    }
    if (err instanceof AppError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new AppError('ipdb_write_failed', `${file} (${code ?? (err as Error).message})`, null, { cause: err });
  }
}
