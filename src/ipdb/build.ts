// Compiling parsed source rows into a trie file (layout: native/trie_format.h).
//
// Overlaps. Sources can contain ranges that overlap (the ip-location-db IPv4
// file has one such pair: two DoD networks). The rule, deterministic and
// independent of row order: every address belongs to the *narrowest* row that
// covers it; between rows of equal width, the one that comes first in the
// sources wins. A wider row keeps the parts of itself nothing narrower covers.
import { binding } from './native.js';
import { DIR_SINGLE_BUCKET_KEYS, ENDIAN_MARKER, Field, FORMAT_VERSION, HEADER_SIZE, MAGIC, MAX_SHIFT, ROOT_SLOTS, SECTION_COUNT, SHIFT_BITS } from './format.js';
import type { ParsedSources, Row } from './sources.js';

export interface BuildOptions {
  sourceName: string;
  dataVersion: string;
  buildTime?: Date;
  onProgress?: (fraction: number) => void;
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
}

interface Tiled {
  /** First address of every range; ranges tile the family from address 0. */
  starts: bigint[];
  /** Record of every range; 0 for unannounced space. */
  recs: number[];
  overlaps: number;
}

class Records {
  readonly asns: number[] = [0];
  readonly orgs: string[] = [''];
  readonly #index = new Map<string, number>();

  of(asn: number, org: string): number {
    const key = `${asn}\u0000${org}`;
    let i = this.#index.get(key);
    if (i === undefined) {
      i = this.asns.length;
      this.asns.push(asn);
      this.orgs.push(org);
      this.#index.set(key, i);
    }
    return i;
  }
}

// Elementary segments of a cluster of overlapping rows, each owned by the
// narrowest covering row (ties: lowest order).
function resolveCluster(cluster: Row[], emit: (start: bigint, end: bigint, row: Row) => void): void {
  const points = new Set<bigint>();
  for (const r of cluster) {
    points.add(r.start);
    points.add(r.end + 1n);
  }
  const sorted = [...points].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (let k = 0; k + 1 < sorted.length; k++) {
    const lo = sorted[k];
    const hi = sorted[k + 1] - 1n;
    let best: Row | undefined;
    for (const r of cluster) {
      if (r.start > lo || r.end < hi) continue;
      if (!best) {
        best = r;
        continue;
      }
      const w = r.end - r.start;
      const bw = best.end - best.start;
      if (w < bw || (w === bw && r.order < best.order)) best = r;
    }
    if (best) emit(lo, hi, best);
  }
}

function tile(rows: Row[], max: bigint, records: Records): Tiled {
  rows.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.order - b.order));
  const starts: bigint[] = [];
  const recs: number[] = [];
  let next = 0n; // first address not yet tiled
  const emit = (start: bigint, end: bigint, row: Row) => {
    if (start > next) {
      starts.push(next);
      recs.push(0);
    }
    const rec = records.of(row.asn, row.org);
    if (recs.length > 0 && recs[recs.length - 1] === rec && start === next) {
      // adjacent ranges of one record merge
    } else {
      starts.push(start);
      recs.push(rec);
    }
    next = end + 1n;
  };
  let overlaps = 0;
  let i = 0;
  while (i < rows.length) {
    let j = i + 1;
    let clusterEnd = rows[i].end;
    while (j < rows.length && rows[j].start <= clusterEnd) {
      if (rows[j].end > clusterEnd) clusterEnd = rows[j].end;
      j++;
    }
    if (j === i + 1) {
      emit(rows[i].start, rows[i].end, rows[i]);
    } else {
      overlaps += j - i - 1;
      resolveCluster(rows.slice(i, j), emit);
    }
    i = j;
  }
  if (next <= max) {
    starts.push(next);
    recs.push(0);
  }
  if (starts.length === 0) {
    starts.push(0n);
    recs.push(0);
  }
  return { starts, recs, overlaps };
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

/** Compiles parsed sources into the bytes of a trie file. */
export function buildDatabase(parsed: ParsedSources, options: BuildOptions): { bytes: Uint8Array; report: BuildReport } {
  const records = new Records();
  const v4 = tile(parsed.v4, 0xffffffffn, records);
  options.onProgress?.(0.3);
  const v6 = tile(parsed.v6, (1n << 128n) - 1n, records);
  options.onProgress?.(0.5);
  const trie = new TrieBuilder();
  const root4 = trie.family(v4, 2);
  const root6 = trie.family(v6, 8);
  options.onProgress?.(0.8);

  // Where each node's DIR block lies, and the entry that names the node.
  const nodeCount = trie.nodes.length;
  const shifts = new Uint8Array(nodeCount);
  const dirAt = new Uint32Array(nodeCount + 1);
  let entryCount = 0;
  let dirCount = 0;
  for (let n = 0; n < nodeCount; n++) {
    const keys = trie.nodes[n].keys.length;
    entryCount += keys;
    shifts[n] = shiftFor(keys);
    dirAt[n] = dirCount;
    dirCount += (1 << (16 - shifts[n])) + 1;
  }
  dirAt[nodeCount] = dirCount;
  const entryOf = (e: number) => (e >= 0 ? e : ~((dirAt[~e] << SHIFT_BITS) | shifts[~e]));

  // Strings: each distinct organization once, then the source name and version.
  const encoder = new TextEncoder();
  const stringParts: Uint8Array[] = [];
  const stringAt = new Map<string, [number, number]>();
  let stringBytes = 0;
  const intern = (s: string): [number, number] => {
    let at = stringAt.get(s);
    if (!at) {
      const b = encoder.encode(s);
      at = [stringBytes, b.length];
      stringParts.push(b);
      stringBytes += b.length;
      stringAt.set(s, at);
    }
    return at;
  };
  const recordTable = new Uint32Array(records.asns.length * 3);
  for (let r = 0; r < records.asns.length; r++) {
    const [off, len] = r === 0 ? [0, 0] : intern(records.orgs[r]);
    recordTable[3 * r] = records.asns[r];
    recordTable[3 * r + 1] = off;
    recordTable[3 * r + 2] = len;
  }
  const source = intern(options.sourceName);
  const version = intern(options.dataVersion);

  const sizes = [
    ROOT_SLOTS * 4,
    ROOT_SLOTS * 4,
    (nodeCount + 1) * 8,
    entryCount * 2,
    entryCount * 4,
    dirCount * 4,
    v4.starts.length * 4,
    v6.starts.length * 16,
    recordTable.byteLength,
    stringBytes,
  ];
  const offsets: number[] = [];
  let size = HEADER_SIZE;
  for (const s of sizes) {
    size = align8(size);
    offsets.push(size);
    size += s;
  }
  const buf = new ArrayBuffer(size);
  const bytes = new Uint8Array(buf);
  const dv = new DataView(buf);
  const u32 = (at: number, v: number) => dv.setUint32(at, v, true);
  const u64 = (at: number, v: number) => dv.setBigUint64(at, BigInt(v), true);

  bytes.set(encoder.encode(MAGIC), Field.magic);
  u32(Field.version, FORMAT_VERSION);
  u32(Field.headerSize, HEADER_SIZE);
  u32(Field.endian, ENDIAN_MARKER);
  u64(Field.fileSize, size);
  u64(Field.buildTime, (options.buildTime ?? new Date()).getTime());
  u32(Field.v4Ranges, v4.starts.length);
  u32(Field.v6Ranges, v6.starts.length);
  u32(Field.nodes, nodeCount);
  u32(Field.entries, entryCount);
  u32(Field.records, records.asns.length);
  u32(Field.stringBytes, stringBytes);
  u32(Field.sourceOff, source[0]);
  u32(Field.sourceLen, source[1]);
  u32(Field.versionOff, version[0]);
  u32(Field.versionLen, version[1]);
  u32(Field.dirCount, dirCount);
  for (let s = 0; s < SECTION_COUNT; s++) {
    u64(Field.sections + 16 * s, offsets[s]);
    u64(Field.sections + 16 * s + 8, sizes[s]);
  }

  const roots = [new Int32Array(buf, offsets[0], ROOT_SLOTS), new Int32Array(buf, offsets[1], ROOT_SLOTS)];
  [root4, root6].forEach((root, r) => {
    for (let i = 0; i < ROOT_SLOTS; i++) roots[r][i] = entryOf(root[i]);
  });
  const nodes = new Uint32Array(buf, offsets[2], 2 * (nodeCount + 1));
  const keys = new Uint16Array(buf, offsets[3], entryCount);
  const vals = new Int32Array(buf, offsets[4], entryCount);
  const dir = new Uint32Array(buf, offsets[5], dirCount);
  let e = 0;
  for (let n = 0; n < nodeCount; n++) {
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
  nodes[2 * nodeCount] = e;
  nodes[2 * nodeCount + 1] = dirCount;
  const v4Starts = new Uint32Array(buf, offsets[6], v4.starts.length);
  for (let i = 0; i < v4.starts.length; i++) v4Starts[i] = Number(v4.starts[i]);
  for (let i = 0; i < v6.starts.length; i++) {
    let v = v6.starts[i];
    const at = offsets[7] + 16 * i;
    for (let k = 15; k >= 0; k--) {
      bytes[at + k] = Number(v & 0xffn);
      v >>= 8n;
    }
  }
  new Uint32Array(buf, offsets[8], recordTable.length).set(recordTable);
  let at = offsets[9];
  for (const part of stringParts) {
    bytes.set(part, at);
    at += part.length;
  }
  u32(Field.checksum, binding.crc32c(bytes));
  options.onProgress?.(1);

  return {
    bytes,
    report: {
      v4Rows: parsed.v4.length,
      v6Rows: parsed.v6.length,
      v4Ranges: v4.starts.length,
      v6Ranges: v6.starts.length,
      records: records.asns.length,
      nodes: nodeCount,
      entries: entryCount,
      overlapsResolved: v4.overlaps + v6.overlaps,
      size,
    },
  };
}
