// The IP database facade: one opened trie file.
//
// The native reader maps the file and validates every byte before anything
// reads it. Single lookups then walk the mapping from JavaScript through typed
// views (a native call alone costs more than the whole walk); batch lookups
// run in C++. The views keep the mapping alive: it is unmapped only after
// this object and every view are garbage (see native/trie_wrap.cc), so a swap
// can drop a database while requests still read it.
import { IpdbError } from '../errors.js';
import { bytesToBigInt, formatIPv4, formatIPv6, mappedIPv4, parseIp } from './address.js';
import { FEED_LABELS, FEED_WORDS, FeedKind, type FeedLabel, RECORD_WORDS } from './format.js';
import { binding, type NativeInfo, type NativeTrie, Section } from './native.js';

export interface DatabaseInfo {
  path: string;
  formatVersion: number;
  /** Data version (the source's own version when it has one). */
  version: string;
  builtAt: string;
  source: string;
  size: number;
  checksum: string;
  ranges: { v4: number; v6: number };
  records: number;
  nodes: number;
  /** The feeds folded into the file, in slot order (slot = index + 1). */
  feeds: FeedInfo[];
}

export interface FeedInfo {
  name: string;
  label: FeedLabel;
  kind: 'ranges' | 'asns';
  version: string;
  /** Ranges (or ASNs) the feed contributed. */
  count: number;
  fetchedAt: string;
}

export interface LookupResult {
  ip: string;
  version: 4 | 6;
  found: boolean;
  asn: number | null;
  organization: string | null;
  range: { start: string; end: string } | null;
}

export interface OpenOptions {
  /** Verify the CRC32C of the whole file (default true). Structure is always checked. */
  verifyChecksum?: boolean;
}

const decoder = new TextDecoder('utf-8');

export class IpDatabase {
  readonly info: DatabaseInfo;

  // Views into the read-only mapping. Private: a write would fault.
  readonly #trie: NativeTrie;
  readonly #root4: Int32Array;
  readonly #root6: Int32Array;
  readonly #keys: Uint16Array;
  readonly #values: Int32Array;
  readonly #dir: Uint32Array;
  readonly #v4Starts: Uint32Array;
  readonly #v6Starts: Uint8Array;
  readonly #records: Uint32Array;
  readonly #strings: Uint8Array;
  /** Organization names decoded so far (cold paths only). */
  readonly #orgs = new Map<number, string>();
  readonly #recordCount: number;
  readonly #scratch = new Uint8Array(16);

  private constructor(file: string, trie: NativeTrie) {
    this.#trie = trie;
    const raw: NativeInfo = trie.info();
    const buffer = trie.buffer();
    const s = raw.sections;
    this.#root4 = new Int32Array(buffer, s[Section.root4].offset, 65536);
    this.#root6 = new Int32Array(buffer, s[Section.root6].offset, 65536);
    this.#keys = new Uint16Array(buffer, s[Section.keys].offset, raw.entries);
    this.#values = new Int32Array(buffer, s[Section.values].offset, raw.entries);
    this.#dir = new Uint32Array(buffer, s[Section.dir].offset, raw.dirCount);
    this.#v4Starts = new Uint32Array(buffer, s[Section.v4Starts].offset, raw.v4Ranges);
    this.#v6Starts = new Uint8Array(buffer, s[Section.v6Starts].offset, raw.v6Ranges * 16);
    this.#records = new Uint32Array(buffer, s[Section.records].offset, raw.records * RECORD_WORDS);
    this.#strings = new Uint8Array(buffer, s[Section.strings].offset, raw.stringBytes);
    this.#recordCount = raw.records;
    const text = (off: number, len: number) => decoder.decode(this.#strings.subarray(off, off + len));
    this.info = {
      path: file,
      formatVersion: raw.formatVersion,
      version: text(raw.versionOffset, raw.versionLength),
      builtAt: new Date(raw.buildTimeMs).toISOString(),
      source: text(raw.sourceOffset, raw.sourceLength),
      size: raw.size,
      checksum: raw.checksum.toString(16).padStart(8, '0'),
      ranges: { v4: raw.v4Ranges, v6: raw.v6Ranges },
      records: raw.records,
      nodes: raw.nodes,
      feeds: [],
    };
    const table = new Uint32Array(buffer, s[Section.feeds].offset, raw.feedCount * FEED_WORDS);
    for (let i = 0; i < raw.feedCount; i++) {
      const f = table.subarray(FEED_WORDS * i, FEED_WORDS * (i + 1));
      this.info.feeds.push({
        name: text(f[0], f[1]),
        version: text(f[2], f[3]),
        label: FEED_LABELS[f[4]],
        kind: f[5] === FeedKind.ranges ? 'ranges' : 'asns',
        count: f[6],
        fetchedAt: new Date(f[7] + f[8] * 2 ** 32).toISOString(),
      });
    }
  }

  /** Maps and fully validates a trie file. Throws IpdbError naming what is wrong. */
  static open(file: string, options: OpenOptions = {}): IpDatabase {
    let trie: NativeTrie;
    try {
      trie = new binding.IpTrie(file, options.verifyChecksum ?? true);
    } catch (err) {
      const e = err as Error & { code?: string };
      throw new IpdbError(e.code ?? 'ipdb_open_failed', e.message, file, { cause: err });
    }
    return new IpDatabase(file, trie);
  }

  /**
   * The entry for word w of the node that inner entry e names: the last key
   * <= w. ~e = (p << 5) | s: the node's DIR block starts at p, and bucket
   * w >> s holds the candidates (native/trie_format.h). The 5 and the mask 31
   * are SHIFT_BITS of format.ts, written as literals on this hot path.
   */
  #step(e: number, w: number): number {
    const keys = this.#keys;
    const r = ~e;
    const b = w >>> (r & 31);
    const x = (r >>> 5) + b;
    // For b > 0 the key before the bucket is a candidate too: -b >>> 31 is 1
    // exactly when b > 0.
    const before = -b >>> 31;
    let lo = this.#dir[x] - before;
    let len = this.#dir[x + 1] - lo;
    // Branch-free halving: keys[lo] <= w, and every entry from lo + len on
    // is > w. Keys and w are 16-bit, so (w - key) >> 31 is -1 exactly when
    // key > w. A compare-and-branch here mispredicts about half the time
    // (random addresses).
    while (len > 1) {
      const half = len >>> 1;
      lo += half & ~((w - keys[lo + half]) >> 31);
      len -= half;
    }
    return this.#values[lo];
  }

  /** Record index of an IPv4 address given as an unsigned 32-bit integer; 0 when not found. */
  lookup4(ip: number): number {
    const e = this.#root4[ip >>> 16];
    return e >= 0 ? e : this.#step(e, ip & 0xffff);
  }

  /**
   * Record index of an address in binary form: 4 bytes (IPv4) or 16 bytes
   * (IPv6; ::ffff:a.b.c.d goes to the IPv4 trie). This is the form
   * uWebSockets.js gives. 0 when not found or when the length is neither.
   */
  lookupBytes(a: Uint8Array): number {
    if (a.length === 4) return this.lookup4(((a[0] << 24) | (a[1] << 16) | (a[2] << 8) | a[3]) >>> 0);
    if (a.length !== 16) return 0;
    const v4 = mappedIPv4(a);
    if (v4 >= 0) return this.lookup4(v4);
    let e = this.#root6[(a[0] << 8) | a[1]];
    if (e >= 0) return e;
    // The #step walk, inlined: IPv6 lookups usually take two or three levels.
    const dir = this.#dir;
    const keys = this.#keys;
    const values = this.#values;
    for (let i = 2; i < 16; i += 2) {
      const w = (a[i] << 8) | a[i + 1];
      const r = ~e;
      const b = w >>> (r & 31);
      const x = (r >>> 5) + b;
      const before = -b >>> 31;
      let lo = dir[x] - before;
      let len = dir[x + 1] - lo;
      while (len > 1) {
        const half = len >>> 1;
        lo += half & ~((w - keys[lo + half]) >> 31);
        len -= half;
      }
      e = values[lo];
      if (e >= 0) return e;
    }
    return 0;
  }

  /** Record index for address text; -1 when the text is not an IP address. */
  lookupText(text: string): number {
    return parseIp(text, this.#scratch) === 0 ? -1 : this.lookupBytes(this.#scratch);
  }

  /** IPv4 integers in, record indices out (C++). */
  lookupBatch4(ips: Uint32Array, out = new Uint32Array(ips.length)): Uint32Array {
    this.#trie.lookupBatch4(ips, out);
    return out;
  }

  /** n × 16 address bytes in, record indices out (C++). */
  lookupBatch16(addresses: Uint8Array, out = new Uint32Array(addresses.length >>> 4)): Uint32Array {
    this.#trie.lookupBatch16(addresses, out);
    return out;
  }

  /** One lookup through the native call, for comparison with the JavaScript walk. */
  lookupNative(a: Uint8Array): number {
    return this.#trie.lookup(a);
  }

  get recordCount(): number {
    return this.#recordCount;
  }

  asn(record: number): number {
    return this.#records[RECORD_WORDS * record];
  }

  organization(record: number): string {
    let s = this.#orgs.get(record);
    if (s === undefined) {
      const off = this.#records[RECORD_WORDS * record + 1];
      s = decoder.decode(this.#strings.subarray(off, off + this.#records[RECORD_WORDS * record + 2]));
      this.#orgs.set(record, s);
    }
    return s;
  }

  /** The range feed whose ranges hold the record's addresses, or null. */
  rangeFeed(record: number): FeedInfo | null {
    const slot = this.#records[RECORD_WORDS * record + 3] & 0xff;
    return slot === 0 ? null : this.info.feeds[slot - 1];
  }

  /** The ASN feed that lists the record's ASN, or null. */
  asnFeed(record: number): FeedInfo | null {
    const slot = (this.#records[RECORD_WORDS * record + 3] >>> 8) & 0xff;
    return slot === 0 ? null : this.info.feeds[slot - 1];
  }

  /**
   * Every range of a family with its record, in address order: the ranges
   * tile the family (unannounced space included, with record 0). For
   * rebuilding a database from this one (files.ts). Cold path.
   */
  *ranges(family: 4 | 6): Generator<{ start: bigint; end: bigint; record: number }> {
    if (family === 4) {
      const starts = this.#v4Starts;
      for (let i = 0; i < starts.length; i++) {
        const end = i + 1 < starts.length ? BigInt(starts[i + 1]) - 1n : 0xffffffffn;
        yield { start: BigInt(starts[i]), end, record: this.lookup4(starts[i]) };
      }
      return;
    }
    const starts = this.#v6Starts;
    const n = starts.length >>> 4;
    const big = (i: number) => bytesToBigInt(starts.subarray(16 * i, 16 * i + 16));
    let start = big(0);
    for (let i = 0; i < n; i++) {
      const next = i + 1 < n ? big(i + 1) : 1n << 128n;
      yield { start, end: next - 1n, record: this.lookupBytes(starts.subarray(16 * i, 16 * i + 16)) };
      start = next;
    }
  }

  /**
   * A copy of a family's range starts as the file holds them, in address
   * order: IPv4 as integers, IPv6 as 16 big-endian bytes each. The ranges
   * tile the family from address 0; a start's record is `lookup4(start)` or
   * `lookupBytes` of its bytes. For comparing two databases without a BigInt
   * per range (candidate.ts). Cold path.
   */
  rangeStarts(family: 4): Uint32Array;
  rangeStarts(family: 6): Uint8Array;
  rangeStarts(family: 4 | 6): Uint32Array | Uint8Array {
    return family === 4 ? this.#v4Starts.slice() : this.#v6Starts.slice();
  }

  /** The range holding an address (16 bytes), as text. Cold path. */
  rangeOf(a: Uint8Array): { start: string; end: string } {
    const v4 = mappedIPv4(a);
    if (v4 >= 0) {
      const starts = this.#v4Starts;
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (starts[mid] <= v4) lo = mid;
        else hi = mid - 1;
      }
      const end = lo + 1 < starts.length ? starts[lo + 1] - 1 : 0xffffffff;
      return { start: formatIPv4(starts[lo]), end: formatIPv4(end) };
    }
    const starts = this.#v6Starts;
    const n = starts.length >>> 4;
    const cmp = (i: number) => {
      for (let k = 0; k < 16; k++) {
        const d = starts[16 * i + k] - a[k];
        if (d !== 0) return d;
      }
      return 0;
    };
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (cmp(mid) <= 0) lo = mid;
      else hi = mid - 1;
    }
    const end = new Uint8Array(16);
    if (lo + 1 < n) {
      end.set(starts.subarray(16 * (lo + 1), 16 * (lo + 2)));
      for (let k = 15; k >= 0; k--) {
        if (end[k]-- !== 0) break;
      }
    } else {
      end.fill(0xff);
    }
    return { start: formatIPv6(starts, 16 * lo), end: formatIPv6(end) };
  }

  /** The full answer for address text; null when the text is not an address. */
  describe(text: string): LookupResult | null {
    const a = new Uint8Array(16);
    const version = parseIp(text, a);
    if (version === 0) return null;
    const record = this.lookupBytes(a);
    // Feed space outside the ASN data has a record of ASN 0: not found.
    const found = record !== 0 && this.asn(record) !== 0;
    return {
      ip: text,
      version: mappedIPv4(a) >= 0 ? 4 : version,
      found,
      asn: found ? this.asn(record) : null,
      organization: found ? this.organization(record) : null,
      range: found ? this.rangeOf(a) : null,
    };
  }

  /** Drops this object's hold on the mapping; views still in use keep it until collected. */
  close(): void {
    this.#trie.close();
  }
}
