// splitguard backup --out FILE | restore --from FILE
//
// A backup is one file: a compacted copy of <data dir>/db/data.mdb made by
// LMDB itself (mdb_env_copy2 with MDB_CP_COMPACT) inside one read
// transaction, so it is a consistent snapshot even while the server and the
// CLI keep writing, and it never blocks them. It holds accounts, key hashes,
// console users and sessions, routes, click statistics and blacklist edits;
// not the IP database (rebuilt or refreshed) nor the TLS files.
//
// Restore replaces <data dir>/db with a backup. It refuses to run while a
// server holds the data directory's lock (data-lock.ts), and holds it itself
// until the swap is done, so that no server starts meanwhile; and while any
// process has the store open: LMDB records every process that reads the
// store in its reader table (db/lock.mdb), with its pid, for as long as it
// has the environment open; readerCheck() first clears the entries of
// processes that have died, so a crashed server does not block a restore.
// The previous store is kept beside it (db.before-restore-<time>), never
// deleted. Both commands read the copy end to end in a child process first
// (store-check.ts), so a damaged or foreign file is refused with a message
// instead of being installed.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { lockDataDir } from '../data-lock.js';
import { moveDurably, syncPath } from '../durable-file.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from 'lmdb';
import { AppError } from '../errors.js';
import { ENV_OPTIONS, hasStore, makeDirectory, storeDir } from '../store/db.js';
import { lmdbFileProblem, storeProblem } from '../store/lmdb-file.js';
import { type Io, parseCommand } from './io.js';

export const backupUsage = `  splitguard backup --out FILE                       a consistent, compacted copy of the store (safe while serving)
  splitguard restore --from FILE                     replace the store with a backup (the server must be stopped)`;

const CHECK = fileURLToPath(new URL('./store-check.js', import.meta.url));

interface StoreSummary {
  schema_version: number;
  records: Record<string, number>;
}

const fail = (message: string) => new AppError('cli_failed', message);


/** Reads the store copy in DIR (DIR/data.mdb) end to end in a child process. */
function checkCopy(dir: string, what: string): StoreSummary {
  const r = spawnSync(process.execPath, [CHECK, dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10 * 60_000 });
  if (r.status === 0) return JSON.parse(r.stdout) as StoreSummary;
  const reason = r.signal ? `reading it failed with ${r.signal}: the file is damaged or truncated` : (r.stderr.trim().split('\n').pop() ?? `the check exited ${r.status}`);
  throw fail(`${what} is not a valid splitguard backup: ${reason}`);
}

/** Pids of other processes that have the store open, after clearing dead ones. */
function storeUsers(dbDir: string): number[] {
  const root = open({ path: dbDir, ...ENV_OPTIONS });
  try {
    root.readerCheck();
    const pids = new Set<number>();
    // readerList(): a header line, then "pid thread txnid" per reader slot.
    for (const line of root.readerList().split('\n')) {
      const pid = Number(line.trim().split(/\s+/)[0]);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid) pids.add(pid);
    }
    return [...pids];
  } finally {
    void root.close();
  }
}

/**
 * Why a file-system call failed: Node's errno code and the system's words
 * for it ("ENOSPC: no space left on device", without the call and paths Node
 * appends after a comma); LMDB's errors (a numeric code) by their message.
 */
function errno(err: unknown): string {
  const { code, message } = err as { code?: unknown; message: string };
  if (typeof code !== 'string') return message;
  const words = new RegExp(`^${code}: ([^,]+)`).exec(message)?.[1];
  return words === undefined ? code : `${code}: ${words}`;
}

/** Runs one step of a restore; its failure names the step and the cause. */
function step<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw fail(`restore: ${what} failed (${errno(err)})`);
  }
}

/**
 * Puts the restored store (staging) in the place of the current one (moved
 * aside to `previous`, when there is one). A failed step puts the current
 * store back where it was when nothing else is there yet, so that a failed
 * restore never leaves the data directory without its store (the next start
 * would make a new, empty one); the message says where everything is.
 */
function swapIn(staging: string, dbDir: string, previous: string | null): void {
  let what = `moving the current store ${dbDir} aside to ${previous}`;
  try {
    if (previous !== null) moveDurably(dbDir, previous);
    what = `moving the restored store into ${dbDir}`;
    moveDurably(staging, dbDir);
  } catch (err) {
    let where = '';
    if (previous !== null && existsSync(previous)) {
      if (existsSync(dbDir)) {
        // Renamed, then the directory's fsync failed: the restore is in place, maybe not on disk yet.
        where = `; the restored store is in ${dbDir}, the previous one in ${previous}`;
      } else {
        try {
          moveDurably(previous, dbDir);
        } catch (back) {
          // Renamed back before a directory's fsync failed: the store is in place.
          if (!existsSync(dbDir)) where = `; the previous store is in ${previous} (moving it back failed: ${errno(back)}), move it to ${dbDir}`;
        }
      }
    }
    throw fail(`restore: ${what} failed (${errno(err)})${where}`);
  }
}

export async function backupCommand(io: Io, args: string[]): Promise<number> {
  const { values } = parseCommand('backup', args, { out: { type: 'string' } }, false);
  if (!values.out) throw new AppError('cli_usage', 'backup: --out FILE is required');
  const started = performance.now();
  const out = path.resolve(values.out as string);
  const dbDir = storeDir(io.dataDir);
  if (!hasStore(io.dataDir)) throw fail(`backup: there is no store to back up in ${dbDir}`);
  const damaged = storeProblem(dbDir);
  if (damaged !== null) throw fail(`backup: ${damaged}; the store is damaged, there is nothing sound to back up`);
  if (existsSync(out)) throw fail(`backup: ${out} already exists; choose a new name or remove it`);
  const parent = path.dirname(out);
  if (!existsSync(parent) || !statSync(parent).isDirectory()) throw fail(`backup: the directory ${parent} does not exist`);

  // LMDB writes DIR/data.mdb; DIR is a sibling of FILE, so that the final
  // rename stays on one file system and FILE appears complete or not at all.
  const scratch = `${out}.${process.pid}.tmp`;
  try {
    try {
      mkdirSync(scratch);
    } catch (err) {
      throw fail(`backup: cannot write in ${parent} (${errno(err)})`);
    }
    const root = open({ path: dbDir, ...ENV_OPTIONS });
    let compacted = true;
    try {
      try {
        await root.backup(scratch, true);
      } catch {
        // Compaction refuses a store that has leaked pages; a plain copy
        // of the same snapshot is still consistent.
        rmSync(path.join(scratch, 'data.mdb'), { force: true });
        compacted = false;
        await root.backup(scratch, false);
      }
    } catch (err) {
      throw fail(`backup: copying the store failed (${errno(err)})`);
    } finally {
      await root.close();
    }
    const copy = path.join(scratch, 'data.mdb');
    const summary = checkCopy(scratch, 'backup: the copy');
    moveDurably(copy, out);
    const bytes = statSync(out).size;
    io.out(JSON.stringify({ out, bytes, compacted, ...summary, ms: Math.round(performance.now() - started) }));
    return 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export async function restoreCommand(io: Io, args: string[]): Promise<number> {
  const { values } = parseCommand('restore', args, { from: { type: 'string' } }, false);
  if (!values.from) throw new AppError('cli_usage', 'restore: --from FILE is required');
  const from = path.resolve(values.from as string);
  if (!existsSync(from)) throw fail(`restore: ${from} does not exist`);
  if (!statSync(from).isFile()) throw fail(`restore: ${from} is not a file`);
  if (statSync(from).size === 0) throw fail(`restore: ${from} is not a valid splitguard backup: it is empty`);
  const problem = lmdbFileProblem(from);
  if (problem !== null) throw fail(`restore: ${from} is not a valid splitguard backup: ${problem}`);

  const dbDir = storeDir(io.dataDir);
  // Every step that writes is one `step`: a full or read-only file system
  // is a message naming the step and the cause, and the current store stays
  // as it was (it is only renamed, and only once the copy is complete). A
  // data directory that cannot be written is refused before the store is
  // opened (LMDB would fail setting up its locks, a less clear message).
  step(`creating the data directory ${io.dataDir}`, () => makeDirectory(io.dataDir));
  step(`writing in the data directory ${io.dataDir}`, () => accessSync(io.dataDir, constants.W_OK));
  const lock = lockDataDir(io.dataDir);
  try {
    return restoreInto(io, from, dbDir);
  } finally {
    lock.release();
  }
}

/** The restore itself, under the data directory's lock. */
function restoreInto(io: Io, from: string, dbDir: string): number {
  // A damaged store cannot be opened to read its reader table (lmdb-js would
  // crash on it: store/lmdb-file.ts); it is replaced all the same, and kept.
  if (hasStore(io.dataDir) && storeProblem(dbDir) === null) {
    const pids = step(`opening the store in ${dbDir} to see who uses it`, () => storeUsers(dbDir));
    if (pids.length > 0) {
      throw fail(
        `restore: the store in ${dbDir} is in use by process ${pids.join(', ')} ` +
          '(a running server or splitguard command); stop it, then restore',
      );
    }
  }

  const staging = path.join(io.dataDir, `db.restore-${process.pid}`);
  step(`removing the leftover ${staging}`, () => rmSync(staging, { recursive: true, force: true }));
  try {
    step(`creating ${staging}`, () => mkdirSync(staging));
    step(`copying the backup into ${staging}`, () => {
      copyFileSync(from, path.join(staging, 'data.mdb'));
      syncPath(path.join(staging, 'data.mdb'));
    });
    const summary = checkCopy(staging, `restore: ${from}`);
    // The check's lock file describes readers that are gone; LMDB makes a new one.
    step(`removing the check's lock file from ${staging}`, () => rmSync(path.join(staging, 'lock.mdb'), { force: true }));

    const previous = existsSync(dbDir) ? path.join(io.dataDir, `db.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`) : null;
    swapIn(staging, dbDir, previous);
    io.out(JSON.stringify({ restored_from: from, db: dbDir, previous, ...summary }));
    return 0;
  } finally {
    // After a failure only: the staging copy is gone once swapped in. A
    // removal that fails too must not hide the failure being reported.
    try {
      rmSync(staging, { recursive: true, force: true });
    } catch {
      // left for the next restore, which removes it first
    }
  }
}
