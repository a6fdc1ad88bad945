// node test/stress/store-check.js DATA_DIR
// Opens the LMDB store of a data directory with the server's own code
// (dist/store/db.js: open, schema check, migrations) and reads every record
// of every named database, so that a damaged page or a broken B-tree shows up
// as an error here. Prints the record counts as JSON; exits 1 on any failure.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './lib.js';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node test/stress/store-check.js DATA_DIR');
  process.exit(2);
}
const { openStores } = await import(pathToFileURL(path.join(ROOT, 'dist', 'store', 'db.js')).href);
const stores = openStores(path.resolve(dir));
const counts = {};
for (const [name, db] of Object.entries(stores)) {
  if (name === 'root' || name === 'signal') continue; // the environment, and the server's in-memory signal
  let n = 0;
  for (const { key, value } of db.getRange()) {
    if (key === undefined || value === undefined) throw new Error(`${name}: an entry without key or value`);
    n++;
  }
  counts[name] = n;
}
counts.schema_version = stores.meta.get('schema_version');
await stores.root.close();
process.stdout.write(`${JSON.stringify(counts)}\n`);
