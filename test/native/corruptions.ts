// The catalogue of corrupt trie files: one or more per failure class of
// native/trie_reader.cc, each made from the valid fixture by one mutation.
// corruption.test.ts opens every one in-process; no-crash.test.ts opens them
// all again in a child process and watches how it exits.
//
// Nodes are found by address, never by index (see the fixture's CSV). In the
// fixture, IPv4 nodes come first, then the IPv6 chain under 2001:db8 (depths
// 1 to 7), then the 2a00:1450 subtree; every mutation below relies only on
// that pre-order numbering, which the format requires anyway.
import { Field, HEADER_SIZE } from '../../src/ipdb/format.js';
import { Section } from '../../src/ipdb/native.js';
import { buildFixture, rechecksum, TrieLayout } from '../helpers/fixture.js';

export interface Corruption {
  /** The status the reader must report. */
  code: string;
  what: string;
  /** Mutates the fixture in place, or returns a replacement (for size changes). */
  mutate(bytes: Uint8Array, layout: TrieLayout): Uint8Array | void;
  /** The status when opened without checksum verification, when it differs from `code`. */
  unverified?: string;
}

// The nodes the mutations aim at.
const v4Node = (l: TrieLayout) => l.nodeAt(4, [0x0100]); // 1.0.0.0/16
const v4Split = (l: TrieLayout) => l.nodeAt(4, [0x0a14]); // 10.20.0.0/16, four runs
function v4Wide(l: TrieLayout): number {
  const n = l.nodeAt(4, [0xac10]); // 172.16.0.0/16
  if (l.nodeShift(n) >= 16) throw new Error('fixture: the 172.16.0.0/16 node must have a DIR block of several buckets');
  return n;
}
const v6Depth1 = (l: TrieLayout) => l.nodeAt(6, [0x2001]);
const v6Depth2 = (l: TrieLayout) => l.nodeAt(6, [0x2001, 0x0db8]);
const v6Depth7 = (l: TrieLayout) => l.nodeAt(6, [0x2001, 0x0db8, 1, 0, 0, 0, 0]);
const lateDepth1 = (l: TrieLayout) => l.nodeAt(6, [0x2a00]);
const lateDepth2 = (l: TrieLayout) => l.nodeAt(6, [0x2a00, 0x1450]);

const setValue = (l: TrieLayout, node: number, word: number, entry: number) =>
  l.setI32(l.valueSlot(l.entryFor(node, word)), entry);
const setSectionOffset = (l: TrieLayout, s: number, off: number) =>
  l.dv.setBigUint64(l.sectionField(s), BigInt(off), true);
const setSectionSize = (l: TrieLayout, s: number, size: number) =>
  l.dv.setBigUint64(l.sectionField(s) + 8, BigInt(size), true);
const stringsAt = (l: TrieLayout) => l.offset(Section.strings);
const v6Start = (l: TrieLayout, i: number) => l.offset(Section.v6Starts) + 16 * i;
const v4Start = (l: TrieLayout, i: number) => l.offset(Section.v4Starts) + 4 * i;

/** Position of the first occurrence of `text` (UTF-8) in the string table. */
function stringAt(l: TrieLayout, text: string): number {
  const needle = new TextEncoder().encode(text);
  const base = stringsAt(l);
  const hay = l.bytes.subarray(base, base + l.stringBytes);
  for (let i = 0; i + needle.length <= hay.length; i++) {
    if (needle.every((c, k) => hay[i + k] === c)) return base + i;
  }
  throw new Error(`"${text}" is not in the string table`);
}

export const corruptions: Corruption[] = [
  // Header. These fire before the checksum is read.
  { code: 'ipdb_truncated', what: 'the last byte is cut off', mutate: (b) => b.slice(0, -1) },
  { code: 'ipdb_truncated', what: 'only the header is left', mutate: (b) => b.slice(0, HEADER_SIZE) },
  // Refused by the mapping step before Validate sees it.
  { code: 'ipdb_truncated', what: 'the file is shorter than the header', mutate: (b) => b.slice(0, 100) },
  { code: 'ipdb_truncated', what: 'the file is empty', mutate: () => new Uint8Array(0) },
  { code: 'ipdb_bad_magic', what: 'the last magic byte differs', mutate: (b) => void (b[7] = 0x46) },
  { code: 'ipdb_bad_version', what: 'format version 1 (the layout before DIR)', mutate: (b, l) => l.setU32(Field.version, 1) },
  { code: 'ipdb_bad_version', what: 'format version 2 (the layout before FEEDS)', mutate: (b, l) => l.setU32(Field.version, 2) },
  { code: 'ipdb_bad_version', what: 'format version 4', mutate: (b, l) => l.setU32(Field.version, 4) },
  { code: 'ipdb_bad_version', what: 'format version 0', mutate: (b, l) => l.setU32(Field.version, 0) },
  { code: 'ipdb_bad_header', what: 'the endian marker is byte-swapped', mutate: (b, l) => l.setU32(Field.endian, 0x04030201) },
  { code: 'ipdb_bad_header', what: 'the header size field says 256', mutate: (b, l) => l.setU32(Field.headerSize, 256) },
  { code: 'ipdb_bad_header', what: 'a flag is set', mutate: (b, l) => l.setU32(Field.flags, 1) },
  { code: 'ipdb_bad_header', what: 'the first reserved word is not zero', mutate: (b, l) => l.setU32(Field.reserved, 1) },
  { code: 'ipdb_bad_header', what: 'the last byte of the header is not zero', mutate: (b) => void (b[HEADER_SIZE - 1] = 1) },
  {
    code: 'ipdb_size_mismatch',
    what: 'eight bytes are appended after the declared end',
    mutate: (b) => {
      const longer = new Uint8Array(b.length + 8);
      longer.set(b);
      return longer;
    },
  },

  // Section table.
  {
    code: 'ipdb_offset_out_of_range',
    what: 'STRINGS starts past the end of the file',
    mutate: (b, l) => setSectionOffset(l, Section.strings, (b.length + 8) & ~7),
  },
  {
    code: 'ipdb_offset_out_of_range',
    what: 'V4_STARTS overlaps VALUES',
    mutate: (b, l) => setSectionOffset(l, Section.v4Starts, l.offset(Section.values)),
  },
  {
    code: 'ipdb_offset_out_of_range',
    what: 'RECORDS is not 8-byte aligned',
    mutate: (b, l) => setSectionOffset(l, Section.records, l.offset(Section.records) + 4),
  },
  {
    code: 'ipdb_section_size',
    what: 'STRINGS is one byte longer than the string count',
    mutate: (b, l) => setSectionSize(l, Section.strings, l.stringBytes + 1),
  },
  {
    code: 'ipdb_section_size',
    what: 'the node count is one more than NODES holds',
    mutate: (b, l) => l.setU32(Field.nodes, l.nodes + 1),
  },
  {
    code: 'ipdb_section_size',
    what: 'the feed count is one more than FEEDS holds',
    mutate: (b, l) => l.setU32(Field.feedCount, l.u32(Field.feedCount) + 1),
  },

  // Strings and records (checked before the tree).
  {
    code: 'ipdb_string_out_of_range',
    what: "record 1's organization starts at the end of the string table",
    mutate: (b, l) => l.setU32(l.recordSlot(1) + 4, l.stringBytes),
  },
  {
    // 1 + 0xffffffff wraps to 0 in 32 bits: a check by addition would pass.
    code: 'ipdb_string_out_of_range',
    what: "record 1's organization length wraps around 2^32",
    mutate: (b, l) => {
      l.setU32(l.recordSlot(1) + 4, 1);
      l.setU32(l.recordSlot(1) + 8, 0xffffffff);
    },
  },
  {
    code: 'ipdb_string_out_of_range',
    what: 'the source name starts past the string table',
    mutate: (b, l) => l.setU32(Field.sourceOff, l.stringBytes + 1),
  },
  {
    code: 'ipdb_string_out_of_range',
    what: 'the data version is longer than the string table',
    mutate: (b, l) => l.setU32(Field.versionLen, l.stringBytes + 1),
  },
  {
    code: 'ipdb_record_out_of_range',
    what: 'record 0 is not all zero (an ASN)',
    mutate: (b, l) => l.setU32(l.recordSlot(0), 64500),
  },
  {
    code: 'ipdb_record_out_of_range',
    what: 'record 0 is not all zero (a feed)',
    mutate: (b, l) => l.setU32(l.recordSlot(0) + 12, 1),
  },
  {
    code: 'ipdb_string_out_of_range',
    what: "feed 0's name lies past the string table",
    mutate: (b, l) => l.setU32(l.feedSlot(0), l.stringBytes),
  },
  {
    code: 'ipdb_string_out_of_range',
    what: "feed 2's version length wraps around 2^32",
    mutate: (b, l) => l.setU32(l.feedSlot(2) + 12, 0xffffffff),
  },

  // Feeds (checked after the strings, before the ranges).
  { code: 'ipdb_bad_feed', what: 'the feed count is over 254', mutate: (b, l) => l.setU32(Field.feedCount, 255) },
  { code: 'ipdb_bad_feed', what: "feed 0's name is empty", mutate: (b, l) => l.setU32(l.feedSlot(0) + 4, 0) },
  { code: 'ipdb_bad_feed', what: "feed 1's label is past the last label", mutate: (b, l) => l.setU32(l.feedSlot(1) + 16, 6) },
  { code: 'ipdb_bad_feed', what: "feed 2's kind is neither ranges nor ASNs", mutate: (b, l) => l.setU32(l.feedSlot(2) + 20, 2) },
  { code: 'ipdb_bad_feed', what: "feed 0's last word is not zero", mutate: (b, l) => l.setU32(l.feedSlot(0) + 36, 1) },
  {
    code: 'ipdb_feed_out_of_range',
    what: 'a record names a range feed past the feed count',
    mutate: (b, l) => l.setU32(l.recordSlot(1) + 12, 4),
  },
  {
    code: 'ipdb_feed_out_of_range',
    what: 'a record names the ASN feed in its range-feed slot',
    mutate: (b, l) => l.setU32(l.recordSlot(1) + 12, 3),
  },
  {
    code: 'ipdb_feed_out_of_range',
    what: 'a record names a range feed in its ASN-feed slot',
    mutate: (b, l) => l.setU32(l.recordSlot(1) + 12, 1 << 8),
  },
  {
    code: 'ipdb_feed_out_of_range',
    what: "a record's feed word has a bit above the two slots",
    mutate: (b, l) => l.setU32(l.recordSlot(1) + 12, 1 << 16),
  },
  { code: 'ipdb_bad_utf8', what: 'a 0xFF byte', mutate: (b, l) => void (b[stringsAt(l)] = 0xff) },
  {
    code: 'ipdb_bad_utf8',
    what: 'a lead byte without its continuation ("é" as C3 41)',
    mutate: (b, l) => void (b[stringAt(l, 'é') + 1] = 0x41),
  },
  { code: 'ipdb_bad_utf8', what: 'an overlong "/" (C0 AF)', mutate: (b, l) => b.set([0xc0, 0xaf], stringsAt(l)) },
  { code: 'ipdb_bad_utf8', what: 'a UTF-16 surrogate (ED A0 80)', mutate: (b, l) => b.set([0xed, 0xa0, 0x80], stringsAt(l)) },
  { code: 'ipdb_bad_utf8', what: 'a code point past U+10FFFF (F4 90 80 80)', mutate: (b, l) => b.set([0xf4, 0x90, 0x80, 0x80], stringsAt(l)) },
  {
    code: 'ipdb_bad_utf8',
    what: 'a sequence cut by the end of the table',
    mutate: (b, l) => void (b[stringsAt(l) + l.stringBytes - 1] = 0xc3),
  },

  // Ranges.
  { code: 'ipdb_bad_ranges', what: 'the first IPv4 range starts at 0.0.0.1', mutate: (b, l) => l.setU32(v4Start(l, 0), 1) },
  {
    code: 'ipdb_bad_ranges',
    what: 'two IPv4 ranges start at the same address',
    mutate: (b, l) => l.setU32(v4Start(l, 2), l.u32(v4Start(l, 1))),
  },
  { code: 'ipdb_bad_ranges', what: 'the first IPv6 range starts at ::1', mutate: (b, l) => void (b[v6Start(l, 0) + 15] = 1) },
  {
    code: 'ipdb_bad_ranges',
    what: 'two IPv6 ranges are out of order',
    mutate: (b, l) => {
      const first = b.slice(v6Start(l, 1), v6Start(l, 2));
      b.copyWithin(v6Start(l, 1), v6Start(l, 2), v6Start(l, 3));
      b.set(first, v6Start(l, 2));
    },
  },

  // The tree, in the order CheckTree looks: roots, then nodes in index order.
  {
    code: 'ipdb_bad_node',
    what: 'an IPv6 node whose first key is 1, not 0',
    mutate: (b, l) => l.dv.setUint16(l.keySlot(l.nodeStart(v6Depth2(l))), 1, true),
  },
  {
    code: 'ipdb_bad_node',
    what: 'an IPv4 node with two equal keys',
    mutate: (b, l) => {
      const e = l.entryFor(v4Split(l), 0x4100);
      l.dv.setUint16(l.keySlot(e), l.dv.getUint16(l.keySlot(e - 1), true), true);
    },
  },
  {
    code: 'ipdb_bad_node',
    what: 'an empty node (its start is the next node\'s start)',
    mutate: (b, l) => {
      const n = v6Depth2(l);
      l.setU32(l.nodeSlot(n + 1), l.nodeStart(n));
    },
  },
  {
    code: 'ipdb_bad_node',
    what: "the NODES sentinel's DIR position is not the DIR count",
    mutate: (b, l) => l.setU32(l.nodeSlot(l.nodes) + 4, l.dirCount + 1),
  },
  {
    code: 'ipdb_bad_index',
    what: "the wide node's DIR block starts where the node before it starts",
    mutate: (b, l) => l.setU32(l.nodeSlot(v4Wide(l)) + 4, l.nodeDir(v4Wide(l) - 1)),
  },
  {
    code: 'ipdb_bad_index',
    what: "the wide node's DIR block is one entry longer than any shift allows",
    mutate: (b, l) => l.setU32(l.nodeSlot(v4Wide(l) + 1) + 4, l.nodeDir(v4Wide(l) + 1) + 1),
  },
  {
    code: 'ipdb_bad_index',
    what: 'a DIR entry is one past the entry it should name',
    mutate: (b, l) => {
      const at = l.dirSlot(l.nodeDir(v4Wide(l)) + 1);
      l.setU32(at, l.u32(at) + 1);
    },
  },
  {
    code: 'ipdb_bad_index',
    what: "a narrow node's DIR block ends inside the next node",
    mutate: (b, l) => {
      const at = l.dirSlot(l.nodeDir(v4Split(l) + 1) - 1);
      l.setU32(at, l.u32(at) + 1);
    },
  },
  {
    code: 'ipdb_child_out_of_range',
    what: 'ROOT6[0x2001] names a DIR position past the end of DIR',
    mutate: (b, l) => l.setI32(l.rootSlot(6, 0x2001), ~(((l.dirCount + 5) << 5) | 16)),
  },
  {
    code: 'ipdb_child_out_of_range',
    what: "ROOT6[0x2001] names its node's DIR block with another shift",
    mutate: (b, l) => l.setI32(l.rootSlot(6, 0x2001), ~((l.nodeDir(v6Depth1(l)) << 5) | ((l.nodeShift(v6Depth1(l)) + 1) % 17))),
  },
  {
    code: 'ipdb_child_out_of_range',
    what: 'a depth-2 IPv6 node names a DIR position inside another block',
    mutate: (b, l) => setValue(l, v6Depth2(l), 1, ~(((l.nodeDir(v6Depth7(l)) + 1) << 5) | 16)),
  },
  {
    code: 'ipdb_child_out_of_range',
    what: 'an IPv4 node names shift 31 (entry INT32_MIN)',
    mutate: (b, l) => setValue(l, v4Node(l), 0, -0x80000000),
  },
  {
    code: 'ipdb_cycle',
    what: 'a node names itself',
    mutate: (b, l) => setValue(l, v6Depth2(l), 1, l.entryOf(v6Depth2(l))),
  },
  {
    code: 'ipdb_cycle',
    what: 'the depth-7 node names the depth-1 node above it',
    mutate: (b, l) => setValue(l, v6Depth7(l), 1, l.entryOf(v6Depth1(l))),
  },
  {
    code: 'ipdb_shared_node',
    what: 'two root slots name one node',
    mutate: (b, l) => l.setI32(l.rootSlot(6, 0x2002), l.i32(l.rootSlot(6, 0x2001))),
  },
  {
    code: 'ipdb_shared_node',
    what: 'two entries of one node name one child',
    mutate: (b, l) => setValue(l, v6Depth1(l), 0, l.entryOf(v6Depth2(l))),
  },
  {
    code: 'ipdb_orphan_node',
    what: 'ROOT6[0x2001] becomes a leaf, leaving its node without a parent',
    mutate: (b, l) => l.setI32(l.rootSlot(6, 0x2001), 0),
  },
  {
    code: 'ipdb_orphan_node',
    what: 'the last node loses its parent',
    mutate: (b, l) => setValue(l, lateDepth1(l), 0x1450, 0),
  },
  {
    // The later subtree's depth-2 node has not been claimed yet when the
    // depth-7 node is checked, so this is not reported as sharing.
    code: 'ipdb_too_deep',
    what: 'the depth-7 IPv6 node has a child (8 levels)',
    mutate: (b, l) => {
      if (lateDepth1(l) < v6Depth7(l)) throw new Error('fixture: the 2a00 subtree must come after the 2001:db8 chain');
      setValue(l, v6Depth7(l), 1, l.entryOf(lateDepth2(l)));
    },
  },
  {
    code: 'ipdb_too_deep',
    what: 'an IPv4 node has a child (3 words)',
    mutate: (b, l) => setValue(l, v4Node(l), 0, l.entryOf(lateDepth2(l))),
  },
  {
    code: 'ipdb_record_out_of_range',
    what: 'a ROOT4 leaf names the record count',
    mutate: (b, l) => l.setI32(l.rootSlot(4, 0x6440), l.records),
  },
  {
    code: 'ipdb_record_out_of_range',
    what: 'a node leaf names a record past the table',
    mutate: (b, l) => setValue(l, v4Split(l), 0x4000, l.records + 100),
  },

  // Checksum. A leaf changed from record 0 to record 1 is structurally valid:
  // only the checksum can tell.
  {
    code: 'ipdb_checksum_mismatch',
    what: 'an empty ROOT6 slot now names record 1 (checksum not updated)',
    mutate: (b, l) => l.setI32(l.rootSlot(6, 0xffff), 1),
    unverified: 'ok',
  },
];

/**
 * The fixture with corruption `c` applied. Unless `keepChecksum`, the checksum
 * is recomputed so that the structural check, not the checksum, is what
 * fires; the checksum class always keeps its stale checksum.
 */
export function corrupt(c: Corruption, options: { keepChecksum?: boolean } = {}): Uint8Array {
  const fixture = buildFixture();
  const bytes = c.mutate(fixture, new TrieLayout(fixture)) ?? fixture;
  const keep = options.keepChecksum || c.code === 'ipdb_checksum_mismatch';
  if (!keep && bytes.length >= HEADER_SIZE) rechecksum(bytes);
  return bytes;
}
