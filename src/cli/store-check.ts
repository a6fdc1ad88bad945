// Reads a copy of the LMDB store end to end and prints what it holds, as one
// JSON line: {"schema_version", "records": {"accounts": n, ...}}. Run as a
// child process by `splitguard backup` and `splitguard restore` on the
// directory holding the copy (DIR/data.mdb): LMDB trusts its file, so a
// damaged copy can crash the process that reads it (a truncated file is a
// SIGBUS), and that must not be the CLI itself; the page walk before the
// open (store/lmdb-file.ts) names most such damage instead. Exit 0 when every record of
// every database was read and the schema is one this splitguard knows; 1 with
// the reason on stderr otherwise.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
import { DATABASES, ENV_OPTIONS, openOptions, SCHEMA_VERSION } from '../store/db.js';
import { storePagesProblem } from '../store/lmdb-file.js';

/** The databases every splitguard store has had; the others may be missing from an older store's copy. */
const REQUIRED = new Set(['meta', 'accounts', 'keys']);

function check(dir: string): { schema_version: number; records: Record<string, number> } {
  const file = path.join(dir, 'data.mdb');
  if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`${file} is missing`);
  // Damaged pages are named here rather than found by a signal below.
  const pages = storePagesProblem(dir, ENV_OPTIONS.mapSize);
  if (pages !== null) throw new Error(pages);
  // noSubdir: lmdb-js would otherwise take a directory name with a dot
  // (backup.tar.123.tmp) for the data file itself.
  const root = open({ path: dir, ...ENV_OPTIONS, noSubdir: false, readOnly: true });
  try {
    const records: Record<string, number> = {};
    let schema: unknown;
    for (const { name, encoding } of Object.values(DATABASES)) {
      // Read-only, a missing database is undefined (or an error).
      let db;
      try {
        db = root.openDB(openOptions(name, encoding));
      } catch {
        db = undefined;
      }
      if (!db) {
        if (REQUIRED.has(name)) throw new Error(`it has no "${name}" database: it is not a splitguard store`);
        continue;
      }
      let n = 0;
      // Every key and value is read and decoded, so every page is touched.
      for (const { key, value } of db.getRange()) {
        if (name === 'meta' && key === 'schema_version') schema = value;
        n++;
      }
      records[name] = n;
    }
    if (!Number.isInteger(schema)) throw new Error('it has no schema version: it is not a splitguard store');
    if ((schema as number) > SCHEMA_VERSION) {
      throw new Error(`it uses schema version ${schema as number}, newer than this splitguard (${SCHEMA_VERSION})`);
    }
    return { schema_version: schema as number, records };
  } finally {
    root.close();
  }
}

try {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: store-check DIR');
  process.stdout.write(`${JSON.stringify(check(path.resolve(dir)))}\n`);
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
}
