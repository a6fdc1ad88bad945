// The splitguard IP trie file, format version 1.
//
// One file holds the IPv4 and IPv6 tables. Every integer is little-endian.
// Every section starts on an 8-byte boundary, so the reader (and the zero-copy
// JavaScript views over the mapping) can read typed values without unaligned
// loads. Gaps between sections are zero padding of at most 7 bytes.
//
//   offset 0                                                        file_size
//   +--------+-------+-------+-----------+------+--------+-------+---------+---------+---------+---------+
//   | header | ROOT4 | ROOT6 | NODES     | KEYS | VALUES | INDEX | V4_     | V6_     | RECORDS | STRINGS |
//   | 256 B  | i32 × | i32 × | i32 × 2 × | u16× | i32 ×  | u32 × | STARTS  | STARTS  | u32 ×   | UTF-8   |
//   |        | 65536 | 65536 | (N + 1)   | E    | E      | X     | u32 × R4| 16B × R6| 3 × C   | bytes   |
//   +--------+-------+-------+-----------+------+--------+-------+---------+---------+---------+---------+
//
// The trie. An address is read as 16-bit words, most significant first (IPv4:
// 2 words, IPv6: 8 words). ROOT4 / ROOT6 are dense tables indexed by word 0.
// Every table slot holds an *entry* (i32):
//
//     entry >= 0   leaf: a record index (record 0 means "no data here")
//     entry <  0   inner: the node ~entry decides by the next word
//
// A node is a run-length-compressed table of 65536 slots for the next word.
// NODES holds a pair (start, index) per node plus a sentinel pair (E, -1):
// node n owns entries [start(n), start(n+1)) of the parallel arrays KEYS and
// VALUES. KEYS are strictly increasing and start at 0; the slot for word w is
// the last key <= w, found by binary search:
//
//     ROOT6[0x2001] = ~7 ──► node 7: KEYS   0    0x0db8   0x0db9
//                                     VALUES 12   ~8       12
//                                                  └──► node 8: KEYS 0  ...
//
// Wide nodes (more than a few dozen keys; the IPv6 nodes under 2001::/16 or
// 2a00::/16 hold thousands) carry an index so that the search touches one or
// two cache lines instead of ~14: index(n) >= 0 is the position in INDEX of
// 257 entry numbers, INDEX[index(n) + b] = the first entry of node n whose key
// is >= b << 8 (INDEX[index(n) + 256] = start(n+1)). The last key <= w then
// lies in [INDEX[.. + (w >> 8)] - 1, INDEX[.. + (w >> 8) + 1] - 1]. Nodes
// without an index have index(n) = -1.
//
// Tree invariants the reader checks before the first lookup, so that a walk
// can never leave the file or loop:
//   * a child's node index is greater than its parent's (roots are parents of
//     everything), so following children strictly increases the index: no
//     cycles, and a single pass in index order sees every parent first;
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
// Records. RECORDS holds C triples (asn, org_offset, org_length); the
// organization is STRINGS[org_offset, org_offset + org_length), valid UTF-8.
// Each distinct organization name is stored once. Record 0 is (0, 0, 0).
//
// The checksum is CRC32C (Castagnoli) of the whole file with the checksum
// field read as zero.

#ifndef SPLITGUARD_TRIE_FORMAT_H_
#define SPLITGUARD_TRIE_FORMAT_H_

#include <cstddef>
#include <cstdint>

namespace splitguard {

constexpr char kMagic[8] = {'S', 'G', 'I', 'P', 'T', 'R', 'I', 'E'};
constexpr uint32_t kFormatVersion = 1;
constexpr uint32_t kEndianMarker = 0x01020304u;
constexpr size_t kHeaderSize = 256;
constexpr uint32_t kRootSlots = 65536;
constexpr int kMaxDepth4 = 1;  // nodes below ROOT4
constexpr int kMaxDepth6 = 7;  // nodes below ROOT6
// Files above this size are refused before mapping: the real database is
// about 15 MiB, and every u32 count and offset stays far from overflow.
constexpr uint64_t kMaxFileSize = uint64_t{1} << 30;
constexpr uint32_t kIndexSpan = 257;  // INDEX entries per indexed node

enum Section : int {
  kRoot4 = 0,
  kRoot6,
  kNodes,
  kKeys,
  kValues,
  kIndex,
  kV4Starts,
  kV6Starts,
  kRecords,
  kStrings,
  kSectionCount
};

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
constexpr size_t kIndexCount = 240;     // u32: entries in INDEX, 257 per indexed node
constexpr size_t kReserved = 244;       // u32, 0
constexpr size_t kChecksum = 248;       // u32
constexpr size_t kReserved2 = 252;      // u32, 0
}  // namespace field

static_assert(field::kSections + kSectionCount * 16 <= field::kIndexCount,
              "section table overlaps the checksum");

}  // namespace splitguard

#endif  // SPLITGUARD_TRIE_FORMAT_H_
