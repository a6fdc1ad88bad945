// parseId (src/store/db.ts): the one reading of an account or route id that
// the API (/v1/routes/:id), the console (accounts/:id) and the CLI (--account)
// share. Ids are JavaScript numbers in both back ends, so every id up to
// 2^53 - 1 is taken and nothing past it; the three used to stop at 9, 10 and
// 15 digits.
import { expect, it } from 'vitest';
import { MAX_ID, parseId } from '../../../src/store/db.js';

it('takes decimal ids from 1 to 2^53 - 1', () => {
  expect(MAX_ID).toBe(2 ** 53 - 1);
  expect(parseId('1')).toBe(1);
  expect(parseId('42')).toBe(42);
  expect(parseId('1000000000')).toBe(1_000_000_000);
  expect(parseId('999999999999999')).toBe(999_999_999_999_999);
  expect(parseId('9007199254740991')).toBe(MAX_ID);
});

it('is 0 for anything else', () => {
  for (const text of ['', '0', '00', '01', '-1', '+1', '1.5', '1e3', '0x10', ' 1', '1 ', 'abc', '9007199254740992', '9999999999999999', '99999999999999999999']) {
    expect(parseId(text), text).toBe(0);
  }
});
