// A publisher's text in a refresh's message (src/errors.ts quoted) is what a
// tenant's copy leaves out (publisherTextHidden): every quoted span, and
// nothing a publisher can write gets out of its span; a stray mark in text
// that is not the publisher's (a configured URL) only hides more.
import { expect, it } from 'vitest';
import { publisherTextHidden, quoted } from '../../src/errors.js';

it('hides every quoted span and keeps the rest', () => {
  const message = `http://mirror/tor: 3 of 9 entries are malformed (e.g. ${quoted('<html>secret</html>', 80)}); http://b/x: redirect 1 is to ${quoted('http://10.0.0.1/admin', 200)}`;
  expect(publisherTextHidden(message)).toBe('http://mirror/tor: 3 of 9 entries are malformed (e.g. “…”); http://b/x: redirect 1 is to “…”');
  expect(publisherTextHidden(null)).toBeNull();
});

it('keeps the marks a publisher writes inside its span', () => {
  const line = 'a ” b “ c ” secret';
  expect(quoted(line, 80)).toBe('“a " b " c " secret”');
  expect(publisherTextHidden(`x ${quoted(line, 80)} y`)).toBe('x “…” y');
});

it('hides more, never less, when text outside the quotes holds a mark', () => {
  expect(publisherTextHidden(`http://mirror/“odd: e.g. ${quoted('secret', 80)}`)).toBe('http://mirror/“…”');
  expect(publisherTextHidden(`http://mirror/”odd: e.g. ${quoted('secret', 80)}`)).toBe('http://mirror/”odd: e.g. “…”');
});

it('clips the quoted text', () => {
  expect(quoted('x'.repeat(100), 10)).toBe('“xxxxxxx...”');
});
