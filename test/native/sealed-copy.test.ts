// The serving copy of a database is a sealed memory file: it opens and
// answers like the file it was copied from, cannot be shrunk, grown or
// written (not even by its owner), and no longer depends on the source,
// which can be truncated or deleted. A path that is not a regular file is
// refused by name, as for open.
import { closeSync, ftruncateSync, mkdirSync, rmSync, truncateSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { IpDatabase } from '../../src/ipdb/database.js';
import { publish, release } from '../../src/ipdb/serving.js';
import { buildFixture, removeTemps, tempDir, writeTemp } from '../helpers/fixture.js';

afterAll(removeTemps);

it('answers like its source after the source is truncated and deleted', () => {
  const source = writeTemp(buildFixture());
  const copy = publish(source);
  truncateSync(source, 0);
  rmSync(source);
  const db = IpDatabase.open(copy.path);
  try {
    const record = db.lookupText('8.8.8.8');
    expect(db.asn(record)).toBe(15169);
    expect(db.organization(record)).toBe('Google LLC');
  } finally {
    db.close();
    release(copy);
  }
});

it('cannot be truncated, grown or written', () => {
  const copy = publish(writeTemp(buildFixture()));
  try {
    expect(() => ftruncateSync(copy.fd, 0)).toThrow(/EPERM/);
    expect(() => ftruncateSync(copy.fd, 1 << 30)).toThrow(/EPERM/);
    expect(() => writeSync(copy.fd, Buffer.from('x'), 0, 1, 0)).toThrow(/EPERM/);
  } finally {
    closeSync(copy.fd);
  }
});

it('refuses a directory with ipdb_not_a_file', () => {
  const dir = path.join(tempDir(), 'db.trie');
  mkdirSync(dir);
  expect(() => publish(dir)).toThrow(expect.objectContaining({ code: 'ipdb_not_a_file' }));
});
