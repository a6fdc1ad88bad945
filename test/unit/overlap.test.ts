// The overlap rule (src/ipdb/build.ts): every address belongs to the narrowest
// row covering it; between rows of equal width the first row in source order
// wins; a wider row keeps the parts nothing narrower covers; adjacent pieces
// of one record (ASN and organization) form one range. Checked on small
// synthetic CSVs built through parseSources + buildDatabase and read back
// through IpDatabase, first by hand-picked cases, then against a brute-force
// per-address reading of random rows.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseIp } from '../../src/ipdb/address.js';
import { buildDatabase } from '../../src/ipdb/build.js';
import { IpDatabase } from '../../src/ipdb/database.js';
import { parseSources } from '../../src/ipdb/sources.js';
import { TEST_SEED, xorshift32 } from '../helpers/seeded.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'splitguard-overlap-'));
const opened: IpDatabase[] = [];
let fileCount = 0;

afterAll(() => {
  for (const db of opened) db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Builds a database from CSV sources (one string per source file) and opens it. */
function build(...sources: string[]): IpDatabase {
  const parsed = parseSources(sources.map((text, k) => ({ name: `source-${k}.csv`, data: new TextEncoder().encode(text) })));
  const { bytes } = buildDatabase(parsed, { sourceName: 'overlap test', dataVersion: '1' });
  const file = path.join(dir, `db-${fileCount++}.trie`);
  writeFileSync(file, bytes);
  const db = IpDatabase.open(file);
  opened.push(db);
  return db;
}

/** "AS<n> <org>" at an address, or null when not found; the JS and native walks must agree. */
function owner(db: IpDatabase, ip: string): string | null {
  const r = db.describe(ip);
  if (r === null) throw new Error(`not an address: ${ip}`);
  const bytes = new Uint8Array(16);
  parseIp(ip, bytes);
  const record = db.lookupBytes(bytes);
  expect(db.lookupNative(bytes), `lookupNative(${ip})`).toBe(record);
  expect(record === 0, `lookupBytes(${ip})`).toBe(!r.found);
  return r.found ? `AS${r.asn} ${r.organization}` : null;
}

const range = (db: IpDatabase, ip: string) => db.describe(ip)?.range ?? null;

describe('IPv4: the narrowest covering row wins', () => {
  const outer = '10.0.0.0,10.0.255.255,1,Outer';
  const inner = '10.0.1.0,10.0.1.255,2,Inner';

  it.each([
    ['outer first', [outer, inner]],
    ['inner first', [inner, outer]],
  ])('nested (%s)', (_, lines) => {
    const db = build(lines.join('\n'));
    expect(owner(db, '9.255.255.255')).toBeNull();
    expect(owner(db, '10.0.0.0')).toBe('AS1 Outer');
    expect(owner(db, '10.0.0.255')).toBe('AS1 Outer');
    expect(owner(db, '10.0.1.0')).toBe('AS2 Inner');
    expect(owner(db, '10.0.1.255')).toBe('AS2 Inner');
    expect(owner(db, '10.0.2.0')).toBe('AS1 Outer');
    expect(owner(db, '10.0.255.255')).toBe('AS1 Outer');
    expect(owner(db, '10.1.0.0')).toBeNull();
    expect(range(db, '10.0.0.7')).toEqual({ start: '10.0.0.0', end: '10.0.0.255' });
    expect(range(db, '10.0.1.7')).toEqual({ start: '10.0.1.0', end: '10.0.1.255' });
    expect(range(db, '10.0.77.7')).toEqual({ start: '10.0.2.0', end: '10.0.255.255' });
  });

  it('three levels of nesting', () => {
    const db = build('10.0.0.0,10.255.255.255,1,A\n10.1.0.0,10.1.255.255,2,B\n10.1.1.0,10.1.1.255,3,C\n');
    expect(owner(db, '10.0.255.255')).toBe('AS1 A');
    expect(owner(db, '10.1.0.255')).toBe('AS2 B');
    expect(owner(db, '10.1.1.0')).toBe('AS3 C');
    expect(owner(db, '10.1.1.255')).toBe('AS3 C');
    expect(owner(db, '10.1.2.0')).toBe('AS2 B');
    expect(owner(db, '10.2.0.0')).toBe('AS1 A');
    expect(range(db, '10.1.2.0')).toEqual({ start: '10.1.2.0', end: '10.1.255.255' });
  });

  it.each([
    ['wide first', ['10.0.0.0,10.0.15.255,1,Wide', '10.0.12.0,10.0.19.255,2,Narrow']],
    ['narrow first', ['10.0.12.0,10.0.19.255,2,Narrow', '10.0.0.0,10.0.15.255,1,Wide']],
  ])('partial overlap: the shared part goes to the narrower row (%s)', (_, lines) => {
    // The shape of the DoD pair in the real data: a narrower row overlapping a wider one's tail.
    const db = build(lines.join('\n'));
    expect(owner(db, '10.0.11.255')).toBe('AS1 Wide');
    expect(owner(db, '10.0.12.0')).toBe('AS2 Narrow');
    expect(owner(db, '10.0.15.255')).toBe('AS2 Narrow');
    expect(owner(db, '10.0.16.0')).toBe('AS2 Narrow');
    expect(owner(db, '10.0.19.255')).toBe('AS2 Narrow');
    expect(owner(db, '10.0.20.0')).toBeNull();
    expect(range(db, '10.0.0.1')).toEqual({ start: '10.0.0.0', end: '10.0.11.255' });
    expect(range(db, '10.0.14.1')).toEqual({ start: '10.0.12.0', end: '10.0.19.255' });
  });
});

describe('IPv4: between rows of equal width the first in source order wins', () => {
  it('identical ranges', () => {
    const a = '10.0.0.0,10.0.0.255,1,First';
    const b = '10.0.0.0,10.0.0.255,2,Second';
    expect(owner(build(`${a}\n${b}`), '10.0.0.128')).toBe('AS1 First');
    expect(owner(build(`${b}\n${a}`), '10.0.0.128')).toBe('AS2 Second');
    expect(owner(build(a, b), '10.0.0.0'), 'across source files').toBe('AS1 First');
    expect(owner(build(b, a), '10.0.0.255'), 'across source files').toBe('AS2 Second');
  });

  it('equal widths overlapping in part', () => {
    const a = '10.0.0.0,10.0.1.255,1,A';
    const b = '10.0.1.0,10.0.2.255,2,B';
    const ab = build(`${a}\n${b}`);
    expect([owner(ab, '10.0.0.255'), owner(ab, '10.0.1.0'), owner(ab, '10.0.1.255'), owner(ab, '10.0.2.0')])
      .toEqual(['AS1 A', 'AS1 A', 'AS1 A', 'AS2 B']);
    expect(range(ab, '10.0.2.9')).toEqual({ start: '10.0.2.0', end: '10.0.2.255' });
    const ba = build(`${b}\n${a}`);
    expect([owner(ba, '10.0.0.255'), owner(ba, '10.0.1.0'), owner(ba, '10.0.1.255'), owner(ba, '10.0.2.0')])
      .toEqual(['AS1 A', 'AS2 B', 'AS2 B', 'AS2 B']);
    expect(range(ba, '10.0.0.9')).toEqual({ start: '10.0.0.0', end: '10.0.0.255' });
  });
});

describe('IPv4: adjacent pieces of one record form one range', () => {
  it('adjacent rows with the same ASN and organization merge', () => {
    const db = build('10.0.0.0,10.0.0.255,1,Same\n10.0.1.0,10.0.1.255,1,Same\n');
    expect(range(db, '10.0.0.1')).toEqual({ start: '10.0.0.0', end: '10.0.1.255' });
    expect(range(db, '10.0.1.1')).toEqual({ start: '10.0.0.0', end: '10.0.1.255' });
    expect(db.info.ranges.v4, 'gap, merged range, gap').toBe(3);
  });

  it('a row nested in a row of the same record leaves one range', () => {
    const db = build('10.0.0.0,10.0.3.255,1,Same\n10.0.1.0,10.0.1.255,1,Same\n');
    expect(range(db, '10.0.1.1')).toEqual({ start: '10.0.0.0', end: '10.0.3.255' });
  });

  it('same ASN with another organization, or a gap between, does not merge', () => {
    const db = build('10.0.0.0,10.0.0.255,1,One\n10.0.1.0,10.0.1.255,1,Other\n10.0.3.0,10.0.3.255,1,Other\n');
    expect(owner(db, '10.0.0.1')).toBe('AS1 One');
    expect(owner(db, '10.0.1.1')).toBe('AS1 Other');
    expect(owner(db, '10.0.2.1')).toBeNull();
    expect(range(db, '10.0.0.1')).toEqual({ start: '10.0.0.0', end: '10.0.0.255' });
    expect(range(db, '10.0.1.1')).toEqual({ start: '10.0.1.0', end: '10.0.1.255' });
    expect(range(db, '10.0.3.1')).toEqual({ start: '10.0.3.0', end: '10.0.3.255' });
  });

  it('the family edges: rows at 0.0.0.0 and ending at 255.255.255.255', () => {
    const db = build('0.0.0.0,0.255.255.255,1,Low\n255.255.255.0,255.255.255.255,2,High\n255.255.255.255,255.255.255.255,3,Last\n');
    expect(owner(db, '0.0.0.0')).toBe('AS1 Low');
    expect(owner(db, '1.0.0.0')).toBeNull();
    expect(owner(db, '255.255.255.254')).toBe('AS2 High');
    expect(owner(db, '255.255.255.255')).toBe('AS3 Last');
    expect(range(db, '255.255.255.255')).toEqual({ start: '255.255.255.255', end: '255.255.255.255' });
    expect(range(db, '255.255.255.1')).toEqual({ start: '255.255.255.0', end: '255.255.255.254' });
  });
});

describe('IPv6: the same rule', () => {
  it.each([
    ['outer first', ['2001:db8::,2001:db8:ffff:ffff:ffff:ffff:ffff:ffff,1,Outer', '2001:db8:1::,2001:db8:1:ffff:ffff:ffff:ffff:ffff,2,Inner']],
    ['inner first', ['2001:db8:1::,2001:db8:1:ffff:ffff:ffff:ffff:ffff,2,Inner', '2001:db8::,2001:db8:ffff:ffff:ffff:ffff:ffff:ffff,1,Outer']],
  ])('nested (%s)', (_, lines) => {
    const db = build(lines.join('\n'));
    expect(owner(db, '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff')).toBeNull();
    expect(owner(db, '2001:db8::')).toBe('AS1 Outer');
    expect(owner(db, '2001:db8:0:ffff:ffff:ffff:ffff:ffff')).toBe('AS1 Outer');
    expect(owner(db, '2001:db8:1::')).toBe('AS2 Inner');
    expect(owner(db, '2001:db8:1:ffff:ffff:ffff:ffff:ffff')).toBe('AS2 Inner');
    expect(owner(db, '2001:db8:2::')).toBe('AS1 Outer');
    expect(owner(db, '2001:db9::')).toBeNull();
    expect(range(db, '2001:db8:1::5')).toEqual({ start: '2001:db8:1::', end: '2001:db8:1:ffff:ffff:ffff:ffff:ffff' });
    expect(range(db, '2001:db8:2::5')).toEqual({ start: '2001:db8:2::', end: '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff' });
  });

  it('partial overlap goes to the narrower row; identical ranges to the first', () => {
    const db = build(
      [
        '2001:db8::,2001:db8:f:ffff:ffff:ffff:ffff:ffff,1,Wide',
        '2001:db8:c::,2001:db8:13:ffff:ffff:ffff:ffff:ffff,2,Narrow',
        '2001:db8:100::,2001:db8:100::ffff,3,First',
        '2001:db8:100::,2001:db8:100::ffff,4,Second',
      ].join('\n'),
    );
    expect(owner(db, '2001:db8:b:ffff:ffff:ffff:ffff:ffff')).toBe('AS1 Wide');
    expect(owner(db, '2001:db8:c::')).toBe('AS2 Narrow');
    expect(owner(db, '2001:db8:f:ffff:ffff:ffff:ffff:ffff')).toBe('AS2 Narrow');
    expect(owner(db, '2001:db8:13:ffff:ffff:ffff:ffff:ffff')).toBe('AS2 Narrow');
    expect(owner(db, '2001:db8:14::')).toBeNull();
    expect(owner(db, '2001:db8:100::abc')).toBe('AS3 First');
    expect(range(db, '2001:db8:5::')).toEqual({ start: '2001:db8::', end: '2001:db8:b:ffff:ffff:ffff:ffff:ffff' });
  });

  it('adjacent rows of one record merge, up to the last address', () => {
    const db = build('ffff::,ffff:7fff:ffff:ffff:ffff:ffff:ffff:ffff,1,Top\nffff:8000::,ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff,1,Top\n');
    expect(owner(db, 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toBe('AS1 Top');
    expect(range(db, 'ffff::1')).toEqual({ start: 'ffff::', end: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff' });
    expect(db.info.ranges.v6, 'gap, merged range').toBe(2);
  });
});

describe('random overlapping rows agree with a brute-force reading of the rule', () => {

  interface Row { lo: number; hi: number; asn: number; org: string; line: number }

  /**
   * Rows inside a space of 4096 addresses; few distinct records, so equal
   * records meet and merge, and widths repeat, so ties happen.
   */
  function randomRows(next: () => number): Row[] {
    const rows: Row[] = [];
    const n = 1 + (next() % 12);
    for (let line = 0; line < n; line++) {
      const width = [1, 16, 256, 256, 512, 1024, 1 + (next() % 2048)][next() % 7];
      const lo = next() % (4096 - width + 1);
      const asn = 1 + (next() % 4);
      rows.push({ lo, hi: lo + width - 1, asn, org: next() % 3 === 0 ? `Org ${asn}b` : `Org ${asn}`, line });
    }
    return rows;
  }

  /** The owner of every address of the space, by the rule's definition. */
  function bruteForce(rows: Row[]): (Row | null)[] {
    const out: (Row | null)[] = [];
    for (let x = 0; x < 4096; x++) {
      let best: Row | null = null;
      for (const r of rows) {
        if (x < r.lo || x > r.hi) continue;
        if (!best || r.hi - r.lo < best.hi - best.lo || (r.hi - r.lo === best.hi - best.lo && r.line < best.line)) best = r;
      }
      out.push(best);
    }
    return out;
  }

  const same = (a: Row | null, b: Row | null) => a !== null && b !== null && a.asn === b.asn && a.org === b.org;

  /** Runs the random trials in one family; `text(x)` spells address x of the 4096-address space. */
  function trials(family: string, count: number, seed: number, text: (x: number) => string, bytes: (x: number, out: Uint8Array) => void) {
    const next = xorshift32(seed, 0x2545f491);
    const problems: string[] = [];
    const all = new Uint8Array(16 * 4096);
    for (let x = 0; x < 4096; x++) bytes(x, all.subarray(16 * x, 16 * x + 16));
    for (let t = 0; t < count && problems.length < 20; t++) {
      const rows = randomRows(next);
      const csv = rows.map((r) => `${text(r.lo)},${text(r.hi)},${r.asn},${r.org}`).join('\n');
      const db = build(csv);
      const want = bruteForce(rows);
      const got = db.lookupBatch16(all);
      for (let x = 0; x < 4096 && problems.length < 20; x++) {
        const w = want[x];
        const r = got[x];
        const ok = w === null ? r === 0 : r !== 0 && db.asn(r) === w.asn && db.organization(r) === w.org;
        if (!ok) {
          problems.push(`${family} trial ${t}, ${text(x)}: got ${r ? `AS${db.asn(r)} ${db.organization(r)}` : 'nothing'}, ` +
            `expected ${w ? `AS${w.asn} ${w.org} (line ${w.line + 1})` : 'nothing'}\n${csv}`);
          continue;
        }
        if (w === null || x % 5 !== 0) continue;
        let lo = x;
        while (lo > 0 && same(want[lo - 1], w)) lo--;
        let hi = x;
        while (hi < 4095 && same(want[hi + 1], w)) hi++;
        const expected = { start: text(lo), end: text(hi) };
        const actual = db.rangeOf(all.subarray(16 * x, 16 * x + 16));
        if (actual.start !== expected.start || actual.end !== expected.end) {
          problems.push(`${family} trial ${t}, range of ${text(x)}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}\n${csv}`);
        }
      }
      db.close();
      opened.splice(opened.indexOf(db), 1);
    }
    expect(problems, `seed ${TEST_SEED}`).toEqual([]);
  }

  it('IPv4: 150 random sets of rows in 10.0.0.0/20', () => {
    const text = (x: number) => `10.0.${x >> 8}.${x & 255}`;
    trials('IPv4', 150, TEST_SEED, text, (x, out) => {
      out.fill(0, 0, 10);
      out.set([0xff, 0xff, 10, 0, x >> 8, x & 255], 10);
    });
  });

  it('IPv6: 80 random sets of rows in 2001:db8:1:2:3:4:5:0/116', () => {
    const text = (x: number) => `2001:db8:1:2:3:4:5:${x.toString(16)}`;
    trials('IPv6', 80, TEST_SEED + 1, text, (x, out) => {
      out.set([0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, x >> 8, x & 255]);
    });
  });
});
