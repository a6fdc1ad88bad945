// Every corrupt file in corruptions.ts is refused with its own status, both
// with a valid checksum (so the structural check is what fires) and with
// checksum verification off (so the check does not depend on the checksum).
import { afterAll, describe, expect, it } from 'vitest';
import { IpdbError } from '../../src/errors.js';
import { IpDatabase } from '../../src/ipdb/database.js';
import { binding } from '../../src/ipdb/native.js';
import { buildFixture, removeTemps, writeTemp } from '../helpers/fixture.js';
import { corrupt, corruptions } from './corruptions.js';

afterAll(removeTemps);

/** 'ok', or the IpdbError the facade threw (anything else is rethrown). */
function open(bytes: Uint8Array, verifyChecksum = true): 'ok' | IpdbError {
  const file = writeTemp(bytes);
  try {
    IpDatabase.open(file, { verifyChecksum }).close();
    return 'ok';
  } catch (err) {
    if (err instanceof IpdbError) return err;
    throw err;
  }
}

const codeOf = (r: 'ok' | IpdbError) => (r === 'ok' ? 'ok' : r.code);

it('the unmutated fixture opens, with and without checksum verification', () => {
  expect(codeOf(open(buildFixture()))).toBe('ok');
  expect(codeOf(open(buildFixture(), false))).toBe('ok');
});

describe('a corrupt file is refused with the status naming the corruption', () => {
  for (const c of corruptions) {
    it(`${c.code}: ${c.what}`, () => {
      const refused = open(corrupt(c));
      expect(codeOf(refused)).toBe(c.code);
      expect((refused as IpdbError).message.startsWith(binding.statuses[c.code])).toBe(true);
      expect(codeOf(open(corrupt(c, { keepChecksum: true }), false))).toBe(c.unverified ?? c.code);
    });
  }
});

it('a structural corruption whose checksum was not updated is reported as a checksum mismatch', () => {
  const cycle = corruptions.find((c) => c.code === 'ipdb_cycle')!;
  expect(codeOf(open(corrupt(cycle, { keepChecksum: true })))).toBe('ipdb_checksum_mismatch');
});

it('every status of the reader has a corruption here or a test elsewhere', () => {
  const elsewhere: Record<string, string> = {
    ok: 'valid-fixture.test.ts',
    ipdb_open_failed: 'open-errors.test.ts',
    ipdb_not_a_file: 'open-errors.test.ts',
    ipdb_too_large: 'open-errors.test.ts',
    // Not reachable from a file: a mapping is page-aligned, and mmap of a
    // readable regular file does not fail. The fuzz harness checks the first.
    ipdb_misaligned: 'native/fuzz/fuzz_trie_reader.cc',
    ipdb_map_failed: 'unreachable from a test',
    // memfd_create or sealing refused by the kernel; sealed-copy.test.ts covers the copy itself.
    ipdb_copy_failed: 'unreachable from a test',
  };
  const covered = new Set(corruptions.map((c) => c.code));
  const uncovered = Object.keys(binding.statuses).filter((code) => !covered.has(code)).sort();
  expect(uncovered).toEqual(Object.keys(elsewhere).sort());
});
