// The trie file layout as the builder writes it. native/trie_format.h is the
// specification (with the diagram); these constants mirror it one for one,
// and test/native/format-constants.test.ts keeps the two in step.

export const MAGIC = 'SGIPTRIE';
export const FORMAT_VERSION = 1;
export const ENDIAN_MARKER = 0x01020304;
export const HEADER_SIZE = 256;
export const ROOT_SLOTS = 65536;
export const SECTION_COUNT = 10;
/** INDEX entries per indexed node, and the key count above which a node gets an index. */
export const INDEX_SPAN = 257;
export const INDEX_MIN_KEYS = 64;

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
  indexCount: 240,
  reserved: 244,
  checksum: 248,
  reserved2: 252,
} as const;
