// clip (src/errors.ts): outside text quoted in a message is cut to a fixed
// length, "..." included, and left whole when it fits.
import { expect, it } from 'vitest';
import { clip, ConfigError } from '../../src/errors.js';

it('leaves text that fits whole and cuts longer text to max characters, "..." included', () => {
  expect(clip('', 10)).toBe('');
  expect(clip('a'.repeat(10), 10)).toBe('a'.repeat(10));
  expect(clip('a'.repeat(11), 10)).toBe('aaaaaaa...');
  expect(clip('x'.repeat(1000), 80)).toHaveLength(80);
});

it('cuts the value a ConfigError quotes to 80 characters', () => {
  const err = new ConfigError('PORT', 'a port', '9'.repeat(200));
  expect(err.message).toBe(`PORT must be a port, got "${'9'.repeat(77)}..."`);
});
