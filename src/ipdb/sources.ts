// Reading database sources: the ip-location-db CSV (`start,end,asn,org`,
// text or numeric addresses, RFC 4180 quoting) and the iptoasn TSV
// (`start<TAB>end<TAB>asn<TAB>country<TAB>description`), plain or gzip.
//
// A source is refused when more than MAX_MALFORMED_SHARE of its data lines are
// malformed, or when it yields no range at all; otherwise malformed lines are
// skipped, counted and reported with their first examples.
import { gunzipSync } from 'node:zlib';
import { splitCsvLine } from '../csv.js';
import { AppError, quoted } from '../errors.js';
import { bytesToBigInt, parseIPv4, parseIPv6 } from './address.js';

const MAX_MALFORMED_SHARE = 0.01;
/** A source line longer than this is malformed, not split (the data's longest is under 300 characters). */
const MAX_LINE = 4096;
/** Decompressed size cap: the real data is ~35 MB; anything past this is refused (gzip bombs). */
const MAX_SOURCE_BYTES = 512 * 1024 * 1024;
/**
 * An organization name is kept to this many UTF-16 code units (at most 768
 * bytes of UTF-8 in the file). The package's longest of 81,276 names is 167
 * characters, none passes 200; names of 1-3.5 KB from a hostile publisher
 * made an 840 MB database (docs/reliability.md, finding 107).
 */
const MAX_ORGANIZATION = 256;

export interface Row {
  start: bigint;
  end: bigint;
  asn: number;
  org: string;
  /** Position in the source list and line, for deterministic tie-breaking and reports. */
  order: number;
}

interface MalformedLine {
  source: string;
  line: number;
  reason: string;
}

export interface ParsedSources {
  v4: Row[];
  v6: Row[];
  lines: number;
  /** Rows iptoasn marks as not routed (ASN 0): not data, not malformed. */
  unrouted: number;
  malformed: number;
  malformedExamples: MalformedLine[];
}

const V4_MAX = 0xffffffffn;
const scratch = new Uint8Array(16);

// An address field: dotted quad, IPv6 text, or a decimal integer (values
// above 2^32 - 1 are IPv6, as in ip-location-db's *-num files).
function parseAddress(text: string): { family: 4 | 6; value: bigint } | string {
  if (text.length === 0) return 'empty address';
  if (text.indexOf(':') >= 0) {
    if (!parseIPv6(text, scratch)) return `invalid IPv6 address ${quoted(text, 60)}`;
    return { family: 6, value: bytesToBigInt(scratch) };
  }
  if (text.indexOf('.') >= 0) {
    const v4 = parseIPv4(text);
    if (v4 < 0) return `invalid IPv4 address ${quoted(text, 60)}`;
    return { family: 4, value: BigInt(v4) };
  }
  if (!/^[0-9]{1,39}$/.test(text)) return `invalid address ${quoted(text, 60)}`;
  const v = BigInt(text);
  if (v >= 1n << 128n) return `address out of range ${quoted(text, 60)}`;
  return { family: v > V4_MAX ? 6 : 4, value: v };
}

/** A source file as text: gunzipped when it is gzip (capped), without a byte-order mark. */
export function decodeSource(name: string, data: Uint8Array, maxBytes = MAX_SOURCE_BYTES): string {
  let bytes = data;
  if (data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b) {
    try {
      bytes = gunzipSync(data, { maxOutputLength: maxBytes });
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
        ? `decompresses to more than ${maxBytes} bytes`
        : 'is not valid gzip';
      throw new AppError('ipdb_source_invalid', `${name} ${why}`, null, { cause: err });
    }
  } else if (data.length > maxBytes) {
    throw new AppError('ipdb_source_invalid', `${name} is larger than ${maxBytes} bytes`);
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  // A byte-order mark some editors write would otherwise hide the header line.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export interface SourceFile {
  name: string;
  data: Uint8Array;
}

type ParsedLine = { family: 4 | 6; start: bigint; end: bigint; asn: number; org: string };

/**
 * One data line's fields (CSV: start,end,asn,org; TSV: start end asn country
 * org...) as a range; 'unrouted' for ASN 0; else why the line is malformed.
 */
function parseLine(fields: string[] | null, tsv: boolean): ParsedLine | 'unrouted' | { malformed: string } {
  if (fields === null) return { malformed: 'broken quoting' };
  if (tsv ? fields.length < 5 : fields.length !== 4) return { malformed: `expected ${tsv ? 5 : 4} fields, found ${fields.length}` };
  const start = parseAddress(fields[0].trim());
  if (typeof start === 'string') return { malformed: start };
  const end = parseAddress(fields[1].trim());
  if (typeof end === 'string') return { malformed: end };
  if (start.family !== end.family) return { malformed: 'start and end are of different address families' };
  if (end.value < start.value) return { malformed: 'end address is before start address' };
  const asnText = fields[2].trim().replace(/^AS/i, '');
  if (!/^[0-9]{1,10}$/.test(asnText) || Number(asnText) > 0xffffffff) return { malformed: `invalid ASN ${quoted(fields[2], 60)}` };
  const asn = Number(asnText);
  if (asn === 0) return 'unrouted';
  return { family: start.family, start: start.value, end: end.value, asn, org: capOrganization((tsv ? fields.slice(4).join('\t') : fields[3]).trim()) };
}

/** `name` cut to MAX_ORGANIZATION code units, never between the two halves of a surrogate pair. */
function capOrganization(name: string): string {
  if (name.length <= MAX_ORGANIZATION) return name;
  const last = name.charCodeAt(MAX_ORGANIZATION - 1);
  return name.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_ORGANIZATION - 1 : MAX_ORGANIZATION);
}

/**
 * Parses every source into IPv4 and IPv6 rows. Throws AppError
 * ipdb_source_invalid when a source is unusable: more than
 * MAX_MALFORMED_SHARE of its lines malformed, or no range at all.
 */
export function parseSources(files: SourceFile[], onProgress?: (fraction: number) => void): ParsedSources {
  const out: ParsedSources = { v4: [], v6: [], lines: 0, unrouted: 0, malformed: 0, malformedExamples: [] };
  let order = 0;
  const total = files.reduce((a, f) => a + f.data.length, 0) || 1;
  let done = 0;
  const reportEvery = 1 << 16;
  for (const file of files) {
    const text = decodeSource(file.name, file.data);
    const before = { lines: out.lines, malformed: out.malformed, unrouted: out.unrouted, rows: out.v4.length + out.v6.length };
    let tsv: boolean | undefined;
    let pos = 0;
    let lineNo = 0;
    // This file's first malformed line, for the refusal message: the shared
    // example list is capped and may already be full from earlier files.
    let firstBad: MalformedLine | undefined;
    while (pos < text.length) {
      let nl = text.indexOf('\n', pos);
      if (nl < 0) nl = text.length;
      let line = text.slice(pos, nl);
      pos = nl + 1;
      lineNo++;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.length === 0 || line.charCodeAt(0) === 35) continue;
      let r: ReturnType<typeof parseLine>;
      if (line.length > MAX_LINE) {
        // Not split: a line of 140 million commas made String.prototype.split
        // end the whole process (a V8 fatal error, not an exception).
        r = { malformed: `a line of ${line.length} characters (at most ${MAX_LINE})` };
      } else {
        tsv ??= line.indexOf('\t') >= 0;
        const fields = tsv ? line.split('\t') : splitCsvLine(line);
        // A header line: the first field is a column name, not an address.
        if (lineNo === 1 && fields && /^[A-Za-z_]+$/.test(fields[0]) && !/^[0-9a-fA-F]+$/.test(fields[0])) continue;
        r = parseLine(fields, tsv);
      }
      out.lines++;
      if (r === 'unrouted') {
        out.unrouted++;
      } else if ('malformed' in r) {
        out.malformed++;
        const bad = { source: file.name, line: lineNo, reason: r.malformed };
        firstBad ??= bad;
        if (out.malformedExamples.length < 10) out.malformedExamples.push(bad);
      } else {
        (r.family === 4 ? out.v4 : out.v6).push({ start: r.start, end: r.end, asn: r.asn, org: r.org, order: order++ });
      }
      if (onProgress && lineNo % reportEvery === 0) onProgress((done + (pos / text.length) * file.data.length) / total);
    }
    done += file.data.length;
    const lines = out.lines - before.lines;
    const malformed = out.malformed - before.malformed;
    if (lines > 0 && malformed > lines * MAX_MALFORMED_SHARE) {
      const first = firstBad ? ` (first: line ${firstBad.line}, ${firstBad.reason})` : '';
      throw new AppError('ipdb_source_invalid', `${file.name}: ${malformed} of ${lines} lines are malformed${first}`);
    }
    if (out.v4.length + out.v6.length === before.rows && out.unrouted === before.unrouted) {
      throw new AppError('ipdb_source_invalid', `${file.name}: no address ranges found`);
    }
  }
  onProgress?.(1);
  return out;
}
