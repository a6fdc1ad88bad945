// Splitting one CSV line (src/csv.ts), as the database sources, the built-in
// hosting list and the detection benchmark read theirs.
import { describe, expect, it } from 'vitest';
import { splitCsvLine } from '../../src/csv.js';

describe('splitCsvLine', () => {
  it('splits on commas outside quotes and unescapes doubled quotes', () => {
    expect(splitCsvLine('a,b,c,d')).toEqual(['a', 'b', 'c', 'd']);
    expect(splitCsvLine('1,2,3,"Cloudflare, Inc."')).toEqual(['1', '2', '3', 'Cloudflare, Inc.']);
    expect(splitCsvLine('1,2,3,"LLC ""SPUTNIK"""')).toEqual(['1', '2', '3', 'LLC "SPUTNIK"']);
    expect(splitCsvLine('"a,b","",c,""""')).toEqual(['a,b', '', 'c', '"']);
    expect(splitCsvLine('1,2,3,')).toEqual(['1', '2', '3', '']);
  });

  it('returns null for broken quoting', () => {
    expect(splitCsvLine('1,2,3,"unterminated')).toBeNull();
    expect(splitCsvLine('1,2,3,"quoted"trailing')).toBeNull();
    expect(splitCsvLine('1,2,3,bare"quote')).toBeNull();
  });
});

describe('splitCsvLine: lines without quotes and quotes at the edges', () => {
  it('reads an empty line as one empty field, and empty fields anywhere', () => {
    expect(splitCsvLine('')).toEqual(['']);
    expect(splitCsvLine(',')).toEqual(['', '']);
    expect(splitCsvLine(',a,')).toEqual(['', 'a', '']);
  });

  it('reads a quoted field first, last or alone', () => {
    expect(splitCsvLine('""')).toEqual(['']);
    expect(splitCsvLine('"x"')).toEqual(['x']);
    expect(splitCsvLine('"x",y')).toEqual(['x', 'y']);
    expect(splitCsvLine('13335,"Cloudflare, Inc.",hosting,"a; b"')).toEqual(['13335', 'Cloudflare, Inc.', 'hosting', 'a; b']);
    expect(splitCsvLine('x,"y",')).toEqual(['x', 'y', '']);
  });

  it('refuses a quote that does not open a field', () => {
    expect(splitCsvLine('"x" ,y')).toBeNull();
    expect(splitCsvLine('x, "y"')).toBeNull();
    expect(splitCsvLine('""x""')).toBeNull();
  });
});
