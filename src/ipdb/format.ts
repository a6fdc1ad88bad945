// The trie file layout as the builder writes it. native/trie_format.h is the
// specification (with the diagram); these constants mirror it one for one,
// and test/native/valid-fixture.test.ts checks the two agree.

export const MAGIC = 'SGIPTRIE';
export const FORMAT_VERSION = 3;
export const ENDIAN_MARKER = 0x01020304;
export const HEADER_SIZE = 512;
export const ROOT_SLOTS = 65536;
export const SECTION_COUNT = 11;
/** u32 words per record: asn, org offset, org length, feeds (range feed slot | ASN feed slot << 8). */
export const RECORD_WORDS = 4;
/** u32 words per FEEDS entry. */
export const FEED_WORDS = 10;
export const MAX_FEEDS = 254;
/** FeedLabel in native/trie_format.h, in its order. */
export const FEED_LABELS = ['cloud', 'hosting', 'vpn', 'tor', 'relay', 'crawler'] as const;
export type FeedLabel = (typeof FEED_LABELS)[number];
export const FeedKind = { ranges: 0, asns: 1 } as const;
/** An inner entry is ~((p << SHIFT_BITS) | s): DIR position p, shift s <= MAX_SHIFT. */
export const SHIFT_BITS = 5;
export const MAX_SHIFT = 16;
/** Nodes of up to this many keys get one DIR bucket (s = 16). */
export const DIR_SINGLE_BUCKET_KEYS = 8;

export const Field = {
  magic: 0,
  version: 8,
  headerSize: 12,
  endian: 16,
  flags: 20,
  fileSize: 24,
  buildTime: 32,
  v4Ranges: 40,
  v6Ranges: 44,
  nodes: 48,
  entries: 52,
  records: 56,
  stringBytes: 60,
  sourceOff: 64,
  sourceLen: 68,
  versionOff: 72,
  versionLen: 76,
  sections: 80,
  dirCount: 256,
  feedCount: 260,
  checksum: 264,
  /** Zero up to the end of the header. */
  reserved: 268,
} as const;
