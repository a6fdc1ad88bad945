// Reading database sources: the ip-location-db CSV and the iptoasn TSV, plain
// or gzip, with malformed lines counted and unusable sources refused with
// ipdb_source_invalid.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { parseSources, type ParsedSources } from '../../src/ipdb/sources.js';

const enc = new TextEncoder();
const source = (name: string, text: string) => ({ name, data: enc.encode(text) });

/** The rows of a parse without their bookkeeping, for comparisons. */
const rows = (p: ParsedSources) => ({
  v4: p.v4.map(({ start, end, asn, org }) => ({ start, end, asn, org })),
  v6: p.v6.map(({ start, end, asn, org }) => ({ start, end, asn, org })),
});

/** n valid IPv4 lines, each a distinct /24 in 10.0.0.0/8. */
const validLines = (n: number) =>
  Array.from({ length: n }, (_, i) => `10.${(i >> 8) & 255}.${i & 255}.0,10.${(i >> 8) & 255}.${i & 255}.255,${64512 + (i % 100)},Org ${i}`);

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the source to be refused');
}

describe('parseSources: the ip-location-db CSV', () => {
  it('keeps quoted commas, doubled quotes and non-ASCII organization names', () => {
    const parsed = parseSources([
      source(
        'asn.csv',
        [
          '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."',
          '2.56.20.0,2.56.23.255,201907,"LLC ""SPUTNIK"""',
          '5.8.0.0,5.8.0.255,12345,Société Générale — Ürün 東京 ­ ME',
          '5.9.0.0,5.9.0.255,23456,"Ça, ""va"" 🙂"',
        ].join('\n'),
      ),
    ]);
    expect(parsed.malformed).toBe(0);
    expect(parsed.v4.map((r) => r.org)).toEqual([
      'Cloudflare, Inc.',
      'LLC "SPUTNIK"',
      'Société Générale — Ürün 東京 ­ ME',
      'Ça, "va" 🙂',
    ]);
    expect(parsed.v4[0]).toMatchObject({ start: 0x01000000n, end: 0x010000ffn, asn: 13335 });
  });

  it('reads CRLF line ends, skips a header line, and reads IPv6 rows', () => {
    const text =
      'start,end,asn,org\r\n' +
      '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."\r\n' +
      '2001:db8::,2001:db8::ffff,64496,Example\r\n' +
      '2001:db8:1::,2001:db8:1::ff,64497,"Quoted, last"\r\n';
    const parsed = parseSources([source('crlf.csv', text)]);
    expect(parsed.malformed).toBe(0);
    expect(parsed.lines).toBe(3);
    expect(rows(parsed)).toEqual({
      v4: [{ start: 0x01000000n, end: 0x010000ffn, asn: 13335, org: 'Cloudflare, Inc.' }],
      v6: [
        { start: 0x20010db8000000000000000000000000n, end: 0x20010db800000000000000000000ffffn, asn: 64496, org: 'Example' },
        { start: 0x20010db8000100000000000000000000n, end: 0x20010db80001000000000000000000ffn, asn: 64497, org: 'Quoted, last' },
      ],
    });
    // CRLF and LF give the same rows.
    expect(rows(parseSources([source('lf.csv', text.replaceAll('\r\n', '\n'))]))).toEqual(rows(parsed));
  });

  it('skips a byte-order mark before the header line', () => {
    const text = '\ufeffstart,end,asn,org\n1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."\n';
    const parsed = parseSources([source('bom.csv', text)]);
    expect(parsed.malformed).toBe(0);
    expect(parsed.lines).toBe(1);
    expect(parsed.v4[0]).toMatchObject({ asn: 13335, org: 'Cloudflare, Inc.' });
  });

  it('reads numeric addresses, values above 2^32 - 1 as IPv6', () => {
    const text = [
      '16777216,16777471,13335,"Cloudflare, Inc."',
      '42540766411282592856903984951653826560,42540766411282592856903984955948793855,64496,Example',
    ].join('\n');
    const parsed = parseSources([source('asn-num.csv', text)]);
    expect(rows(parsed)).toEqual({
      v4: [{ start: 16777216n, end: 16777471n, asn: 13335, org: 'Cloudflare, Inc.' }],
      v6: [{ start: 0x20010db8000000000000000000000000n, end: 0x20010db80000000000000000ffffffffn, asn: 64496, org: 'Example' }],
    });
    // The same rows written as text parse to the same values.
    const asText = parseSources([
      source('asn.csv', '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."\n2001:db8::,2001:db8::ffff:ffff,64496,Example\n'),
    ]);
    expect(rows(asText)).toEqual(rows(parsed));
  });

  it('reads gzip input exactly as the plain text', () => {
    const text = ['1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."', '2001:db8::,2001:db8::ffff,64496,Ürün', ...validLines(50)].join('\n');
    const plain = parseSources([source('asn.csv', text)]);
    const gzip = parseSources([{ name: 'asn.csv.gz', data: gzipSync(enc.encode(text)) }]);
    expect(gzip.v4.length).toBe(51);
    expect(gzip).toEqual(plain);
  });

  it('gives rows increasing order across sources (the overlap tie-break)', () => {
    const parsed = parseSources([
      source('a.csv', '1.0.0.0,1.0.0.255,1,A\n2001:db8::,2001:db8::ff,2,B\n'),
      source('b.csv', '1.0.0.0,1.0.0.255,3,C\n'),
    ]);
    expect([...parsed.v4, ...parsed.v6].sort((x, y) => x.order - y.order).map((r) => r.asn)).toEqual([1, 2, 3]);
  });
});

describe('parseSources: the iptoasn TSV', () => {
  it('parses rows and counts ASN 0 rows as unrouted, not malformed', () => {
    const text = [
      '0.0.0.0\t0.255.255.255\t0\tNone\tNot routed',
      '1.0.0.0\t1.0.0.255\t13335\tUS\tCLOUDFLARENET',
      '1.0.1.0\t1.0.3.255\t0\tNone\tNot routed',
      '1.0.4.0\t1.0.7.255\t38803\tAU\tGTELECOM-AUSTRALIA Gtelecom Pty Ltd',
      '2001:200::\t2001:200:1b9:ffff:ffff:ffff:ffff:ffff\t2500\tJP\tWIDE-BB WIDE Project',
    ].join('\n');
    const parsed = parseSources([source('ip2asn-combined.tsv', text)]);
    expect(parsed.unrouted).toBe(2);
    expect(parsed.malformed).toBe(0);
    expect(rows(parsed)).toEqual({
      v4: [
        { start: 0x01000000n, end: 0x010000ffn, asn: 13335, org: 'CLOUDFLARENET' },
        { start: 0x01000400n, end: 0x010007ffn, asn: 38803, org: 'GTELECOM-AUSTRALIA Gtelecom Pty Ltd' },
      ],
      v6: [{ start: 0x20010200000000000000000000000000n, end: 0x2001020001b9ffffffffffffffffffffn, asn: 2500, org: 'WIDE-BB WIDE Project' }],
    });
  });

  it('reads gzip TSV exactly as the plain text', () => {
    const text = '1.0.0.0\t1.0.0.255\t13335\tUS\tCLOUDFLARENET\n1.0.1.0\t1.0.3.255\t0\tNone\tNot routed\n';
    const plain = parseSources([source('ip2asn.tsv', text)]);
    const gzip = parseSources([{ name: 'ip2asn.tsv', data: gzipSync(enc.encode(text)) }]);
    expect(gzip).toEqual(plain);
    expect(gzip.unrouted).toBe(1);
  });
});

describe('parseSources: malformed lines and refusals', () => {
  it('refuses a source with 2% malformed lines, naming the file and the first bad line', () => {
    const lines = validLines(100);
    lines[41] = '10.99.0.0,10.99.0.255,AS-bogus,Bad ASN'; // line 42
    lines[76] = '10.98.0.0,10.98.0.255,64512'; // line 77, three fields
    const err = refusal(() => parseSources([source('broken.csv', lines.join('\n'))]));
    expect(err.code).toBe('ipdb_source_invalid');
    expect(err.message).toContain('broken.csv');
    expect(err.message).toContain('2 of 100 lines');
    expect(err.message).toMatch(/line 42\b/);
  });

  it('names the failing file when an earlier source was fine', () => {
    const bad = validLines(50);
    bad[2] = 'not,an,address,here';
    bad[3] = '1.2.3.4';
    const err = refusal(() => parseSources([source('good.csv', validLines(50).join('\n')), source('bad.csv', bad.join('\n'))]));
    expect(err.code).toBe('ipdb_source_invalid');
    expect(err.message).toContain('bad.csv');
    expect(err.message).not.toContain('good.csv');
    expect(err.message).toMatch(/line 3\b/);
  });

  it('names the first bad line of the refused file even after earlier files filled the examples', () => {
    // 12 of 5000 malformed (0.24%): accepted, and more than the 10 examples kept.
    const noisy = validLines(5000);
    for (let k = 0; k < 12; k++) noisy[100 * (k + 1)] = 'garbage';
    const bad = validLines(100);
    bad[6] = 'garbage'; // line 7
    bad[8] = 'garbage';
    const err = refusal(() => parseSources([source('noisy.csv', noisy.join('\n')), source('bad.csv', bad.join('\n'))]));
    expect(err.message).toContain('bad.csv: 2 of 100 lines');
    expect(err.message).toMatch(/line 7\b/);
  });

  it('accepts a source with 0.5% malformed lines and reports the count and the line', () => {
    const lines = validLines(200);
    lines[9] = '10.200.0.255,10.200.0.0,64512,End before start'; // line 10
    const parsed = parseSources([source('mostly-fine.csv', lines.join('\n'))]);
    expect(parsed.malformed).toBe(1);
    expect(parsed.lines).toBe(200);
    expect(parsed.v4.length).toBe(199);
    expect(parsed.malformedExamples).toEqual([{ source: 'mostly-fine.csv', line: 10, reason: expect.any(String) }]);
  });

  it('counts each kind of malformed line', () => {
    const bad = [
      '"unterminated,1.0.0.255,1,X',
      '1.0.0.0,1.0.0.255,1',
      '01.0.0.0,1.0.0.255,1,Leading zero',
      '1.0.0.0,2001:db8::,1,Mixed families',
      '1.0.0.9,1.0.0.0,1,Reversed',
      '1.0.0.0,1.0.0.255,4294967296,ASN too large',
      '1.0.0.0,1.0.0.255,,Empty ASN',
      '340282366920938463463374607431768211456,340282366920938463463374607431768211456,1,Beyond 2^128',
    ];
    const lines = [...validLines(1000)];
    bad.forEach((line, k) => lines.splice(100 * (k + 1), 0, line));
    const parsed = parseSources([source('kinds.csv', lines.join('\n'))]);
    expect(parsed.malformed).toBe(bad.length);
    expect(parsed.v4.length).toBe(1000);
    expect(parsed.malformedExamples.map((m) => lines[m.line - 1])).toEqual(bad);
  });

  it('refuses an empty source', () => {
    const err = refusal(() => parseSources([source('empty.csv', '')]));
    expect(err.code).toBe('ipdb_source_invalid');
    expect(err.message).toContain('empty.csv');
  });

  it('refuses a source with only a header, comments and blank lines', () => {
    const err = refusal(() => parseSources([source('header-only.csv', 'start,end,asn,org\n# nothing here\n\n')]));
    expect(err.code).toBe('ipdb_source_invalid');
    expect(err.message).toContain('header-only.csv');
  });

  it('refuses gzip that does not decompress', () => {
    const gz = gzipSync(enc.encode(validLines(10).join('\n')));
    const err = refusal(() => parseSources([{ name: 'cut.csv.gz', data: gz.subarray(0, gz.length - 12) }]));
    expect(err.code).toBe('ipdb_source_invalid');
    expect(err.message).toContain('cut.csv.gz');
  });
});
