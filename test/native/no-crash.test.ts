// Refusing corrupt files leaves the process alive and well: a separate Node
// process opens every file of the catalogue, then the valid fixture, and
// must exit normally with every status as expected.
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { buildFixture, removeTemps, tempDir } from '../helpers/fixture.js';
import { corrupt, corruptions } from './corruptions.js';
import { openInChild } from './open-in-child.js';

afterAll(removeTemps);

function writeAll(files: Uint8Array[]): string[] {
  const dir = tempDir();
  return files.map((bytes, i) => {
    const file = path.join(dir, `${i}.ipdb`);
    writeFileSync(file, bytes);
    return file;
  });
}

it('a process that refused every corrupt file exits normally and still opens a valid one', () => {
  const files = writeAll([...corruptions.map((c) => corrupt(c)), buildFixture()]);
  const r = openInChild(files, true);
  expect(r.stderr).toBe('');
  expect(r.signal).toBeNull();
  expect(r.status).toBe(0);
  expect(r.codes).toEqual([...corruptions.map((c) => c.code), 'ok']);
});

it('the same holds with checksum verification off and stale checksums', () => {
  const files = writeAll([...corruptions.map((c) => corrupt(c, { keepChecksum: true })), buildFixture()]);
  const r = openInChild(files, false);
  expect(r.signal).toBeNull();
  expect(r.status).toBe(0);
  expect(r.codes).toEqual([...corruptions.map((c) => c.unverified ?? c.code), 'ok']);
});
