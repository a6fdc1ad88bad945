// Every status the native addon can return is an entry of the error
// catalogue (src/errors.ts), and the catalogue names no status the addon
// lacks: a new C++ status without a catalogue entry fails here.
import { describe, expect, it } from 'vitest';
import { AppError, catalogue, IpdbError, NATIVE_GUARD_CODES, NATIVE_IPDB_CODES } from '../../src/errors.js';
import { binding } from '../../src/ipdb/native.js';

const nativeCodes = (table: Record<string, string>) => Object.keys(table).filter((c) => c !== 'ok').sort();

describe('the error catalogue and the native statuses', () => {
  it('lists exactly the trie reader statuses', () => {
    expect([...NATIVE_IPDB_CODES].sort()).toEqual(nativeCodes(binding.statuses));
  });

  it('lists exactly the connection guard statuses', () => {
    expect([...NATIVE_GUARD_CODES].sort()).toEqual(nativeCodes(binding.connectionGuardStatuses));
  });

  it('gives every native status an entry with a server-error status', () => {
    for (const code of [...NATIVE_IPDB_CODES, ...NATIVE_GUARD_CODES]) {
      expect(catalogue[code], code).toBeDefined();
      expect(catalogue[code].status, code).toBe(500);
    }
  });

  it('turns a reader failure into an AppError with the native code and sentence', () => {
    const err = new IpdbError('ipdb_bad_magic', binding.statuses.ipdb_bad_magic, '/data/ipdb/current.trie');
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('ipdb_bad_magic');
    expect(err.message).toBe(`${binding.statuses.ipdb_bad_magic}: /data/ipdb/current.trie`);
  });
});
