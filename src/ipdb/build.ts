// Compiling parsed source rows into a trie file (layout: native/trie_format.h).
//
// Overlaps. Sources can contain ranges that overlap (the ip-location-db IPv4
// file has one such pair: two DoD networks). The rule, deterministic and
// independent of row order: every address belongs to the *narrowest* row that
// covers it; between rows of equal width, the one that comes first in the
// sources wins. A wider row keeps the parts of itself nothing narrower covers.
import { binding } from './native.js';
import { DIR_SINGLE_BUCKET_KEYS, ENDIAN_MARKER, FEED_LABELS, FEED_WORDS, type FeedLabel, FeedKind, Field, FORMAT_VERSION, HEADER_SIZE, MAGIC, MAX_FEEDS, MAX_SHIFT, RECORD_WORDS, ROOT_SLOTS, SECTION_COUNT, SHIFT_BITS } from './format.js';
import type { ParsedSources, Row } from './sources.js';


/** A range feed or ASN feed to fold into the file (native/trie_format.h, Feeds). */
export interface FeedInput {
  name: string;
  label: FeedLabel;
  version: string;
  /** When the feed's data was fetched (ms since the epoch). */
  fetchedAt: number;
  /** Range feeds: the covered ranges, inclusive. */
  ranges?: { v4: [bigint, bigint][]; v6: [bigint, bigint][] };
  /**
   * Range feeds with a memory (feeds/recent.ts): single addresses the feed's
   * data held in its last keepDays and the newest download lacks. They spare
   * BuildOptions.carrierAsns: an exit that left a subscriber line's address
   * days ago may have handed it to the next subscriber.
   */
  remembered?: { v4: [bigint, bigint][]; v6: [bigint, bigint][] };
  /** ASN feeds: the listed ASNs. */
  asns?: number[];
}

export interface BuildOptions {
  sourceName: string;
  dataVersion: string;
  buildTime?: Date;
  onProgress?: (fraction: number) => void;
  /** Feeds, in priority order: between equally narrow ranges the earlier feed wins. */
  feeds?: FeedInput[];
  /**
   * ASNs that lists derived from ASNs must leave alone (carriers, CDN and
   * transit networks): no ASN feed lists them, and no `hosting` range feed
   * (aggregates built from ASN lists) applies to their addresses. Feeds of a
   * publisher's own ranges (clouds, Tor, VPN servers, crawlers) still do.
   */
  excludeAsns?: readonly number[];
  /**
   * The carriers (quality/lists.ts carrierAsns): the built-in list and the
   * organizations named as carriers. `hosting` range feeds (beyond
   * excludeAsns) and the feeds' memories (FeedInput.remembered) leave them
   * alone: an aggregate of data-centre ranges compiled from ASN lists is no
   * better than those lists there, and a subscriber line's address moves on.
   * ASN feeds and the other labels' current data still apply.
   */
  carrierAsns?: readonly number[];
}

export interface BuildReport {
  v4Rows: number;
  v6Rows: number;
  /** Ranges in the file, unannounced gaps included. */
  v4Ranges: number;
  v6Ranges: number;
  records: number;
  nodes: number;
  entries: number;
  overlapsResolved: number;
  size: number;
  /** Per feed: ranges or ASNs it contributed. */
  feeds: { name: string; count: number }[];
}

interface Tiled {
  /** First address of every range; ranges tile the family from address 0. */
  starts: bigint[];
  /** Record of every range; 0 for unannounced space. */
  recs: number[];
  overlaps: number;
}

/** A row of a tiling: [start, end] owns `value` unless a row of lower rank, or a narrower one, covers part of it. */
interface Span<T> {
  start: bigint;
  end: bigint;
  /** Decides before width: relay ranges (rank 0) win over any feed range they overlap. */
  rank: number;
  /** Tie-break between rows of equal rank and width: the lower wins. */
  order: number;
  value: T;
}

/** Segments of a family: segment i runs from starts[i] to starts[i + 1] - 1 with values[i] (null: no row). */
interface Segments<T> {
  starts: bigint[];
  values: (T | null)[];
  overlaps: number;
}

/** Distinct (asn, organization, feeds) combinations; record 0 is "no data". */
class Records {
  readonly asns: number[] = [0];
  readonly orgs: string[] = [''];
  readonly feeds: number[] = [0];
  readonly #index = new Map<string, number>();

  of(asn: number, org: string, feeds: number): number {
    const key = `${asn}\u0000${feeds}\u0000${org}`;
    let i = this.#index.get(key);
    if (i === undefined) {
      i = this.asns.length;
      this.asns.push(asn);
      this.orgs.push(org);
      this.feeds.push(feeds);
      this.#index.set(key, i);
    }
    return i;
  }
}

/** Rows by rank, then width, narrowest first (ties: lowest order): the owner of an address is the first covering row. */
function narrower<T>(a: Span<T>, b: Span<T>): boolean {
  if (a.rank !== b.rank) return a.rank < b.rank;
  const wa = a.end - a.start;
  const wb = b.end - b.start;
  return wa < wb || (wa === wb && a.order < b.order);
}

/** A binary min-heap of rows, narrowest on top. */
class RowHeap<T> {
  readonly #rows: Span<T>[] = [];

  get top(): Span<T> | undefined {
    return this.#rows[0];
  }

  push(row: Span<T>): void {
    const a = this.#rows;
    a.push(row);
    for (let i = a.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!narrower(a[i], a[p])) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }

  pop(): void {
    const a = this.#rows;
    const last = a.pop()!;
    if (a.length === 0) return;
    a[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && narrower(a[l], a[m])) m = l;
      if (r < a.length && narrower(a[r], a[m])) m = r;
      if (m === i) break;
      [a[i], a[m]] = [a[m], a[i]];
      i = m;
    }
  }
}

/**
 * The segments of [0, max] that rows cover, each with the value of its
 * narrowest row; uncovered space is a segment with null. Adjacent segments
 * of one value (by identity) are merged. A sweep over the rows' starts with
 * the covering rows in a heap: O(n log n) however deeply rows nest (feed
 * ranges nest by the thousand inside a cloud's large prefixes).
 */
function segments<T>(rows: Span<T>[], max: bigint): Segments<T> {
  rows.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.order - b.order));
  const starts: bigint[] = [];
  const values: (T | null)[] = [];
  const heap = new RowHeap<T>();
  let overlaps = 0;
  let reach = -1n; // the furthest end of the rows seen so far
  let i = 0;
  let at = 0n;
  for (;;) {
    for (; i < rows.length && rows[i].start <= at; i++) {
      if (rows[i].start <= reach) overlaps++;
      if (rows[i].end > reach) reach = rows[i].end;
      heap.push(rows[i]);
    }
    while (heap.top !== undefined && heap.top.end < at) heap.pop();
    const top = heap.top;
    const value = top?.value ?? null;
    if (starts.length === 0 || values[values.length - 1] !== value) {
      starts.push(at);
      values.push(value);
    }
    // The owner changes only where a row starts or the owner ends.
    let next = i < rows.length ? rows[i].start : max + 1n;
    if (top !== undefined && top.end + 1n < next) next = top.end + 1n;
    if (next > max) break;
    at = next;
  }
  return { starts, values, overlaps };
}

/**
 * One family's ranges and records: the ASN rows' segments with the feeds'
 * segments laid over them. Every boundary of any is a boundary of the
 * result; a segment's record is (the ASN row's asn and organization, the
 * range feed covering it, the ASN feed listing that asn). Where the
 * narrowest feed does not apply to the row's ASN (a `hosting` aggregate on a
 * carrier), the narrowest of the feeds that apply everywhere (`under`) does,
 * so a spared range never hides a cloud's or a VPN's under it.
 */
function tile(base: Segments<Row>, over: Segments<number>, under: Segments<number>, max: bigint, records: Records, asnFeedOf: (asn: number) => number, appliesTo: (slot: number, asn: number) => boolean): Tiled {
  const starts: bigint[] = [];
  const recs: number[] = [];
  let i = 0;
  let j = 0;
  let k = 0;
  let at = 0n;
  for (;;) {
    const row = base.values[i];
    const top = over.values[j] ?? 0;
    const feed = top !== 0 && row !== null && !appliesTo(top, row.asn) ? (under.values[k] ?? 0) : top;
    const rec = row === null && feed === 0 ? 0 : records.of(row?.asn ?? 0, row?.org ?? '', feed | (row === null ? 0 : asnFeedOf(row.asn) << 8));
    if (recs.length === 0 || recs[recs.length - 1] !== rec) {
      starts.push(at);
      recs.push(rec);
    }
    const nextBase = i + 1 < base.starts.length ? base.starts[i + 1] : max + 1n;
    const nextFeed = j + 1 < over.starts.length ? over.starts[j + 1] : max + 1n;
    const nextUnder = k + 1 < under.starts.length ? under.starts[k + 1] : max + 1n;
    at = nextBase < nextFeed ? nextBase : nextFeed;
    if (nextUnder < at) at = nextUnder;
    if (at > max) break;
    if (at === nextBase) i++;
    if (at === nextFeed) j++;
    if (at === nextUnder) k++;
  }
  return { starts, recs, overlaps: base.overlaps };
}

interface NodeRuns {
  keys: number[];
  vals: number[];
}

// The trie over one family, as 16-bit words (see trie_format.h). Children are
// numbered after their parent (pre-order), which the reader relies on. Inner
// entries hold ~id (the node number) until buildDatabase knows where each
// node's DIR block lies and rewrites them.
class TrieBuilder {
  readonly nodes: NodeRuns[] = [];

  family(tiled: Tiled, wordsPerAddress: number): Int32Array {
    const n = tiled.starts.length;
    const W = wordsPerAddress;
    const words = new Uint16Array(n * W);
    for (let i = 0; i < n; i++) {
      let v = tiled.starts[i];
      for (let k = W - 1; k >= 0; k--) {
        words[i * W + k] = Number(v & 0xffffn);
        v >>= 16n;
      }
    }
    const recs = tiled.recs;
    // Range 0 starts at address 0, so the root block starts with its record.
    const runs = this.#runs(words, recs, W, 0, 1, n, recs[0]);
    const root = new Int32Array(ROOT_SLOTS);
    for (let r = 0; r < runs.keys.length; r++) {
      const end = r + 1 < runs.keys.length ? runs.keys[r + 1] : ROOT_SLOTS;
      root.fill(runs.vals[r], runs.keys[r], end);
    }
    return root;
  }

  // Runs of the block at depth d whose ranges [lo, hi) start strictly inside it;
  // `first` is the record at the block's first address.
  #runs(words: Uint16Array, recs: number[], W: number, d: number, lo: number, hi: number, first: number): NodeRuns {
    const keys: number[] = [0];
    const vals: number[] = [first];
    const push = (k: number, e: number) => {
      const last = keys.length - 1;
      if (keys[last] === k) {
        vals[last] = e;
        if (last > 0 && e >= 0 && vals[last - 1] === e) {
          keys.pop();
          vals.pop();
        }
      } else if (!(e >= 0 && vals[last] === e)) {
        keys.push(k);
        vals.push(e);
      }
    };
    let cur = first;
    let i = lo;
    while (i < hi) {
      const k = words[i * W + d];
      let j = i + 1;
      while (j < hi && words[j * W + d] === k) j++;
      // Does range i start exactly at the sub-block's first address?
      let atStart = true;
      for (let t = d + 1; t < W; t++) {
        if (words[i * W + t] !== 0) {
          atStart = false;
          break;
        }
      }
      const recAtStart = atStart ? recs[i] : cur;
      const inner = atStart ? i + 1 : i;
      if (inner === j) {
        push(k, recAtStart);
      } else {
        const id = this.nodes.length;
        this.nodes.push({ keys: [], vals: [] });
        this.nodes[id] = this.#runs(words, recs, W, d + 1, inner, j, recAtStart);
        push(k, ~id);
      }
      cur = recs[j - 1];
      if (k < 0xffff && (j === hi || words[j * W + d] !== k + 1)) push(k + 1, cur);
      i = j;
    }
    return { keys, vals };
  }
}

const align8 = (n: number) => (n + 7) & ~7;

// The DIR shift of a node of `keys` keys: about two keys per bucket, one
// bucket for small nodes (trie_format.h).
function shiftFor(keys: number): number {
  if (keys <= DIR_SINGLE_BUCKET_KEYS) return MAX_SHIFT;
  let buckets = 1;
  while (buckets * 2 < keys && buckets < 1 << 16) buckets *= 2;
  return MAX_SHIFT - Math.log2(buckets);
}

/** The ASN rows' segments of one family: where rows overlap, the narrowest row's. */
function rowSegments(rows: Row[], max: bigint): Segments<Row> {
  return segments(rows.map((r) => ({ start: r.start, end: r.end, rank: 0, order: r.order, value: r })), max);
}

/** Whether a row of `base` (rowSegments) within [start, end] belongs to one of `asns`. */
function touches(base: Segments<Row>, start: bigint, end: bigint, asns: ReadonlySet<number>): boolean {
  // The segment holding `start` is the last one starting at or before it.
  let lo = 0;
  let hi = base.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (base.starts[mid] <= start) lo = mid;
    else hi = mid - 1;
  }
  for (let k = lo; k < base.starts.length && base.starts[k] <= end; k++) {
    const row = base.values[k];
    if (row !== null && asns.has(row.asn)) return true;
  }
  return false;
}

/**
 * The feeds laid over the ASN ranges: each range feed's spans (slot = 1 +
 * index in `feeds`; the earlier feed wins a tie, Span.order; relays rank
 * first), the memories' spans apart (they are dropped where they touch a
 * carrier, before the tiling: a span that lost there would hide the feeds
 * under it), the carriers, the ASN feed slot of an ASN, and whether a range
 * feed applies to an ASN (hosting aggregates spare `excludeAsns` and `carrierAsns`).
 */
function overlay(feeds: readonly FeedInput[], options: BuildOptions) {
  const excluded = new Set(options.excludeAsns ?? []);
  const spans = { v4: [] as Span<number>[], v6: [] as Span<number>[] };
  const remembered = { v4: [] as Span<number>[], v6: [] as Span<number>[] };
  const asnSlot = new Map<number, number>();
  feeds.forEach((f, i) => {
    const rank = f.label === 'relay' ? 0 : 1;
    for (const family of ['v4', 'v6'] as const) {
      for (const [start, end] of f.ranges?.[family] ?? []) spans[family].push({ start, end, rank, order: i, value: i + 1 });
      for (const [start, end] of f.remembered?.[family] ?? []) remembered[family].push({ start, end, rank, order: i, value: i + 1 });
    }
    for (const asn of f.asns ?? []) if (!asnSlot.has(asn) && !excluded.has(asn)) asnSlot.set(asn, i + 1);
  });
  const carriers = new Set(options.carrierAsns ?? []);
  const spared = new Set([...excluded, ...carriers]);
  /** Whether a feed's ranges apply to every ASN (all but `hosting` aggregates). */
  const everywhere = (slot: number) => feeds[slot - 1].label !== 'hosting';
  return {
    spans,
    remembered,
    carriers,
    asnFeedOf: (asn: number) => asnSlot.get(asn) ?? 0,
    everywhere,
    appliesTo: (slot: number, asn: number) => everywhere(slot) || !spared.has(asn),
  };
}

/**
 * Where each trie node's DIR block lies (trie_format.h): its shift and first
 * slot, the totals, and `entryOf`, which turns the builder's ~id for a node
 * into the entry that names it.
 */
function layoutNodes(trie: TrieBuilder) {
  const count = trie.nodes.length;
  const shifts = new Uint8Array(count);
  const dirAt = new Uint32Array(count + 1);
  let entries = 0;
  let dirSlots = 0;
  for (let n = 0; n < count; n++) {
    const keys = trie.nodes[n].keys.length;
    entries += keys;
    shifts[n] = shiftFor(keys);
    dirAt[n] = dirSlots;
    dirSlots += (1 << (16 - shifts[n])) + 1;
  }
  dirAt[count] = dirSlots;
  const entryOf = (e: number) => (e >= 0 ? e : ~((dirAt[~e] << SHIFT_BITS) | shifts[~e]));
  return { count, shifts, dirAt, entries, dirSlots, entryOf };
}

/** The string section: each distinct string once, in the order first asked for. */
class StringTable {
  readonly parts: Uint8Array[] = [];
  bytes = 0;
  readonly #at = new Map<string, [number, number]>();
  readonly #encoder = new TextEncoder();

  /** [offset, length] of `s` in the section. */
  intern(s: string): [number, number] {
    let at = this.#at.get(s);
    if (!at) {
      const b = this.#encoder.encode(s);
      at = [this.bytes, b.length];
      this.parts.push(b);
      this.bytes += b.length;
      this.#at.set(s, at);
    }
    return at;
  }
}

/** RECORD_WORDS words a record: ASN, organization offset and length, feed slots. Record 0 is "not found". */
function recordTable(records: Records, strings: StringTable): Uint32Array {
  const table = new Uint32Array(records.asns.length * RECORD_WORDS);
  for (let r = 0; r < records.asns.length; r++) {
    const [off, len] = r === 0 ? [0, 0] : strings.intern(records.orgs[r]);
    table.set([records.asns[r], off, len, records.feeds[r]], RECORD_WORDS * r);
  }
  return table;
}

/** FEED_WORDS words a feed: name, version, label, kind, count, fetch time (lo, hi), reserved. */
function feedTable(feeds: readonly FeedInput[], strings: StringTable): Uint32Array {
  const table = new Uint32Array(feeds.length * FEED_WORDS);
  feeds.forEach((f, i) => {
    const count = f.ranges ? f.ranges.v4.length + f.ranges.v6.length + (f.remembered ? f.remembered.v4.length + f.remembered.v6.length : 0) : (f.asns?.length ?? 0);
    table.set(
      [...strings.intern(f.name), ...strings.intern(f.version), FEED_LABELS.indexOf(f.label), f.ranges ? FeedKind.ranges : FeedKind.asns, count, f.fetchedAt % 2 ** 32, Math.floor(f.fetchedAt / 2 ** 32)],
      FEED_WORDS * i,
    );
  });
  return table;
}

/** The sections after the header, each 8-byte aligned, in SECTION order; and the file size. */
function sectionOffsets(sizes: readonly number[]): { offsets: number[]; size: number } {
  const offsets: number[] = [];
  let size = HEADER_SIZE;
  for (const s of sizes) {
    size = align8(size);
    offsets.push(size);
    size += s;
  }
  return { offsets, size };
}

/** The node table, keys, values and DIR blocks of every node, in node order. */
function writeNodes(buf: ArrayBuffer, offsets: readonly number[], trie: TrieBuilder, layout: ReturnType<typeof layoutNodes>): void {
  const { count, shifts, dirAt, entries, dirSlots, entryOf } = layout;
  const nodes = new Uint32Array(buf, offsets[2], 2 * (count + 1));
  const keys = new Uint16Array(buf, offsets[3], entries);
  const vals = new Int32Array(buf, offsets[4], entries);
  const dir = new Uint32Array(buf, offsets[5], dirSlots);
  let e = 0;
  for (let n = 0; n < count; n++) {
    const node = trie.nodes[n];
    const first = e;
    nodes[2 * n] = e;
    nodes[2 * n + 1] = dirAt[n];
    for (let k = 0; k < node.keys.length; k++, e++) {
      keys[e] = node.keys[k];
      vals[e] = entryOf(node.vals[k]);
    }
    // DIR[p + b]: the first entry whose key is >= b << s.
    const s = shifts[n];
    const buckets = 1 << (16 - s);
    let k = 0;
    for (let b = 0; b <= buckets; b++) {
      while (k < node.keys.length && node.keys[k] < b << s) k++;
      dir[dirAt[n] + b] = first + k;
    }
  }
  nodes[2 * count] = e;
  nodes[2 * count + 1] = dirSlots;
}

/** The range start tables: IPv4 as u32, IPv6 as 16 big-endian bytes. */
function writeRangeStarts(buf: ArrayBuffer, offsets: readonly number[], v4: Tiled, v6: Tiled): void {
  const v4Starts = new Uint32Array(buf, offsets[6], v4.starts.length);
  for (let i = 0; i < v4.starts.length; i++) v4Starts[i] = Number(v4.starts[i]);
  const bytes = new Uint8Array(buf);
  for (let i = 0; i < v6.starts.length; i++) {
    let v = v6.starts[i];
    const at = offsets[7] + 16 * i;
    for (let k = 15; k >= 0; k--) {
      bytes[at + k] = Number(v & 0xffn);
      v >>= 8n;
    }
  }
}

/** The header (format.ts Field): magic, version, sizes, the u32 `counts` and the section table. The checksum comes last. */
function writeHeader(buf: ArrayBuffer, h: { size: number; buildTime: number; counts: [number, number][]; offsets: readonly number[]; sizes: readonly number[] }): void {
  const dv = new DataView(buf);
  new Uint8Array(buf).set(new TextEncoder().encode(MAGIC), Field.magic);
  dv.setUint32(Field.version, FORMAT_VERSION, true);
  dv.setUint32(Field.headerSize, HEADER_SIZE, true);
  dv.setUint32(Field.endian, ENDIAN_MARKER, true);
  dv.setBigUint64(Field.fileSize, BigInt(h.size), true);
  dv.setBigUint64(Field.buildTime, BigInt(h.buildTime), true);
  for (const [field, value] of h.counts) dv.setUint32(field, value, true);
  for (let s = 0; s < SECTION_COUNT; s++) {
    dv.setBigUint64(Field.sections + 16 * s, BigInt(h.offsets[s]), true);
    dv.setBigUint64(Field.sections + 16 * s + 8, BigInt(h.sizes[s]), true);
  }
}

/** Compiles parsed sources into the bytes of a trie file. */
export function buildDatabase(parsed: ParsedSources, options: BuildOptions): { bytes: Uint8Array; report: BuildReport } {
  const feeds = options.feeds ?? [];
  // Feeds come from the registry (feeds/registry.ts), far fewer than MAX_FEEDS: a caller's bug, no input reaches it.
  if (feeds.length > MAX_FEEDS) throw new Error(`at most ${MAX_FEEDS} feeds fit in a database file, got ${feeds.length}`);
  const { spans, remembered, carriers, asnFeedOf, everywhere, appliesTo } = overlay(feeds, options);
  const records = new Records();
  const family = (rows: Row[], key: 'v4' | 'v6', max: bigint) => {
    const base = rowSegments(rows, max);
    const laid = [...spans[key], ...remembered[key].filter((s) => !touches(base, s.start, s.end, carriers))];
    const over = segments(laid, max);
    // Without a hosting aggregate every span applies everywhere: `under` is `over`, not a second sweep.
    const applying = laid.filter((s) => everywhere(s.value));
    return tile(base, over, applying.length === laid.length ? over : segments(applying, max), max, records, asnFeedOf, appliesTo);
  };
  const v4 = family(parsed.v4, 'v4', 0xffffffffn);
  options.onProgress?.(0.3);
  const v6 = family(parsed.v6, 'v6', (1n << 128n) - 1n);
  options.onProgress?.(0.5);
  const trie = new TrieBuilder();
  const roots = [trie.family(v4, 2), trie.family(v6, 8)];
  options.onProgress?.(0.8);
  const layout = layoutNodes(trie);

  // Organizations first, then the source name and version, then feed names and versions.
  const strings = new StringTable();
  const recordWords = recordTable(records, strings);
  const source = strings.intern(options.sourceName);
  const version = strings.intern(options.dataVersion);
  const feedWords = feedTable(feeds, strings);

  // In SECTION order: roots, node table, keys, values, DIR, range starts, records, strings, feeds.
  const sizes = [ROOT_SLOTS * 4, ROOT_SLOTS * 4, (layout.count + 1) * 8, layout.entries * 2, layout.entries * 4, layout.dirSlots * 4];
  sizes.push(v4.starts.length * 4, v6.starts.length * 16, recordWords.byteLength, strings.bytes, feedWords.byteLength);
  const { offsets, size } = sectionOffsets(sizes);
  const buf = new ArrayBuffer(size);
  const bytes = new Uint8Array(buf);
  writeHeader(buf, {
    size,
    buildTime: (options.buildTime ?? new Date()).getTime(),
    counts: [
      [Field.v4Ranges, v4.starts.length],
      [Field.v6Ranges, v6.starts.length],
      [Field.nodes, layout.count],
      [Field.entries, layout.entries],
      [Field.records, records.asns.length],
      [Field.stringBytes, strings.bytes],
      [Field.sourceOff, source[0]],
      [Field.sourceLen, source[1]],
      [Field.versionOff, version[0]],
      [Field.versionLen, version[1]],
      [Field.dirCount, layout.dirSlots],
      [Field.feedCount, feeds.length],
    ],
    offsets,
    sizes,
  });
  roots.forEach((root, r) => {
    const out = new Int32Array(buf, offsets[r], ROOT_SLOTS);
    for (let i = 0; i < ROOT_SLOTS; i++) out[i] = layout.entryOf(root[i]);
  });
  writeNodes(buf, offsets, trie, layout);
  writeRangeStarts(buf, offsets, v4, v6);
  new Uint32Array(buf, offsets[8], recordWords.length).set(recordWords);
  let at = offsets[9];
  for (const part of strings.parts) {
    bytes.set(part, at);
    at += part.length;
  }
  new Uint32Array(buf, offsets[10], feedWords.length).set(feedWords);
  new DataView(buf).setUint32(Field.checksum, binding.crc32c(bytes), true);
  options.onProgress?.(1);

  return {
    bytes,
    report: {
      v4Rows: parsed.v4.length,
      v6Rows: parsed.v6.length,
      v4Ranges: v4.starts.length,
      v6Ranges: v6.starts.length,
      records: records.asns.length,
      nodes: layout.count,
      entries: layout.entries,
      overlapsResolved: v4.overlaps + v6.overlaps,
      size,
      feeds: feeds.map((f, i) => ({ name: f.name, count: feedWords[FEED_WORDS * i + 6] })),
    },
  };
}
