// Opening a database validates every byte of it, but keeps none of those
// pages resident: the process's resident set is what lookups then touch,
// whichever thread opened the file first. Lookups afterwards still answer
// from the file. (The kernel maps a touched page together with its
// neighbours, up to the page-cache folio holding it, hence the margins.)
import { copyFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { IpDatabase } from '../../src/ipdb/database.js';
import { removeTemps, residentKb, tempDir } from '../helpers/fixture.js';
import { ensureCachedDatabase } from '../helpers/ipdb-cache.js';

afterAll(() => removeTemps());

it('keeps only the pages used after validation resident', () => {
  // A copy: a new inode, so this process maps and validates it afresh.
  const file = path.join(tempDir(), 'full.trie');
  copyFileSync(ensureCachedDatabase(), file);
  const sizeKb = statSync(file).size / 1024;
  const db = IpDatabase.open(file, { verifyChecksum: true }); // reads every page
  expect(residentKb(file)).toBeLessThan(sizeKb / 4);

  expect(db.describe('8.8.8.8')?.asn).toBe(15169);
  expect(db.describe('2a00:1450:4001::5')?.asn).toBe(15169);
  const used = residentKb(file);
  expect(used).toBeGreaterThan(0);
  expect(used).toBeLessThan(sizeKb / 4);
  db.close();
});
