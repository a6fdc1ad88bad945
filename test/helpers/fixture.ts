// A small trie file built in memory, and the tools to take it apart.
//
// The CSV is chosen so that every kind of structure exists in the file:
//   * IPv4 leaves straight in ROOT4 (100.64.0.0/10 spans 64 root slots);
//   * IPv4 nodes: 1.0.0.0/24 and 8.8.8.0/24 sit inside one /16 each, and
//     10.20.0.0/16 is split into four ranges (two of one record, so the
//     node's runs are not all distinct);
//   * a wide node, whose DIR block has many buckets: 40 separate /24s in
//     172.16.0.0/16 give it 80 keys (each /24 and the gap after it);
//   * an IPv6 chain: 2001:db8::/32 needs a node below ROOT6[0x2001], the /48
//     inside it a node at depth 2, and the /128 inside that the whole chain
//     down to depth 7 (the deepest an IPv6 address allows);
//   * a second IPv6 subtree (2a00:1450::/32 with a /48), numbered after the
//     first one, so that a node can be pointed at from an earlier one;
//   * an organization with non-ASCII UTF-8, and one that needs CSV quoting;
//   * feeds (FIXTURE_FEEDS): a range feed inside Google's /24 with a
//     narrower one of another feed inside it, a feed range exactly on a
//     record's range, one outside every ASN range (a record of ASN 0), an
//     IPv6 feed range, and an ASN feed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseIp, parseIPv4 } from '../../src/ipdb/address.js';
import { buildDatabase, type FeedInput } from '../../src/ipdb/build.js';
import { IpDatabase } from '../../src/ipdb/database.js';
import type { FeedFile } from '../../src/ipdb/feeds/state.js';
import { buildFromFiles, type BuildFromFilesOptions, type FileBuildReport, installDatabaseFile } from '../../src/ipdb/files.js';
import { FEED_WORDS, Field, RECORD_WORDS, SHIFT_BITS } from '../../src/ipdb/format.js';
import { binding, Section } from '../../src/ipdb/native.js';
import { parseSources } from '../../src/ipdb/sources.js';

// 172.16.(2i).0/24 for i < 40, cycling through three networks.
function wideRows(): string {
  return Array.from({ length: 40 }, (_, i) => `172.16.${2 * i}.0,172.16.${2 * i}.255,${64520 + (i % 3)},Wide ${i % 3}`).join('\n');
}

const FIXTURE_CSV = `\
1.0.0.0,1.0.0.255,13335,Cloudflare
8.8.8.0,8.8.8.255,15169,Google LLC
10.20.0.0,10.20.63.255,64500,Alpha Net
10.20.64.0,10.20.64.255,64501,Beta Hosting
10.20.65.0,10.20.127.255,64500,Alpha Net
10.20.128.0,10.20.255.255,64502,Société Exemple
100.64.0.0,100.127.255.255,64503,Shared Space
${wideRows()}
2001:db8::,2001:db8:ffff:ffff:ffff:ffff:ffff:ffff,64510,Documentation Six
2001:db8:1::,2001:db8:1:ffff:ffff:ffff:ffff:ffff,64511,Nested Forty-Eight
2001:db8:1::1,2001:db8:1::1,64512,Single Host
2a00:1450::,2a00:1450:ffff:ffff:ffff:ffff:ffff:ffff,15169,Google LLC
2a00:1450:4001::,2a00:1450:4001:ffff:ffff:ffff:ffff:ffff,15169,"Google Ireland, Ltd."
`;

export const FIXTURE_SOURCE = 'fixture.csv';
export const FIXTURE_VERSION = '20250101';

const v4 = (a: string, b: string): [bigint, bigint] => [BigInt(parseIPv4(a)), BigInt(parseIPv4(b))];
const v6 = (a: string, b: string): [bigint, bigint] => {
  const big = (t: string) => {
    const x = new Uint8Array(16);
    parseIp(t, x);
    return x.reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n);
  };
  return [big(a), big(b)];
};

/** Feeds in the fixture, in priority order (slot = index + 1). */
const FIXTURE_FEEDS: FeedInput[] = [
  {
    name: 'fixture-cloud',
    label: 'cloud',
    version: 'c1',
    fetchedAt: 1_700_000_000_000,
    ranges: { v4: [v4('8.8.8.0', '8.8.8.127'), v4('10.20.64.0', '10.20.64.255')], v6: [v6('2a00:1450:4001::', '2a00:1450:4001::ffff:ffff:ffff:ffff')] },
  },
  {
    name: 'fixture-tor',
    label: 'tor',
    version: 't1',
    fetchedAt: 1_700_000_360_000,
    ranges: { v4: [v4('8.8.8.8', '8.8.8.8'), v4('192.0.2.0', '192.0.2.255')], v6: [] },
  },
  { name: 'fixture-hosting', label: 'hosting', version: 'h1', fetchedAt: 1_700_000_720_000, asns: [64501, 64520] },
];

/** A fresh copy of the fixture trie file (callers may mutate it). */
export function buildFixture(csv = FIXTURE_CSV, feeds: FeedInput[] = FIXTURE_FEEDS): Uint8Array {
  const parsed = parseSources([{ name: FIXTURE_SOURCE, data: new TextEncoder().encode(csv) }]);
  return buildDatabase(parsed, { sourceName: FIXTURE_SOURCE, dataVersion: FIXTURE_VERSION, buildTime: new Date(0), feeds }).bytes;
}

const tempDirs: string[] = [];

/** A new empty directory under the system temp directory (removed by removeTemps). */
export function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'splitguard-test-'));
  tempDirs.push(dir);
  return dir;
}

/** Writes bytes to a file in a new temporary directory; returns the file's path. */
export function writeTemp(bytes: Uint8Array, name = 'trie.ipdb'): string {
  const file = path.join(tempDir(), name);
  writeFileSync(file, bytes);
  return file;
}

/** Removes every directory made by tempDir/writeTemp in this process (for afterAll). */
export function removeTemps(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * A database built the way a refresh builds one (ipdb/files.ts
 * buildFromFiles, installed with installDatabaseFile) in a new temporary
 * directory (removed by removeTemps), and opened: from the ASN data `asnCsv`
 * and the feeds that `feeds` describes, whose files it writes with
 * `file(name, text)` (which returns the file's path).
 */
export function buildFromTexts(
  asnCsv: string,
  feeds: (file: (name: string, text: string) => string) => FeedFile[],
  options: Omit<BuildFromFilesOptions, 'feeds'> = {},
): { db: IpDatabase; report: FileBuildReport } {
  const dir = tempDir();
  const file = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const asn = file('asn.csv', asnCsv);
  const { bytes, report } = buildFromFiles([asn], { sourceName: 'asn.csv', dataVersion: 'test', ...options, feeds: feeds(file) });
  installDatabaseFile(bytes, path.join(dir, 'test.trie'));
  return { db: IpDatabase.open(path.join(dir, 'test.trie')), report };
}

/** Resident kB of this process's mappings of `file`, from /proc/self/smaps. */
export function residentKb(file: string): number {
  let total = 0;
  let inside = false;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inside = line.includes(file);
    else if (inside && line.startsWith('Rss:')) total += Number(/([0-9]+) kB/.exec(line)![1]);
  }
  return total;
}

/** Recomputes the CRC32C (checksum field read as zero) and stores it; returns bytes. */
export function rechecksum(bytes: Uint8Array): Uint8Array {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  dv.setUint32(Field.checksum, 0, true);
  dv.setUint32(Field.checksum, binding.crc32c(bytes), true);
  return bytes;
}

/**
 * Byte positions inside a trie file, read from its own header, so that a test
 * can name what it corrupts ("the entry of node n for word w") rather than an
 * offset. It trusts the file: use it on the valid fixture before mutating.
 */
export class TrieLayout {
  readonly dv: DataView;

  constructor(readonly bytes: Uint8Array) {
    this.dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  u32(at: number): number {
    return this.dv.getUint32(at, true);
  }

  setU32(at: number, v: number): void {
    this.dv.setUint32(at, v >>> 0, true);
  }

  i32(at: number): number {
    return this.dv.getInt32(at, true);
  }

  setI32(at: number, v: number): void {
    this.dv.setInt32(at, v, true);
  }

  get nodes(): number {
    return this.u32(Field.nodes);
  }

  get records(): number {
    return this.u32(Field.records);
  }

  get stringBytes(): number {
    return this.u32(Field.stringBytes);
  }

  /** Where the header stores a section's offset; its size is 8 bytes further. */
  sectionField(s: number): number {
    return Field.sections + 16 * s;
  }

  offset(s: number): number {
    return Number(this.dv.getBigUint64(this.sectionField(s), true));
  }

  /** Position of ROOT4[word] or ROOT6[word]. */
  rootSlot(family: 4 | 6, word: number): number {
    return this.offset(family === 4 ? Section.root4 : Section.root6) + 4 * word;
  }

  /** Position of the (start, DIR position) pair of node n in NODES; n == nodes is the sentinel. */
  nodeSlot(n: number): number {
    return this.offset(Section.nodes) + 8 * n;
  }

  /** First entry of node n. */
  nodeStart(n: number): number {
    return this.u32(this.nodeSlot(n));
  }

  /** Where node n's DIR block starts. */
  nodeDir(n: number): number {
    return this.u32(this.nodeSlot(n) + 4);
  }

  /** Node n's DIR shift, from the size of its block (2^(16 - s) + 1 entries). */
  nodeShift(n: number): number {
    return 16 - Math.log2(this.nodeDir(n + 1) - this.nodeDir(n) - 1);
  }

  /** The inner entry that names node n. */
  entryOf(n: number): number {
    return ~((this.nodeDir(n) << SHIFT_BITS) | this.nodeShift(n));
  }

  /** The node an inner entry names. */
  nodeOf(entry: number): number {
    const p = ~entry >>> SHIFT_BITS;
    for (let n = 0; n < this.nodes; n++) if (this.nodeDir(n) === p) return n;
    throw new Error(`entry ${entry} names no node`);
  }

  get dirCount(): number {
    return this.u32(Field.dirCount);
  }

  dirSlot(i: number): number {
    return this.offset(Section.dir) + 4 * i;
  }

  keySlot(e: number): number {
    return this.offset(Section.keys) + 2 * e;
  }

  valueSlot(e: number): number {
    return this.offset(Section.values) + 4 * e;
  }

  recordSlot(r: number): number {
    return this.offset(Section.records) + 4 * RECORD_WORDS * r;
  }

  /** Position of feed i's entry in FEEDS. */
  feedSlot(i: number): number {
    return this.offset(Section.feeds) + 4 * FEED_WORDS * i;
  }

  /** Entry index in node n that answers word w: the last key <= w. */
  entryFor(n: number, w: number): number {
    let e = this.nodeStart(n);
    const end = this.nodeStart(n + 1);
    while (e + 1 < end && this.dv.getUint16(this.keySlot(e + 1), true) <= w) e++;
    return e;
  }

  /** The node reached from a root by following `words` (the first indexes the root). */
  nodeAt(family: 4 | 6, words: number[]): number {
    let entry = this.i32(this.rootSlot(family, words[0]));
    for (let i = 1; i < words.length; i++) {
      if (entry >= 0) throw new Error(`no node at depth ${i} for ${words.join(':')}`);
      entry = this.i32(this.valueSlot(this.entryFor(this.nodeOf(entry), words[i])));
    }
    if (entry >= 0) throw new Error(`no node at depth ${words.length} for ${words.join(':')}`);
    return this.nodeOf(entry);
  }
}
