// One line of CSV as RFC 4180 writes it: fields separated by commas, a field
// may be in double quotes, inside which a comma is text and a doubled quote
// is one quote. Lines are split by the caller (a quoted field holding a line
// break is not supported: none of the files read here has one). Read from
// the database sources (ipdb/sources.ts), the built-in hosting list
// (quality/lists.ts) and bench/detection.js.

/**
 * The fields of one CSV line; null when the quoting is broken: a quote that
 * does not close, text after a closing quote, a quote inside an unquoted field.
 * @public bench/detection.js (through dist/)
 */
export function splitCsvLine(line: string): string[] | null {
  if (line.indexOf('"') < 0) return line.split(',');
  const fields: string[] = [];
  let i = 0;
  const n = line.length;
  for (;;) {
    if (line.charCodeAt(i) === 34) {
      let value = '';
      let j = i + 1;
      for (;;) {
        const q = line.indexOf('"', j);
        if (q < 0) return null;
        value += line.slice(j, q);
        if (line.charCodeAt(q + 1) === 34) {
          value += '"';
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      fields.push(value);
      if (i === n) return fields;
      if (line.charCodeAt(i) !== 44) return null;
      i++;
    } else {
      const c = line.indexOf(',', i);
      const end = c < 0 ? n : c;
      const value = line.slice(i, end);
      if (value.indexOf('"') >= 0) return null;
      fields.push(value);
      if (c < 0) return fields;
      i = c + 1;
    }
  }
}
