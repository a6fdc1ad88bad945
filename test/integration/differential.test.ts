// Differential test: the database built from the embedded @ip-location-db/asn
// text CSVs answers every lookup path exactly as an independent reading of the
// package's *numeric* CSVs (asn-ipv4-num.csv, asn-ipv6-num.csv) says it should.
//
// The oracle below shares no code with src/ipdb/sources.ts or build.ts: it
// reads the numeric files with BigInt and its own quote-aware split, and it
// answers "who owns address x" straight from the documented overlap rule
// (build.ts): the narrowest row covering x wins; between rows of equal width,
// the first row in source order. Organizations are compared trimmed of
// surrounding white space, as the builder stores them (the package has
// entries such as "FRIT ").
//
// Random addresses come from a seeded xorshift128; the seed is printed and a
// failing run can be replayed with SPLITGUARD_TEST_SEED=<seed>.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpDatabase } from '../../src/ipdb/database.js';
import { embeddedSource } from '../../src/ipdb/embedded.js';
import { buildFromFiles, installDatabaseFile } from '../../src/ipdb/files.js';
import { TEST_SEED } from '../helpers/seeded.js';

const RANDOM_V4 = 100_000;
const RANDOM_V6 = 100_000;
const RANGE_SAMPLE = 20_000;
const MAX_REPORTED = 20;

const V4_MAX = 0xffffffffn;
const V6_MAX = (1n << 128n) - 1n;

// --- seeded PRNG -------------------------------------------------------------

/** xorshift128 (Marsaglia), state filled from the seed by splitmix32. */
function xorshift128(seed: number): () => number {
  let s = seed >>> 0;
  const splitmix = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let x = splitmix() || 1;
  let y = splitmix();
  let z = splitmix();
  let w = splitmix();
  return () => {
    const t = (x ^ (x << 11)) >>> 0;
    x = y;
    y = z;
    z = w;
    w = (w ^ (w >>> 19) ^ (t ^ (t >>> 8))) >>> 0;
    return w;
  };
}

const next32 = xorshift128(TEST_SEED);
const randomBelow = (n: number) => Math.floor((next32() / 0x1_0000_0000) * n);
const random128 = () =>
  (BigInt(next32()) << 96n) | (BigInt(next32()) << 64n) | (BigInt(next32()) << 32n) | BigInt(next32());

// --- the independent reading of the CSV --------------------------------------

interface CsvRow {
  start: bigint;
  end: bigint;
  asn: number;
  org: string;
  /** 1-based line in its file: source order for the tie rule. */
  line: number;
}

/** One CSV line split on commas outside double quotes; "" inside quotes is a quote. */
function splitQuoted(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
    } else {
      field += c;
    }
  }
  fields.push(field);
  return fields;
}

function readNumericCsv(file: string, max: bigint): CsvRow[] {
  const rows: CsvRow[] = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k].replace(/\r$/, '');
    if (line === '') continue;
    const f = splitQuoted(line);
    if (f.length !== 4) throw new Error(`${path.basename(file)}:${k + 1}: ${f.length} fields`);
    const row = { start: BigInt(f[0]), end: BigInt(f[1]), asn: Number(f[2]), org: f[3].trim(), line: k + 1 };
    if (row.start > row.end || row.end > max || !Number.isInteger(row.asn) || row.asn <= 0) {
      throw new Error(`${path.basename(file)}:${k + 1}: unexpected row ${line}`);
    }
    rows.push(row);
  }
  return rows;
}

/** Index of the last element <= x in a sorted bigint array, or -1. */
function lastAtMost(sorted: bigint[], x: bigint): number {
  let lo = -1;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const sameRecord = (a: CsvRow | null, b: CsvRow | null) => a !== null && b !== null && a.asn === b.asn && a.org === b.org;

/** Answers ownership of an address from the rows of one family, by the overlap rule's definition. */
class Oracle {
  readonly rows: CsvRow[];
  readonly #starts: bigint[];
  /** #maxEnd[k]: the largest end among rows[0..k]; a walk left stops once it is below x. */
  readonly #maxEnd: bigint[];
  /** Every row start and end + 1, sorted: ownership is constant between two neighbours. */
  readonly #points: bigint[];

  constructor(rows: CsvRow[]) {
    this.rows = [...rows].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.line - b.line));
    this.#starts = this.rows.map((r) => r.start);
    this.#maxEnd = [];
    let m = -1n;
    for (const r of this.rows) {
      if (r.end > m) m = r.end;
      this.#maxEnd.push(m);
    }
    // Sorted and deduplicated by hand: a Set<bigint> hashes these values poorly
    // in V8 (IPv6 starts share their low 64 bits) and turns quadratic.
    const points = this.rows.flatMap((r) => [r.start, r.end + 1n]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    this.#points = points.filter((p, k) => k === 0 || p !== points[k - 1]);
  }

  /** The row owning x: narrowest covering row, ties to the earliest line; null in a gap. */
  owner(x: bigint): CsvRow | null {
    let best: CsvRow | null = null;
    for (let k = lastAtMost(this.#starts, x); k >= 0 && this.#maxEnd[k] >= x; k--) {
      const r = this.rows[k];
      if (r.end < x) continue;
      if (best === null) {
        best = r;
        continue;
      }
      const w = r.end - r.start;
      const bw = best.end - best.start;
      if (w < bw || (w === bw && r.line < best.line)) best = r;
    }
    return best;
  }

  /** Pairs of rows that overlap (the rule has something to decide). */
  overlaps(): [CsvRow, CsvRow][] {
    const out: [CsvRow, CsvRow][] = [];
    for (let k = 1; k < this.rows.length; k++) {
      if (this.#maxEnd[k - 1] < this.rows[k].start) continue;
      for (let j = k - 1; j >= 0 && this.#maxEnd[j] >= this.rows[k].start; j--) {
        if (this.rows[j].end >= this.rows[k].start) out.push([this.rows[j], this.rows[k]]);
      }
    }
    return out;
  }

  /**
   * The maximal run of addresses around x owned by rows of x's record (asn and
   * organization): a CSV row cut by a narrower one yields pieces, and
   * adjacent pieces of one record form one range.
   */
  piece(x: bigint): { start: bigint; end: bigint } | null {
    const own = this.owner(x);
    if (own === null) return null;
    const p = this.#points;
    let i = lastAtMost(p, x);
    while (i > 0 && sameRecord(this.owner(p[i] - 1n), own)) i--;
    let j = lastAtMost(p, x) + 1;
    while (j < p.length - 1 && sameRecord(this.owner(p[j]), own)) j++;
    return { start: p[i], end: p[j] - 1n };
  }
}

// --- address forms, written independently of src/ipdb/address.ts -------------

const v4Text = (v: number) => `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;

function v6Bytes(v: bigint, out: Uint8Array, at = 0): void {
  for (let k = 15; k >= 0; k--) {
    out[at + k] = Number(v & 0xffn);
    v >>= 8n;
  }
}

function v6Words(v: bigint): string[] {
  const words: string[] = [];
  for (let k = 7; k >= 0; k--) words.push(((v >> BigInt(16 * k)) & 0xffffn).toString(16));
  return words;
}

/** RFC 5952 text as the WHATWG URL parser serializes an IPv6 host. */
const canonicalV6 = (v: bigint) => new URL(`http://[${v6Words(v).join(':')}]`).hostname.slice(1, -1);

/** One of several valid spellings of an IPv6 address. */
function someV6Text(v: bigint, variant: number): string {
  const words = v6Words(v);
  if (variant === 0) return words.map((w) => w.padStart(4, '0')).join(':');
  if (variant === 1) return words.join(':').toUpperCase();
  return canonicalV6(v);
}

function mapped16(v4: number, out: Uint8Array, at = 0): void {
  out.fill(0, at, at + 10);
  out[at + 10] = 0xff;
  out[at + 11] = 0xff;
  out[at + 12] = v4 >>> 24;
  out[at + 13] = (v4 >>> 16) & 255;
  out[at + 14] = (v4 >>> 8) & 255;
  out[at + 15] = v4 & 255;
}

// --- fixture ------------------------------------------------------------------

let dir: string;
let db: IpDatabase;
let oracle4: Oracle;
let oracle6: Oracle;

beforeAll(() => {
  console.log(`differential seed: ${TEST_SEED} (replay with SPLITGUARD_TEST_SEED=${TEST_SEED})`);
  const source = embeddedSource();
  dir = mkdtempSync(path.join(os.tmpdir(), 'splitguard-differential-'));
  const { bytes } = buildFromFiles(source.files, { sourceName: source.name, dataVersion: source.version });
  const file = path.join(dir, 'asn.trie');
  installDatabaseFile(bytes, file);
  db = IpDatabase.open(file);
  const pkgDir = path.dirname(source.files[0]);
  oracle4 = new Oracle(readNumericCsv(path.join(pkgDir, 'asn-ipv4-num.csv'), V4_MAX));
  oracle6 = new Oracle(readNumericCsv(path.join(pkgDir, 'asn-ipv6-num.csv'), V6_MAX));
});

afterAll(() => {
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// --- comparison ---------------------------------------------------------------

type Answers = Record<string, number>;

/**
 * Checks that every path returned a record matching the oracle's row (record
 * 0 for a gap); returns a description of the disagreement, or null.
 */
function disagreement(address: string, answers: Answers, want: CsvRow | null): string | null {
  const wrong: string[] = [];
  for (const [pathName, record] of Object.entries(answers)) {
    const ok = want === null
      ? record === 0
      : record > 0 && db.asn(record) === want.asn && db.organization(record) === want.org;
    if (!ok) {
      const got = record > 0 ? `AS${db.asn(record)} ${JSON.stringify(db.organization(record))}` : `record ${record}`;
      wrong.push(`${pathName} -> ${got}`);
    }
  }
  if (wrong.length === 0) return null;
  const expected = want === null ? 'not found' : `AS${want.asn} ${JSON.stringify(want.org)} (csv line ${want.line})`;
  return `${address}: expected ${expected}; ${wrong.join(', ')}`;
}

function expectNoDisagreement(what: string, problems: string[], checked: number): void {
  expect(
    problems.slice(0, MAX_REPORTED),
    `${problems.length} of ${checked} ${what} disagree with the CSV (seed ${TEST_SEED})`,
  ).toEqual([]);
}

/** Looks up IPv4 addresses through every path and compares with the oracle. */
function checkV4(ips: Uint32Array, what: string): { hits: number; misses: number } {
  const n = ips.length;
  const batch4 = db.lookupBatch4(ips);
  const all16 = new Uint8Array(16 * n);
  for (let i = 0; i < n; i++) mapped16(ips[i], all16, 16 * i);
  const batch16 = db.lookupBatch16(all16);
  const b4 = new Uint8Array(4);
  const problems: string[] = [];
  let hits = 0;
  for (let i = 0; i < n; i++) {
    const ip = ips[i];
    b4[0] = ip >>> 24;
    b4[1] = (ip >>> 16) & 255;
    b4[2] = (ip >>> 8) & 255;
    b4[3] = ip & 255;
    const b16 = all16.subarray(16 * i, 16 * i + 16);
    const text = v4Text(ip);
    const answers: Answers = {
      lookup4: db.lookup4(ip),
      'lookupBytes(4)': db.lookupBytes(b4),
      'lookupBytes(16 mapped)': db.lookupBytes(b16),
      lookupText: db.lookupText(text),
      'lookupText(::ffff:)': db.lookupText(i % 8 === 0 ? `::ffff:${text}` : text),
      'lookupNative(4)': db.lookupNative(b4),
      'lookupNative(16 mapped)': db.lookupNative(b16),
      lookupBatch4: batch4[i],
      'lookupBatch16(mapped)': batch16[i],
    };
    const want = oracle4.owner(BigInt(ip));
    if (want) hits++;
    const d = disagreement(text, answers, want);
    if (d) problems.push(d);
  }
  expectNoDisagreement(what, problems, n);
  return { hits, misses: n - hits };
}

/** Looks up IPv6 addresses through every path and compares with the oracle. */
function checkV6(addresses: bigint[], what: string): { hits: number; misses: number } {
  const n = addresses.length;
  const all16 = new Uint8Array(16 * n);
  for (let i = 0; i < n; i++) v6Bytes(addresses[i], all16, 16 * i);
  const batch16 = db.lookupBatch16(all16);
  const problems: string[] = [];
  let hits = 0;
  for (let i = 0; i < n; i++) {
    const b16 = all16.subarray(16 * i, 16 * i + 16);
    const text = someV6Text(addresses[i], i % 3);
    const answers: Answers = {
      'lookupBytes(16)': db.lookupBytes(b16),
      lookupText: db.lookupText(text),
      'lookupNative(16)': db.lookupNative(b16),
      lookupBatch16: batch16[i],
    };
    const want = oracle6.owner(addresses[i]);
    if (want) hits++;
    const d = disagreement(text, answers, want);
    if (d) problems.push(d);
  }
  expectNoDisagreement(what, problems, n);
  return { hits, misses: n - hits };
}

/** start, end, start - 1 and end + 1 of every row, inside the family. */
function edges(oracle: Oracle, max: bigint): bigint[] {
  const out: bigint[] = [];
  for (const r of oracle.rows) {
    out.push(r.start, r.end);
    if (r.start > 0n) out.push(r.start - 1n);
    if (r.end < max) out.push(r.end + 1n);
  }
  return out;
}

// --- tests --------------------------------------------------------------------

describe('lookups agree with an independent reading of the ip-location-db CSV', () => {
  it('reads both numeric CSVs and finds the one documented overlap', () => {
    expect(oracle4.rows.length).toBeGreaterThan(300_000);
    expect(oracle6.rows.length).toBeGreaterThan(50_000);
    expect(db.info.ranges.v4).toBeGreaterThan(oracle4.rows.length);
    const pairs = [...oracle4.overlaps(), ...oracle6.overlaps()].map(([a, b]) => [a.asn, b.asn]);
    expect(pairs).toContainEqual([749, 721]);
  });

  it(`${RANDOM_V4} random IPv4 addresses, every lookup path`, () => {
    const ips = new Uint32Array(RANDOM_V4);
    for (let i = 0; i < ips.length; i++) ips[i] = next32();
    const { hits, misses } = checkV4(ips, 'random IPv4 addresses');
    // Both outcomes must be exercised for the comparison to mean anything.
    expect(hits).toBeGreaterThan(RANDOM_V4 / 4);
    expect(misses).toBeGreaterThan(RANDOM_V4 / 20);
  });

  it(`${RANDOM_V6} random IPv6 addresses (inside CSV rows, in 2000::/3, anywhere), every lookup path`, () => {
    const rows = oracle6.rows;
    const addresses: bigint[] = [];
    for (let i = 0; i < RANDOM_V6; i++) {
      const kind = i % 10;
      if (kind < 6) {
        const r = rows[randomBelow(rows.length)];
        addresses.push(r.start + (random128() % (r.end - r.start + 1n)));
      } else if (kind < 9) {
        addresses.push((1n << 125n) | (random128() >> 3n)); // 2000::/3
      } else {
        addresses.push(random128());
      }
    }
    const { hits, misses } = checkV6(addresses, 'random IPv6 addresses');
    expect(hits).toBeGreaterThan(RANDOM_V6 / 2);
    expect(misses).toBeGreaterThan(RANDOM_V6 / 20);
  });

  it('IPv4 row edges: start, end, start - 1, end + 1 of every row', () => {
    const points = edges(oracle4, V4_MAX);
    const ips = Uint32Array.from(points, (p) => Number(p));
    const { misses } = checkV4(ips, 'IPv4 row edges');
    expect(misses, 'some rows border unannounced space').toBeGreaterThan(1000);
  });

  it('IPv6 row edges: start, end, start - 1, end + 1 of every row', () => {
    const { misses } = checkV6(edges(oracle6, V6_MAX), 'IPv6 row edges');
    expect(misses, 'some rows border unannounced space').toBeGreaterThan(1000);
  });

  it('the overlapping DoD pair: 215.0.0.0-215.1.3.255 (AS721) inside AS749 goes to AS721', () => {
    const wide = oracle4.rows.find((r) => r.asn === 749 && r.start <= 3607101440n && r.end >= 3607101440n);
    expect(wide, 'the AS749 row covering 215.0.0.0').toBeDefined();
    const wideStart = Number(wide!.start);
    const cases: [number, number][] = [
      [wideStart, 749],
      [3607101439, 749], // 214.255.255.255: last address only AS749 covers
      [3607101440, 721], // 215.0.0.0: first address of the narrower row
      [Number(wide!.end), 721], // last AS749 address, also covered by AS721
      [Number(wide!.end) + 1, 721],
      [3607167999, 721], // 215.1.3.255
    ];
    for (const [ip, asn] of cases) {
      expect(db.asn(db.lookup4(ip)), v4Text(ip)).toBe(asn);
      expect(db.describe(v4Text(ip))?.asn, v4Text(ip)).toBe(asn);
      expect(oracle4.owner(BigInt(ip))?.asn, `oracle ${v4Text(ip)}`).toBe(asn);
    }
    expect(db.describe('215.0.0.0')?.range).toEqual({ start: '215.0.0.0', end: '215.1.3.255' });
    expect(db.describe('214.255.255.255')?.range).toEqual({ start: v4Text(wideStart), end: '214.255.255.255' });
    expect(db.describe('215.1.4.0')?.asn).toBe(27066);
  });

  it(`rangeOf and describe agree with the resolved CSV pieces for ${RANGE_SAMPLE} IPv4 and IPv6 addresses`, () => {
    const problems: string[] = [];
    let found = 0;
    const b16 = new Uint8Array(16);
    const check = (family: 4 | 6, x: bigint) => {
      const oracle = family === 4 ? oracle4 : oracle6;
      const text = family === 4 ? v4Text(Number(x)) : canonicalV6(x);
      const fmt = (v: bigint) => (family === 4 ? v4Text(Number(v)) : canonicalV6(v));
      const want = oracle.owner(x);
      const piece = oracle.piece(x);
      const expected = {
        ip: text,
        version: family,
        found: want !== null,
        asn: want ? want.asn : null,
        organization: want ? want.org : null,
        range: piece ? { start: fmt(piece.start), end: fmt(piece.end) } : null,
      };
      const got = db.describe(text);
      if (JSON.stringify(got) !== JSON.stringify(expected)) {
        problems.push(`describe(${text}): got ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
      }
      if (piece) {
        found++;
        if (family === 4) mapped16(Number(x), b16);
        else v6Bytes(x, b16);
        const range = db.rangeOf(b16);
        if (range.start !== expected.range!.start || range.end !== expected.range!.end) {
          problems.push(`rangeOf(${text}): got ${JSON.stringify(range)}, expected ${JSON.stringify(expected.range)}`);
        }
      }
    };
    // Half the sample at row edges (where pieces begin and end), half inside rows, some gaps.
    for (let i = 0; i < RANGE_SAMPLE; i++) {
      const family = i % 2 === 0 ? 4 : 6;
      const oracle = family === 4 ? oracle4 : oracle6;
      const max = family === 4 ? V4_MAX : V6_MAX;
      const r = oracle.rows[randomBelow(oracle.rows.length)];
      const pick = i % 8 >> 1;
      let x: bigint;
      if (pick === 0) x = r.start;
      else if (pick === 1) x = r.end;
      else if (pick === 2) x = r.start + (random128() % (r.end - r.start + 1n));
      else x = r.end < max ? r.end + 1n : r.start - 1n;
      check(family, x);
    }
    for (let ip = 3607101000; ip < 3607168300; ip += 997) check(4, BigInt(ip)); // across the DoD overlap
    expect(problems.slice(0, MAX_REPORTED), `${problems.length} range disagreements (seed ${TEST_SEED})`).toEqual([]);
    expect(found).toBeGreaterThan(RANGE_SAMPLE / 2);
  });
});
