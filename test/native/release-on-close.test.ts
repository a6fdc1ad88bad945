// When the last open handle on a database file closes (a swap closes the
// old database in every thread), its pages leave memory at once, even while
// views of the mapping are still reachable (under load they can stay
// uncollected for minutes), and a read through such a view still sees the
// file's bytes. A second handle on the same file keeps the pages until it
// closes too.
import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { binding } from '../../src/ipdb/native.js';
import { buildFixture, removeTemps, residentKb, writeTemp } from '../helpers/fixture.js';

afterAll(() => removeTemps());

function sum(bytes: Uint8Array): number {
  let h = 0;
  for (let i = 0; i < bytes.length; i++) h = (Math.imul(h, 31) + bytes[i]) | 0;
  return h;
}

it('drops the pages when the last handle closes; surviving views still read the file', () => {
  const file = writeTemp(buildFixture());
  const expected = sum(readFileSync(file));
  const first = new binding.IpTrie(file, true);
  const second = new binding.IpTrie(file, true);
  const view = new Uint8Array(first.buffer());
  expect(sum(view)).toBe(expected); // every page touched
  const full = residentKb(file);
  expect(full).toBeGreaterThanOrEqual(Math.floor(view.length / 1024) - 4);

  first.close();
  expect(residentKb(file)).toBe(full); // the second handle still serves from it

  second.close();
  expect(residentKb(file)).toBe(0);
  expect(sum(view)).toBe(expected);
});
