// Keyword tables on disk, next to the database: computing them matches every
// organization name (~0.2 s), reading them back takes a millisecond. A cache
// file is named by the database checksum and a hash of the lists, so a new
// database or a new release of the lists never reads a stale one.
import { createHash } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { writeFileDurably } from '../durable-file.js';
import { readRegularFile } from '../regular-file.js';
import path from 'node:path';
import type { IpDatabase } from '../ipdb/database.js';
import { computeKeywordTables, type KeywordTables } from './classifier.js';
import type { BuiltInLists } from './lists.js';

const PREFIX = 'keywords-';

function listsHash(lists: BuiltInLists): string {
  return createHash('sha256').update(JSON.stringify([lists.keywords, lists.carriers.map((c) => c.asn)])).digest('hex').slice(0, 16);
}

// Layout: strong, weak, vpn, carrierWord (Int16 × n each), carrierAsn (Uint8 × n).
export function keywordTablesFor(db: IpDatabase, lists: BuiltInLists, dir: string): KeywordTables {
  const n = db.recordCount;
  const file = path.join(dir, `${PREFIX}${db.info.checksum}-${listsHash(lists)}.bin`);
  try {
    // Anything but a regular file is a miss, written over below (regular-file.ts).
    const bytes = readRegularFile(file);
    if (bytes.length === 9 * n) {
      const sab = new SharedArrayBuffer(bytes.length);
      new Uint8Array(sab).set(bytes);
      return {
        strong: new Int16Array(sab, 0, n),
        weak: new Int16Array(sab, 2 * n, n),
        vpn: new Int16Array(sab, 4 * n, n),
        carrierWord: new Int16Array(sab, 6 * n, n),
        carrierAsn: new Uint8Array(sab, 8 * n, n),
      };
    }
  } catch {
    // no cache yet
  }
  const t = computeKeywordTables(db, lists);
  try {
    const out = Buffer.alloc(9 * n);
    const put = (a: ArrayLike<number> & { buffer: ArrayBufferLike; byteOffset: number; byteLength: number }, at: number) =>
      out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    put(t.strong, 0);
    put(t.weak, 2 * n);
    put(t.vpn, 4 * n);
    put(t.carrierWord, 6 * n);
    put(t.carrierAsn, 8 * n);
    writeFileDurably(file, out);
    for (const name of readdirSync(dir)) {
      if (name.startsWith(PREFIX) && path.join(dir, name) !== file) rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    // a read-only data directory only costs the next start the computation
  }
  return t;
}
