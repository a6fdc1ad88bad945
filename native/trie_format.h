// The splitguard IP trie file, format version 3.
//
// One file holds the IPv4 and IPv6 tables. Every integer is little-endian.
// Every section starts on an 8-byte boundary, so the reader (and the zero-copy
// JavaScript views over the mapping) can read typed values without unaligned
// loads. Gaps between sections are zero padding of at most 7 bytes.
//
//   offset 0                                                        file_size
//   +--------+-------+-------+-----------+------+--------+-------+---------+---------+---------+---------+--------+
//   | header | ROOT4 | ROOT6 | NODES     | KEYS | VALUES | DIR   | V4_     | V6_     | RECORDS | STRINGS | FEEDS  |
//   | 512 B  | i32 × | i32 × | u32 × 2 × | u16× | i32 ×  | u32 × | STARTS  | STARTS  | u32 ×   | UTF-8   | u32 ×  |
//   |        | 65536 | 65536 | (N + 1)   | E    | E      | D     | u32 × R4| 16B × R6| 4 × C   | bytes   | 10 × F |
//   +--------+-------+-------+-----------+------+--------+-------+---------+---------+---------+---------+--------+
//
// The trie. An address is read as 16-bit words, most significant first (IPv4:
// 2 words, IPv6: 8 words). ROOT4 / ROOT6 are dense tables indexed by word 0.
// Every table slot holds an *entry* (i32):
//
//     entry >= 0   leaf: a record index (record 0 means "no data here")
//     entry <  0   inner: ~entry = (p << 5) | s names the node whose DIR
//                  block starts at p and whose shift is s (0..16)
//
// A node is a run-length-compressed table of 65536 slots for the next word:
// entries [start, end) of the parallel arrays KEYS and VALUES, keys strictly
// increasing from 0; the slot for word w is the last key <= w. The node's DIR
// block of 2^(16-s) + 1 entry numbers says where to look: DIR[p + b] is the
// first entry whose key is >= b << s, so DIR[p] = start and
// DIR[p + 2^(16-s)] = end. For word w, with b = w >> s, the answer lies in
//
//     [DIR[p + b] - (b > 0 ? 1 : 0), DIR[p + b + 1])
//
// (for b > 0 the one key before the bucket covers its first words; key 0
// guarantees there is one). A walk therefore reads, per level, one DIR pair,
// a few keys in one or two cache lines, and one value: the entry names its
// node's DIR block directly, with no node table in between.
//
//     ROOT6[0x2001] = ~(p << 5 | 13) ──► DIR[p + (w >> 13)] ──► KEYS  0  0x0db8  0x0db9
//                                                              VALUES 12  ~(..)   12
//
// The builder picks s per node so that a bucket holds about two keys (s = 16,
// a single bucket, for nodes of up to 8 keys); the reader relies only on the
// DIR block matching the keys, which it checks.
//
// NODES holds a pair (start, p) per node plus a sentinel pair (E, D), so node
// n owns entries [start(n), start(n+1)) and DIR [p(n), p(n+1)). The lookup
// never reads it; validation walks the tree with it.
//
// Tree invariants the reader checks before the first lookup, so that a walk
// can never leave the file or loop:
//   * every inner entry names a node exactly: its p and s are those of a
//     node in NODES (s from the size of the node's DIR block);
//   * a child's node number is greater than its parent's (roots are parents
//     of everything), so following children strictly increases it: no
//     cycles, and a single pass in node order sees every parent first;
//   * every node has exactly one parent (no sharing, no orphans);
//   * depth is bounded: IPv4 nodes are leaves-only (2 words), IPv6 nodes are
//     at most 7 levels deep (8 words);
//   * every leaf names an existing record.
//
// Ranges. V4_STARTS / V6_STARTS list the first address of every range in
// address order, strictly increasing and starting at the family's zero
// address. Unannounced space is present as its own range, so range i ends
// where range i+1 begins and the ranges tile the whole family. These tables
// serve only the cold path (reporting a result's range); the trie answers
// lookups. V6 starts are 16 raw big-endian bytes each.
//
// Records. RECORDS holds C quadruples (asn, org_offset, org_length, feeds);
// the organization is STRINGS[org_offset, org_offset + org_length), valid
// UTF-8. Each distinct organization name is stored once. Record 0 is all
// zero: no data. `feeds` says which feeds cover the record's addresses:
//
//     bits 0-7    range feed: 0 none, else 1 + the index of a feed of kind
//                 ranges whose ranges hold every address of the record
//     bits 8-15   ASN feed: 0 none, else 1 + the index of a feed of kind asns
//                 that lists the record's ASN
//     bits 16-31  zero
//
// Range feeds are folded into the ranges at build time: an address covered
// by a feed range gets a record of its own (the same ASN and organization,
// the feed set), so a lookup still returns one record. A record with ASN 0
// and a range feed is feed space the ASN data does not cover.
//
// Feeds. FEEDS holds F entries of 10 u32 (F = header feed_count, at most
// 254): name_offset, name_length, version_offset, version_length (strings in
// STRINGS, the name non-empty), label (FeedLabel), kind (FeedKind), count
// (ranges or ASNs the feed contributed), fetched_at_ms low and high words,
// and a zero word.
//
// The checksum is CRC32C (Castagnoli) of the whole file with the checksum
// field read as zero.
//
// Version 1 had NODES pairs of (start, index) and an optional 257-entry INDEX
// per wide node: a walk read the node pair before it could read the index.
// Version 2 had a 256-byte header, 3-word records and no FEEDS. Each version
// refuses the files of the others.

#ifndef SPLITGUARD_TRIE_FORMAT_H_
#define SPLITGUARD_TRIE_FORMAT_H_

#include <cstddef>
#include <cstdint>

namespace splitguard {

constexpr char kMagic[8] = {'S', 'G', 'I', 'P', 'T', 'R', 'I', 'E'};
constexpr uint32_t kFormatVersion = 3;
constexpr uint32_t kEndianMarker = 0x01020304u;
constexpr size_t kHeaderSize = 512;
constexpr uint32_t kRootSlots = 65536;
constexpr int kMaxDepth4 = 1;  // nodes below ROOT4
constexpr int kMaxDepth6 = 7;  // nodes below ROOT6
// Files above this size are refused before mapping: the real database is
// about 15 MiB, and every u32 count and offset stays far from overflow.
constexpr uint64_t kMaxFileSize = uint64_t{1} << 30;
constexpr uint32_t kMaxShift = 16;  // s in an inner entry: DIR blocks of 2^(16-s) + 1
constexpr int kShiftBits = 5;       // ~entry = (p << kShiftBits) | s

enum Section : int {
  kRoot4 = 0,
  kRoot6,
  kNodes,
  kKeys,
  kValues,
  kDir,
  kV4Starts,
  kV6Starts,
  kRecords,
  kStrings,
  kFeeds,
  kSectionCount
};

constexpr uint32_t kRecordWords = 4;  // asn, org_offset, org_length, feeds
constexpr uint32_t kFeedWords = 10;
constexpr uint32_t kMaxFeeds = 254;

// What a feed's ranges (or ASNs) are. The classifier maps them onto the
// contract's categories and levels (src/quality/classifier.ts).
enum FeedLabel : uint32_t { kCloud = 0, kHosting, kVpn, kTor, kRelay, kCrawler, kFeedLabelCount };
enum FeedKind : uint32_t { kRangeFeed = 0, kAsnFeed, kFeedKindCount };

// Byte offsets of the header fields.
namespace field {
constexpr size_t kMagicAt = 0;          // 8 bytes
constexpr size_t kVersion = 8;          // u32
constexpr size_t kHeaderSizeAt = 12;    // u32, == kHeaderSize
constexpr size_t kEndian = 16;          // u32, == kEndianMarker
constexpr size_t kFlags = 20;           // u32, 0
constexpr size_t kFileSize = 24;        // u64
constexpr size_t kBuildTime = 32;       // u64, milliseconds since the epoch
constexpr size_t kV4Ranges = 40;        // u32
constexpr size_t kV6Ranges = 44;        // u32
constexpr size_t kNodes = 48;           // u32
constexpr size_t kEntries = 52;         // u32
constexpr size_t kRecordsCount = 56;    // u32
constexpr size_t kStringBytes = 60;     // u32
constexpr size_t kSourceOff = 64;       // u32, in STRINGS
constexpr size_t kSourceLen = 68;       // u32
constexpr size_t kVersionOff = 72;      // u32, in STRINGS: the data version
constexpr size_t kVersionLen = 76;      // u32
constexpr size_t kSections = 80;        // kSectionCount × {u64 offset, u64 size}
constexpr size_t kDirCount = 256;       // u32: entries in DIR
constexpr size_t kFeedCount = 260;      // u32: entries in FEEDS
constexpr size_t kChecksum = 264;       // u32
constexpr size_t kReserved = 268;       // zero up to the end of the header
}  // namespace field

static_assert(field::kSections + kSectionCount * 16 <= field::kDirCount,
              "section table overlaps the counts");

}  // namespace splitguard

#endif  // SPLITGUARD_TRIE_FORMAT_H_
