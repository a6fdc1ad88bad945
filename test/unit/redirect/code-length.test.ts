// Short-link codes are CODE_LENGTH characters of [0-9A-Za-z] (store/routes-store.ts),
// the one length the redirect's isCode accepts before a lookup.
import { expect, it } from 'vitest';
import { CODE_LENGTH, newCode } from '../../../src/store/routes-store.js';

it('makes codes of CODE_LENGTH letters and digits', () => {
  const shape = new RegExp(`^[0-9A-Za-z]{${CODE_LENGTH}}$`);
  for (let i = 0; i < 1000; i++) expect(newCode()).toMatch(shape);
});
