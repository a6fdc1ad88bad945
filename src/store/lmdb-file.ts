// What LMDB reads first of a store, checked before lmdb-js is asked to open
// it: when opening an environment fails, lmdb-js 3.5.6 crashes the process on
// its own error path (EnvWrap::openEnv -> closeEnv -> ~ExtendedEnv: SIGSEGV,
// or a heap-corruption abort), so a data.mdb that LMDB would reject must never
// reach it. The checks are mdb_env_read_header's, in its order
// (node_modules/lmdb/dependencies/lmdb/libraries/liblmdb/mdb.c), for the
// layout of this build, little-endian, offsets from the start of a meta page:
//
//   page header  pgno u64 @0, txnid u64 @8, pad u16 @16, flags u16 @18 (P_META 0x08), lower/upper @20
//   meta         magic u32 @24 = 0xBEEFC0DE, version u32 @28 (low 16 bits: 2),
//                address u64 @32, mapsize u64 @40, dbs[0].pad u32 @48 = the page size, ...
//
// LMDB reads 168 bytes (the page header and the meta) of the first meta page
// at 0 and of the second at the page size the first names; a short read of
// either is MDB_INVALID. It checks the stamp of the first only, then trusts
// whichever has the later transaction; both are stamped when LMDB creates a
// file, so here both must be. An empty or missing file is a new store. A file
// cut short after its meta pages passes (LMDB's last page number may lie past
// the end of a healthy file, so its length proves nothing): the page walk
// (storePagesProblem) finds the pages it lost.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { binding } from '../ipdb/native.js';
import { notARegularFile } from '../regular-file.js';

/** The bytes LMDB reads of each meta page: the page header and MDB_meta. */
const META_READ = 168;
const P_META = 0x08;
const MAGIC = 0xbeefc0de;
const DATA_VERSION = 2;
const isMeta = (page: Buffer) => (page.readUInt16LE(18) & P_META) !== 0 && page.readUInt32LE(24) === MAGIC;
/** Page sizes LMDB writes: a power of two from 512 to 64 KiB (its MAX_PAGESIZE). */
const pageSizeOk = (n: number) => n >= 512 && n <= 65536 && (n & (n - 1)) === 0;

/** The META_READ bytes of the meta page at `offset`, or null when the file ends first. */
function readMeta(fd: number, offset: number): Buffer | null {
  const page = Buffer.alloc(META_READ);
  return readSync(fd, page, 0, META_READ, offset) === META_READ ? page : null;
}

/** Why LMDB would refuse the data file `file` (or could not be trusted with it), or null when it may open it. */
export function lmdbFileProblem(file: string): string | null {
  if (notARegularFile(file)) return 'it is not a regular file';
  const size = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  if (size === 0) return null;
  if (size < META_READ) return `it is ${size} bytes, shorter than LMDB's header (${META_READ})`;
  const fd = openSync(file, 'r');
  try {
    const head = readMeta(fd, 0)!; // the size was checked above
    if (!isMeta(head)) return 'it is not an LMDB file';
    const version = head.readUInt32LE(28) & 0xffff;
    if (version !== DATA_VERSION) return `it is an LMDB file of format ${version}, not ${DATA_VERSION}`;
    const pageSize = head.readUInt32LE(48);
    if (!pageSizeOk(pageSize)) return `its page size (${pageSize}) is not one LMDB writes`;
    const second = size < pageSize + META_READ ? null : readMeta(fd, pageSize);
    if (second === null) return `it is ${size} bytes, too short for its second meta page`;
    if (!isMeta(second)) return 'its second meta page is damaged';
  } finally {
    closeSync(fd);
  }
  return null;
}

/** The transaction of the meta page LMDB would pick (the later of the two; the file passed lmdbFileProblem). */
function newestTxnid(file: string): bigint {
  const fd = openSync(file, 'r');
  try {
    const head = readMeta(fd, 0)!;
    const second = readMeta(fd, head.readUInt32LE(48))!;
    const [a, b] = [head.readBigUInt64LE(152), second.readBigUInt64LE(152)];
    return a >= b ? a : b;
  } finally {
    closeSync(fd);
  }
}

/**
 * Why the pages of the store in `dir` must not be handed to lmdb-js, opened
 * with a map of `mapSize` bytes, or null: LMDB trusts every page it follows,
 * and a few damaged bytes in one end the process with SIGSEGV or SIGBUS
 * (docs/reliability.md, finding 101). The walk (native/store_check.h) reads
 * every page reachable from the meta page, about 0.1-0.3 s per 400 MB here.
 * A store some process has open is left alone (binding.storeInUse): the
 * server walked it at its start (its threads open it after its main thread),
 * and a walk of pages another process is rewriting could report damage that
 * is not there. A problem counts only when the store's newest transaction was
 * the walked one before the walk and still is after it (the walk maps the
 * file at its size when it starts, and a commit meanwhile can name pages past
 * that or reuse pages walked); after three such walks it is left alone.
 */
export function storePagesProblem(dir: string, mapSize: number): string | null {
  const file = path.join(dir, 'data.mdb');
  if ((statSync(file, { throwIfNoEntry: false })?.size ?? 0) === 0) return null;
  if (binding.storeInUse(path.join(dir, 'lock.mdb'))) return null;
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = newestTxnid(file);
    const { problem, txnid } = binding.checkStoreFile(file, mapSize);
    if (problem === null) return null;
    if (txnid === before && newestTxnid(file) === before) return `${file}: ${problem}`;
  }
  return null;
}

/** Why LMDB could not open its lock file `file`, or null: a lock file must be a regular file (its contents LMDB rebuilds). */
const lockFileProblem = (file: string) => (notARegularFile(file) ? 'it is not a regular file' : null);

/** Why the store in `dir` (data.mdb and lock.mdb) must not be handed to lmdb-js, naming the file; null when it may be. */
export function storeProblem(dir: string): string | null {
  for (const [name, problemOf] of [['data.mdb', lmdbFileProblem], ['lock.mdb', lockFileProblem]] as const) {
    const problem = problemOf(path.join(dir, name));
    if (problem !== null) return `${path.join(dir, name)}: ${problem}`;
  }
  return null;
}
