// Paths that are not a database file are refused before anything is mapped:
// the status names why, and for a failed open(2) the errno comes along.
import { execFileSync } from 'node:child_process';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { IpdbError } from '../../src/errors.js';
import { IpDatabase } from '../../src/ipdb/database.js';
import { removeTemps, tempDir } from '../helpers/fixture.js';
import { openInChild } from './open-in-child.js';

afterAll(removeTemps);

function refusal(file: string): IpdbError {
  try {
    IpDatabase.open(file).close();
  } catch (err) {
    if (err instanceof IpdbError) return err;
    throw err;
  }
  throw new Error(`${file} was opened`);
}

it('a directory is refused with ipdb_not_a_file', () => {
  const dir = path.join(tempDir(), 'db.ipdb');
  mkdirSync(dir);
  const err = refusal(dir);
  expect(err.code).toBe('ipdb_not_a_file');
  expect(err.message).toContain(dir);
});

it('a character device is refused with ipdb_not_a_file', () => {
  expect(refusal('/dev/null').code).toBe('ipdb_not_a_file');
});

it('a missing path is refused with ipdb_open_failed and ENOENT', () => {
  const missing = path.join(tempDir(), 'absent.ipdb');
  const err = refusal(missing);
  expect(err.code).toBe('ipdb_open_failed');
  expect((err.cause as { errno?: number }).errno).toBe(2);
});

it('a file under a regular file (ENOTDIR) is refused with ipdb_open_failed', () => {
  const file = path.join(tempDir(), 'plain');
  writeFileSync(file, 'x');
  expect(refusal(path.join(file, 'db.ipdb')).code).toBe('ipdb_open_failed');
});

it('a file over 1 GiB is refused with ipdb_too_large before it is mapped', () => {
  // Sparse: no disk space is used, and nothing is read.
  const file = path.join(tempDir(), 'huge.ipdb');
  writeFileSync(file, '');
  truncateSync(file, 2 ** 30 + 8);
  expect(refusal(file).code).toBe('ipdb_too_large');
});

it('a FIFO is refused with ipdb_not_a_file instead of waiting for a writer', () => {
  // open(2) on a FIFO without O_NONBLOCK blocks until a writer appears, so
  // this runs in a child process with a deadline.
  const fifo = path.join(tempDir(), 'db.fifo');
  execFileSync('mkfifo', [fifo]);
  const r = openInChild([fifo], true, 10_000);
  expect(r.signal).toBeNull();
  expect(r.codes).toEqual(['ipdb_not_a_file']);
});
