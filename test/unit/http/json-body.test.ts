// JSON request bodies (src/http/body.ts parseJson): a body is UTF-8 JSON,
// not empty, holds only text (no unpaired surrogate spelt as an escape), and
// carries no key that could poison a prototype, however the key is spelt;
// every refusal is invalid_json, naming the key when there is one.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { parseJson } from '../../../src/http/body.js';

const parse = (text: string | Buffer) => parseJson(typeof text === 'string' ? Buffer.from(text) : text);
function refusal(text: string | Buffer): AppError {
  try {
    parse(text);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error(`accepted ${String(text)}`);
}

describe('parseJson', () => {
  it('parses objects, arrays and scalars, with strings holding the forbidden words', () => {
    expect(parse('{"name":"exchange","tags":["a"],"n":1.5}')).toEqual({ name: 'exchange', tags: ['a'], n: 1.5 });
    expect(parse('[1,2]')).toEqual([1, 2]);
    expect(parse(' 42 ')).toBe(42);
    expect(parse('{"note":"__proto__ constructor prototype","constructorName":1}')).toEqual({ note: '__proto__ constructor prototype', constructorName: 1 });
  });

  it('decodes escapes in ordinary keys and values', () => {
    expect(parse('{"caf\\u00e9":"\\u00e9t\\u00e9"}')).toEqual({ café: 'été' });
  });

  it.each([
    ['__proto__', '{"__proto__":{"admin":true}}'],
    ['prototype', '{"a":{"constructor":{"prototype":{"admin":true}}}}'], // the innermost key is met first
    ['prototype', '[{"prototype":1}]'],
    ['__proto__', '{"\\u005f_proto__":{"admin":true}}'],
    ['constructor', '{"a" : 1, "constructor"  :  {}}'],
  ])('refuses the key %s (%s), naming it', (key, text) => {
    const err = refusal(text);
    expect(err.code).toBe('invalid_json');
    expect(err.field).toBe(key);
    expect(err.message).toContain(`"${key}"`);
  });

  it('refuses an empty or blank body', () => {
    for (const text of ['', '  \n\t ']) expect(refusal(text).message).toMatch(/the body is empty/);
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(refusal(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])).message).toMatch(/not valid UTF-8/);
  });

  it.each([
    ['name', '{"name":"ab\\ud800cd"}'],
    ['note', '{"a":{"note":"\\udc00team"}}'],
    ['1', '["ok","x\\udbff"]'],
    ['\ud800', '{"\\ud800":1}'],
  ])('refuses an unpaired surrogate in %s (%s): stored as UTF-8 it would not be what was sent', (field, text) => {
    const err = refusal(text);
    expect(err.code).toBe('invalid_json');
    expect(err.field).toBe(field);
    expect(err.message).toMatch(/unpaired UTF-16 surrogate/);
  });

  it('accepts surrogate pairs, escaped or not', () => {
    expect(parse('{"name":"\\ud83d\\ude00 \u{1F600}"}')).toEqual({ name: '\u{1F600} \u{1F600}' });
  });

  it('refuses malformed JSON with the parser reason', () => {
    const err = refusal('{"a":1,}');
    expect(err.code).toBe('invalid_json');
    expect(err.field).toBeNull();
    expect(err.message).toMatch(/^the request body is not valid JSON: /);
  });
});
