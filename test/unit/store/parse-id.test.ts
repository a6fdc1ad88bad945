// parseId (src/store/db.ts): the one reading of an account or route id that
// the API (/v1/routes/:id), the console (accounts/:id) and the CLI (--account)
// share: at most 15 digits, the API's rule, where the console and the CLI
// used to stop at 10 and 9 (every 15-digit number is a safe integer, and ids
// are JavaScript numbers in both back ends).
import { expect, it } from 'vitest';
import { MAX_ID_DIGITS, parseId } from '../../../src/store/db.js';

it('takes decimal ids of 1 to 15 digits', () => {
  expect(MAX_ID_DIGITS).toBe(15);
  expect(parseId('1')).toBe(1);
  expect(parseId('42')).toBe(42);
  expect(parseId('1000000000')).toBe(1_000_000_000);
  expect(parseId('999999999999999')).toBe(999_999_999_999_999);
});

it('is 0 for anything else', () => {
  for (const text of ['', '0', '00', '01', '-1', '+1', '1.5', '1e3', '0x10', ' 1', '1 ', 'abc', '1000000000000000', '9007199254740991', '9999999999999999', '99999999999999999999']) {
    expect(parseId(text), text).toBe(0);
  }
});
