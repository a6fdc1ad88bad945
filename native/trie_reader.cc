#include "trie_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "crc32c.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the trie file is little-endian and is read in place");

namespace splitguard {
namespace {

struct StatusInfo {
  const char* name;
  const char* message;
};

// Indexed by Status. One line per failure class.
constexpr StatusInfo kStatusTable[] = {
    {"ok", "the database file is valid"},
    {"ipdb_open_failed", "the database file could not be opened"},
    {"ipdb_not_a_file", "the database path is not a regular file"},
    {"ipdb_truncated", "the database file is truncated: it is shorter than its header says"},
    {"ipdb_too_large", "the database file is larger than the 1 GiB limit"},
    {"ipdb_map_failed", "the database file could not be memory-mapped"},
    {"ipdb_misaligned", "the database buffer is not 8-byte aligned"},
    {"ipdb_bad_magic", "the file is not a splitguard IP database (bad magic)"},
    {"ipdb_bad_version", "the database file has an unsupported format version"},
    {"ipdb_bad_header", "the database header is malformed (size, byte order or reserved fields)"},
    {"ipdb_size_mismatch", "the database file size does not match its header"},
    {"ipdb_offset_out_of_range", "a database section lies outside the file or overlaps another"},
    {"ipdb_section_size", "a database section size does not match its element count"},
    {"ipdb_checksum_mismatch", "the database checksum does not match its contents"},
    {"ipdb_bad_node", "a trie node is malformed (empty, or keys not increasing from 0)"},
    {"ipdb_bad_index", "a trie node's DIR block does not match the node's keys"},
    {"ipdb_child_out_of_range", "a trie child reference names no node"},
    {"ipdb_cycle", "a trie child does not come after its parent (possible cycle)"},
    {"ipdb_shared_node", "a trie node has more than one parent"},
    {"ipdb_orphan_node", "a trie node is not reachable from a root"},
    {"ipdb_too_deep", "the trie is deeper than an address allows"},
    {"ipdb_record_out_of_range", "a trie leaf names a record that does not exist"},
    {"ipdb_string_out_of_range", "an organization string lies outside the string table"},
    {"ipdb_bad_utf8", "an organization string is not valid UTF-8"},
    {"ipdb_bad_ranges", "the range table is not increasing from the zero address"},
    {"ipdb_copy_failed", "the database file could not be copied into sealed memory"},
    {"ipdb_bad_feed", "a range feed entry is malformed (label, kind, name or reserved word)"},
    {"ipdb_feed_out_of_range", "a record names a feed that does not exist or is of the other kind"},
};
static_assert(sizeof(kStatusTable) / sizeof(kStatusTable[0]) ==
                  static_cast<size_t>(Status::kStatusCount),
              "one table line per status");

template <typename T>
T Read(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// a * b without overflow, or false.
bool Multiply(uint64_t a, uint64_t b, uint64_t* out) {
  if (a != 0 && b > UINT64_MAX / a) return false;
  *out = a * b;
  return true;
}

bool ValidUtf8(const uint8_t* s, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint8_t c = s[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (len > n - i) return false;
    for (size_t k = 1; k < len; k++) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are invalid.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      return false;
    i += len;
  }
  return true;
}

Status CheckHeader(const uint8_t* d, size_t size, TrieView* v) {
  if (size < kHeaderSize) return Status::kTruncated;
  if (std::memcmp(d + field::kMagicAt, kMagic, sizeof(kMagic)) != 0) return Status::kBadMagic;
  if (Read<uint32_t>(d + field::kVersion) != kFormatVersion) return Status::kBadVersion;
  if (Read<uint32_t>(d + field::kHeaderSizeAt) != kHeaderSize ||
      Read<uint32_t>(d + field::kEndian) != kEndianMarker || Read<uint32_t>(d + field::kFlags) != 0)
    return Status::kBadHeader;
  for (size_t at = field::kReserved; at < kHeaderSize; at++) {
    if (d[at] != 0) return Status::kBadHeader;
  }
  uint64_t declared = Read<uint64_t>(d + field::kFileSize);
  if (declared > size) return Status::kTruncated;
  if (declared != size) return Status::kSizeMismatch;

  v->version = kFormatVersion;
  v->build_time_ms = Read<uint64_t>(d + field::kBuildTime);
  v->v4_ranges = Read<uint32_t>(d + field::kV4Ranges);
  v->v6_ranges = Read<uint32_t>(d + field::kV6Ranges);
  v->nodes = Read<uint32_t>(d + field::kNodes);
  v->entries = Read<uint32_t>(d + field::kEntries);
  v->records = Read<uint32_t>(d + field::kRecordsCount);
  v->string_bytes = Read<uint32_t>(d + field::kStringBytes);
  v->source_off = Read<uint32_t>(d + field::kSourceOff);
  v->source_len = Read<uint32_t>(d + field::kSourceLen);
  v->data_version_off = Read<uint32_t>(d + field::kVersionOff);
  v->data_version_len = Read<uint32_t>(d + field::kVersionLen);
  v->dir_count = Read<uint32_t>(d + field::kDirCount);
  v->feed_count = Read<uint32_t>(d + field::kFeedCount);
  if (v->feed_count > kMaxFeeds) return Status::kBadFeed;
  v->checksum = Read<uint32_t>(d + field::kChecksum);
  return Status::kOk;
}

// Every section: expected byte size from its count (overflow-checked), an
// 8-aligned offset after the previous section, and inside the file (checked
// by subtraction so that no sum can wrap).
Status CheckSections(const uint8_t* d, size_t size, TrieView* v) {
  const uint64_t counts[kSectionCount][2] = {
      {kRootSlots, 4},      {kRootSlots, 4},     {uint64_t{v->nodes} + 1, 8}, {v->entries, 2},
      {v->entries, 4},      {v->dir_count, 4},   {v->v4_ranges, 4},           {v->v6_ranges, 16},
      {v->records, kRecordWords * 4}, {v->string_bytes, 1}, {v->feed_count, kFeedWords * 4},
  };
  uint64_t previous_end = kHeaderSize;
  for (int s = 0; s < kSectionCount; s++) {
    uint64_t off = Read<uint64_t>(d + field::kSections + s * 16);
    uint64_t len = Read<uint64_t>(d + field::kSections + s * 16 + 8);
    uint64_t expected;
    if (!Multiply(counts[s][0], counts[s][1], &expected) || len != expected) return Status::kSectionSize;
    if (off % 8 != 0 || off < previous_end) return Status::kSectionOutOfRange;
    if (off > size || len > size - off) return Status::kSectionOutOfRange;
    v->section_offset[s] = off;
    v->section_size[s] = len;
    previous_end = off + len;
  }
  v->root4 = reinterpret_cast<const int32_t*>(d + v->section_offset[kRoot4]);
  v->root6 = reinterpret_cast<const int32_t*>(d + v->section_offset[kRoot6]);
  v->nodes_table = reinterpret_cast<const uint32_t*>(d + v->section_offset[kNodes]);
  v->keys = reinterpret_cast<const uint16_t*>(d + v->section_offset[kKeys]);
  v->values = reinterpret_cast<const int32_t*>(d + v->section_offset[kValues]);
  v->dir = reinterpret_cast<const uint32_t*>(d + v->section_offset[kDir]);
  v->v4_starts = reinterpret_cast<const uint32_t*>(d + v->section_offset[kV4Starts]);
  v->v6_starts = d + v->section_offset[kV6Starts];
  v->record_table = reinterpret_cast<const uint32_t*>(d + v->section_offset[kRecords]);
  v->strings = d + v->section_offset[kStrings];
  v->feed_table = reinterpret_cast<const uint32_t*>(d + v->section_offset[kFeeds]);
  return Status::kOk;
}

Status CheckChecksum(const uint8_t* d, size_t size, const TrieView& v) {
  static const uint8_t kZero[4] = {0, 0, 0, 0};
  uint32_t c = Crc32c(0, d, field::kChecksum);
  c = Crc32c(c, kZero, 4);
  c = Crc32c(c, d + field::kChecksum + 4, size - field::kChecksum - 4);
  return c == v.checksum ? Status::kOk : Status::kChecksumMismatch;
}

Status CheckStrings(const TrieView& v) {
  auto in_table = [&](uint32_t off, uint32_t len) {
    return off <= v.string_bytes && len <= v.string_bytes - off;
  };
  if (!in_table(v.source_off, v.source_len) || !in_table(v.data_version_off, v.data_version_len))
    return Status::kStringOutOfRange;
  if (v.records == 0) return Status::kRecordOutOfRange;
  const uint32_t* r = v.record_table;
  if (r[0] != 0 || r[1] != 0 || r[2] != 0 || r[3] != 0) return Status::kRecordOutOfRange;
  for (uint32_t i = 0; i < v.records; i++) {
    if (!in_table(r[kRecordWords * i + 1], r[kRecordWords * i + 2])) return Status::kStringOutOfRange;
  }
  for (uint32_t i = 0; i < v.feed_count; i++) {
    const uint32_t* f = v.feed_table + kFeedWords * i;
    if (!in_table(f[0], f[1]) || !in_table(f[2], f[3])) return Status::kStringOutOfRange;
  }
  if (!ValidUtf8(v.strings, v.string_bytes)) return Status::kBadUtf8;
  return Status::kOk;
}

// Every feed entry is well formed, and every record names only feeds that
// exist, each in the slot of its kind.
Status CheckFeeds(const TrieView& v) {
  for (uint32_t i = 0; i < v.feed_count; i++) {
    const uint32_t* f = v.feed_table + kFeedWords * i;
    if (f[1] == 0 || f[4] >= kFeedLabelCount || f[5] >= kFeedKindCount || f[9] != 0) return Status::kBadFeed;
  }
  auto names = [&](uint32_t slot, uint32_t kind) {
    return slot == 0 || (slot <= v.feed_count && v.feed_table[kFeedWords * (slot - 1) + 5] == kind);
  };
  for (uint32_t i = 0; i < v.records; i++) {
    uint32_t feeds = v.record_table[kRecordWords * i + 3];
    if ((feeds >> 16) != 0 || !names(feeds & 0xFF, kRangeFeed) || !names((feeds >> 8) & 0xFF, kAsnFeed))
      return Status::kFeedOutOfRange;
  }
  return Status::kOk;
}

Status CheckRanges(const TrieView& v) {
  if (v.v4_ranges == 0 || v.v4_starts[0] != 0) return Status::kBadRanges;
  for (uint32_t i = 1; i < v.v4_ranges; i++) {
    if (v.v4_starts[i] <= v.v4_starts[i - 1]) return Status::kBadRanges;
  }
  static const uint8_t kZero16[16] = {};
  if (v.v6_ranges == 0 || std::memcmp(v.v6_starts, kZero16, 16) != 0) return Status::kBadRanges;
  for (uint32_t i = 1; i < v.v6_ranges; i++) {
    if (std::memcmp(v.v6_starts + 16 * (i - 1), v.v6_starts + 16 * i, 16) >= 0) return Status::kBadRanges;
  }
  return Status::kOk;
}

// The shift of a DIR block of `span` entries: span = 2^(16-s) + 1, or -1.
int ShiftOfSpan(uint32_t span) {
  for (uint32_t s = 0; s <= kMaxShift; s++) {
    if (span == (uint32_t{1} << (16 - s)) + 1) return static_cast<int>(s);
  }
  return -1;
}

// A node's DIR block must say exactly what its keys say (trie_format.h):
// checked by one merge walk over the keys and the block. Runs after the keys
// of [lo, hi) are known to be in range but before they are known to be
// increasing, so it relies on nothing but bounds.
Status CheckDir(const TrieView& v, uint32_t lo, uint32_t hi, uint32_t p, uint32_t shift) {
  const uint32_t buckets = uint32_t{1} << (16 - shift);
  const uint32_t* block = v.dir + p;
  uint32_t e = lo;
  // The last entry's bound, buckets << shift, is 65536: past every u16 key,
  // so there e has reached hi and the block's end is checked to be hi.
  for (uint32_t b = 0; b <= buckets; b++) {
    while (e < hi && v.keys[e] < (b << shift)) e++;
    if (block[b] != e) return Status::kBadIndex;
  }
  return Status::kOk;
}

// The node tree, in one pass in node order (see trie_format.h). NODES is
// checked first (positions increasing, DIR blocks of a legal size), so an
// inner entry's DIR position can be looked up by binary search. depth[n] is 0
// while node n has no parent yet; bit 7 marks an IPv6 node.
Status CheckTree(const TrieView& v) {
  const uint32_t* nt = v.nodes_table;
  if (nt[0] != 0 || nt[1] != 0 || nt[2 * v.nodes] != v.entries || nt[2 * v.nodes + 1] != v.dir_count)
    return Status::kBadNode;
  std::vector<uint8_t> shift(v.nodes);
  for (uint32_t n = 0; n < v.nodes; n++) {
    if (nt[2 * n] >= nt[2 * n + 2]) return Status::kBadNode;
    if (nt[2 * n + 1] >= nt[2 * n + 3]) return Status::kBadIndex;
    int s = ShiftOfSpan(nt[2 * n + 3] - nt[2 * n + 1]);
    if (s < 0) return Status::kBadIndex;
    shift[n] = static_cast<uint8_t>(s);
  }
  // The node an inner entry names, or v.nodes when it names none.
  auto node_of = [&](uint32_t ref) -> uint32_t {
    uint32_t p = ref >> kShiftBits, s = ref & ((1u << kShiftBits) - 1);
    uint32_t lo = 0, len = v.nodes;
    while (len > 1) {
      uint32_t half = len >> 1;
      if (nt[2 * (lo + half) + 1] <= p) lo += half;
      len -= half;
    }
    return v.nodes > 0 && nt[2 * lo + 1] == p && shift[lo] == s ? lo : v.nodes;
  };

  std::vector<uint8_t> depth(v.nodes, 0);
  constexpr uint8_t kV6 = 0x80;
  // Claims the node `entry` names for a parent at parent_depth; parent is -1
  // for roots.
  auto claim = [&](int32_t entry, int64_t parent, uint8_t parent_depth, uint8_t family) {
    if (entry >= 0) {
      return static_cast<uint32_t>(entry) < v.records ? Status::kOk : Status::kRecordOutOfRange;
    }
    uint32_t child = node_of(~static_cast<uint32_t>(entry));
    if (child >= v.nodes) return Status::kChildOutOfRange;
    if (static_cast<int64_t>(child) <= parent) return Status::kCycle;
    if (depth[child] != 0) return Status::kSharedNode;
    int max_depth = family ? kMaxDepth6 : kMaxDepth4;
    if (parent_depth + 1 > max_depth) return Status::kTooDeep;
    depth[child] = static_cast<uint8_t>((parent_depth + 1) | family);
    return Status::kOk;
  };

  for (uint32_t i = 0; i < kRootSlots; i++) {
    Status s = claim(v.root4[i], -1, 0, 0);
    if (s != Status::kOk) return s;
  }
  for (uint32_t i = 0; i < kRootSlots; i++) {
    Status s = claim(v.root6[i], -1, 0, kV6);
    if (s != Status::kOk) return s;
  }
  for (uint32_t n = 0; n < v.nodes; n++) {
    if (depth[n] == 0) return Status::kOrphanNode;
    uint32_t lo = nt[2 * n], hi = nt[2 * n + 2];
    if (v.keys[lo] != 0) return Status::kBadNode;
    Status si = CheckDir(v, lo, hi, nt[2 * n + 1], shift[n]);
    if (si != Status::kOk) return si;
    uint8_t family = depth[n] & kV6;
    uint8_t d = depth[n] & 0x7F;
    for (uint32_t e = lo; e < hi; e++) {
      if (e > lo && v.keys[e] <= v.keys[e - 1]) return Status::kBadNode;
      Status s = claim(v.values[e], n, d, family);
      if (s != Status::kOk) return s;
    }
  }
  return Status::kOk;
}

// The candidate entries for word w of the node that inner entry e names,
// [*lo, *lo + *len) with *len >= 1: one DIR bucket plus the key before it.
// False when the view is inconsistent (only possible for a view that skipped
// validation): the caller answers 0.
inline bool Candidates(const TrieView& v, int32_t e, uint32_t w, uint32_t* lo, uint32_t* len) {
  const uint32_t ref = ~static_cast<uint32_t>(e);
  const uint32_t p = ref >> kShiftBits, s = ref & ((1u << kShiftBits) - 1);
  if (s > kMaxShift) return false;
  const uint32_t b = w >> s;
  if (p >= v.dir_count || b + 1 >= v.dir_count - p) return false;
  const uint32_t l = v.dir[p + b] - (b != 0);  // wraps past h when DIR says 0
  const uint32_t h = v.dir[p + b + 1];
  if (l >= h || h > v.entries) return false;
  *lo = l;
  *len = h - l;
  return true;
}

// Keys searched at once: 32 u16 keys are one cache line (two when unaligned).
constexpr uint32_t kScan = 32;

#if defined(__SSE2__)
// How many of the kScan keys from k are <= w. Within a node they increase,
// so those are a prefix; keys past the node's end may follow, which the
// caller cuts off.
inline uint32_t ScanCount(const uint16_t* k, uint32_t w) {
  const __m128i wv = _mm_set1_epi16(static_cast<short>(w));
  const __m128i zero = _mm_setzero_si128();
  uint64_t le = 0;
  for (int i = 0; i < 4; i++) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(k + 8 * i));
    // Unsigned k <= w exactly when the saturating k - w is 0.
    __m128i m = _mm_cmpeq_epi16(_mm_subs_epu16(x, wv), zero);
    le |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(m))) << (16 * i);
  }
  return ~le == 0 ? kScan : static_cast<uint32_t>(__builtin_ctzll(~le)) >> 1;
}
#endif

// The last of the candidates whose key is <= w (keys start at 0, so it
// exists). Invariant: keys[lo] <= w, and every entry from lo + len on is > w.
// Wide candidate runs are halved branch-free (a conditional move where a
// compare-and-branch mispredicts about half the time); the last 32 keys are
// compared at once, so their loads do not wait on each other.
inline uint32_t LastAtMost(const TrieView& v, uint32_t lo, uint32_t len, uint32_t w) {
#if defined(__SSE2__)
  while (len > kScan) {
    const uint32_t half = len >> 1;
    lo = v.keys[lo + half] <= w ? lo + half : lo;
    len -= half;
  }
  if (kScan <= v.entries - lo) {
    const uint32_t c = ScanCount(v.keys + lo, w);
    return lo + (c < len ? c : len) - 1;
  }
#endif
  // The same halving again, written out: a shared lambda keeps lo and len
  // in memory, not registers (docs/performance.md, "Figures behind code comments").
  while (len > 1) {
    const uint32_t half = len >> 1;
    lo = v.keys[lo + half] <= w ? lo + half : lo;
    len -= half;
  }
  return lo;
}

// The entry for word w of the node that inner entry e names.
inline int32_t Step(const TrieView& v, int32_t e, uint32_t w) {
  uint32_t lo, len;
  if (!Candidates(v, e, w, &lo, &len)) return 0;
  return v.values[LastAtMost(v, lo, len, w)];
}

// ::ffff:0:0/96: an IPv4 address in 16-byte form, answered by the IPv4 trie.
constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
inline bool IsMapped(const uint8_t a[16]) { return std::memcmp(a, kMapped, 12) == 0; }

inline uint32_t LeafOrNone(const TrieView& v, int32_t e) {
  return e >= 0 && static_cast<uint32_t>(e) < v.records ? static_cast<uint32_t>(e) : 0;
}

}  // namespace

const char* StatusName(Status s) {
  auto i = static_cast<size_t>(s);
  return i < static_cast<size_t>(Status::kStatusCount) ? kStatusTable[i].name : "ipdb_unknown";
}

const char* StatusMessage(Status s) {
  auto i = static_cast<size_t>(s);
  return i < static_cast<size_t>(Status::kStatusCount) ? kStatusTable[i].message
                                                        : "unknown database status";
}

Status Validate(const uint8_t* data, size_t size, const ValidateOptions& options, TrieView* out) {
  if (reinterpret_cast<uintptr_t>(data) % 8 != 0) return Status::kMisaligned;
  if (size > kMaxFileSize) return Status::kTooLarge;
  TrieView v;
  v.base = data;
  v.size = size;
  Status s = CheckHeader(data, size, &v);
  if (s == Status::kOk) s = CheckSections(data, size, &v);
  if (s == Status::kOk && options.verify_checksum) s = CheckChecksum(data, size, v);
  if (s == Status::kOk) s = CheckStrings(v);
  if (s == Status::kOk) s = CheckFeeds(v);
  if (s == Status::kOk) s = CheckRanges(v);
  if (s == Status::kOk) s = CheckTree(v);
  if (s == Status::kOk) *out = v;
  return s;
}

uint32_t Lookup4(const TrieView& v, uint32_t ip) {
  int32_t e = v.root4[ip >> 16];
  if (e < 0) e = Step(v, e, ip & 0xFFFF);
  return LeafOrNone(v, e);
}

uint32_t Lookup16(const TrieView& v, const uint8_t a[16]) {
  if (IsMapped(a)) {
    return Lookup4(v, (uint32_t{a[12]} << 24) | (uint32_t{a[13]} << 16) | (uint32_t{a[14]} << 8) | a[15]);
  }
  int32_t e = v.root6[(uint32_t{a[0]} << 8) | a[1]];
  for (int i = 2; e < 0 && i < 16; i += 2) {
    e = Step(v, e, (uint32_t{a[i]} << 8) | a[i + 1]);
  }
  return LeafOrNone(v, e);
}

// IPv4 batches are a plain loop over the single walk: ROOT4 and the IPv4
// nodes are mostly cache-resident, so interleaving walks costs more in
// bookkeeping than it hides (docs/performance.md, "What changed because of measurements").
void LookupBatch4(const TrieView& v, const uint32_t* ips, size_t n, uint32_t* out) {
  for (size_t i = 0; i < n; i++) out[i] = Lookup4(v, ips[i]);
}

// IPv6 walks are chains of dependent loads that mostly miss L2 (root, DIR,
// keys, value, then the next level). Eight walks go level by level in step,
// so the CPU overlaps their misses, and the line holding each lane's first
// candidate value is prefetched while its keys are searched. The lane count,
// the single prefetch and the unrolled lane loops are the measured best
// (docs/performance.md, "What changed because of measurements").
namespace {
constexpr int kLanes = 8;
}  // namespace

void LookupBatch16(const TrieView& v, const uint8_t* addrs, size_t n, uint32_t* out) {
  size_t base = 0;
  for (; base + kLanes <= n; base += kLanes) {
    const uint8_t* block = addrs + 16 * base;
    int32_t e[kLanes];
    #pragma GCC unroll 8  // kLanes
    for (int k = 0; k < kLanes; k++) {
      const uint8_t* a = block + 16 * k;
      e[k] = IsMapped(a) ? static_cast<int32_t>(Lookup16(v, a)) : v.root6[(uint32_t{a[0]} << 8) | a[1]];
    }
    for (int at = 2; at < 16; at += 2) {
      bool walking = false;
      uint32_t lo[kLanes] = {}, len[kLanes] = {}, w[kLanes];  // lo, len: set for walking lanes
      #pragma GCC unroll 8  // kLanes
      for (int k = 0; k < kLanes; k++) {
        w[k] = (uint32_t{block[16 * k + at]} << 8) | block[16 * k + at + 1];
        if (e[k] >= 0) continue;
        if (!Candidates(v, e[k], w[k], &lo[k], &len[k])) {
          e[k] = 0;
          continue;
        }
        __builtin_prefetch(v.values + lo[k]);
        walking = true;
      }
      if (!walking) break;
      #pragma GCC unroll 8  // kLanes
      for (int k = 0; k < kLanes; k++) {
        if (e[k] < 0) e[k] = v.values[LastAtMost(v, lo[k], len[k], w[k])];
      }
    }
    #pragma GCC unroll 8  // kLanes
    for (int k = 0; k < kLanes; k++) out[base + k] = LeafOrNone(v, e[k]);
  }
  for (; base < n; base++) out[base] = Lookup16(v, addrs + 16 * base);
}

namespace {

// fstat of an opened database file and the checks made before it is mapped
// or copied: a regular file (not a FIFO or a device), at least a header
// long, at most kMaxFileSize. Sets *err only when fstat itself fails.
Status StatDatabaseFile(int fd, struct stat* st, int* err) {
  if (::fstat(fd, st) != 0) {
    *err = errno;
    return Status::kOpenFailed;
  }
  if (!S_ISREG(st->st_mode)) return Status::kNotAFile;
  if (static_cast<uint64_t>(st->st_size) < kHeaderSize) return Status::kTruncated;
  if (static_cast<uint64_t>(st->st_size) > kMaxFileSize) return Status::kTooLarge;
  return Status::kOk;
}

}  // namespace

Status MappedFile::Open(const char* path, std::unique_ptr<MappedFile>* out, int* err, struct stat* st_out) {
  *err = 0;
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
  // forever; this way it reaches the S_ISREG check. Regular files ignore it.
  int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *err = errno;
    return Status::kOpenFailed;
  }
  struct stat st;
  void* p = MAP_FAILED;
  Status s = StatDatabaseFile(fd, &st, err);
  if (s == Status::kOk) {
    p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      *err = errno;
      s = Status::kMapFailed;
    }
  }
  ::close(fd);
  if (s == Status::kOk) {
    out->reset(new MappedFile(static_cast<const uint8_t*>(p), static_cast<size_t>(st.st_size)));
    if (st_out != nullptr) *st_out = st;
  }
  return s;
}

Status MappedFile::SealedCopy(const char* path, int* fd_out, int* err) {
  *err = 0;
  *fd_out = -1;
  int src = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (src < 0) {
    *err = errno;
    return Status::kOpenFailed;
  }
  struct stat st;
  Status s = StatDatabaseFile(src, &st, err);
  int dst = -1;
  if (s == Status::kOk) {
    dst = ::memfd_create("splitguard-ipdb", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (dst < 0) {
      *err = errno;
      s = Status::kCopyFailed;
    }
  }
  // Copy exactly st_size bytes: a source that shrinks meanwhile is a short
  // read (refused), one that grows is copied up to the size seen.
  uint64_t left = s == Status::kOk ? static_cast<uint64_t>(st.st_size) : 0;
  std::unique_ptr<uint8_t[]> buf(left > 0 ? new uint8_t[1 << 20] : nullptr);
  while (left > 0 && s == Status::kOk) {
    ssize_t n = ::read(src, buf.get(), left < (1u << 20) ? static_cast<size_t>(left) : (1u << 20));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *err = n < 0 ? errno : 0;
      s = n < 0 ? Status::kCopyFailed : Status::kTruncated;
      break;
    }
    for (ssize_t done = 0; done < n && s == Status::kOk;) {
      ssize_t w = ::write(dst, buf.get() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        *err = w < 0 ? errno : 0;
        s = Status::kCopyFailed;
      } else {
        done += w;
      }
    }
    left -= static_cast<uint64_t>(n);
  }
  if (s == Status::kOk &&
      ::fcntl(dst, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    *err = errno;
    s = Status::kCopyFailed;
  }
  ::close(src);
  if (s != Status::kOk) {
    if (dst >= 0) ::close(dst);
    return s;
  }
  *fd_out = dst;
  return s;
}

MappedFile::~MappedFile() { ::munmap(const_cast<uint8_t*>(data_), size_); }

void MappedFile::DropReader() const {
  if (readers_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    ::madvise(const_cast<uint8_t*>(data_), size_, MADV_DONTNEED);
  }
}

namespace {

struct FileIdentity {
  dev_t dev;
  ino_t ino;
  off_t size;
  int64_t mtime_ns;
  bool operator<(const FileIdentity& o) const {
    return std::tie(dev, ino, size, mtime_ns) < std::tie(o.dev, o.ino, o.size, o.mtime_ns);
  }
};

struct SharedEntry {
  std::weak_ptr<const MappedFile> file;
  TrieView view;
  bool checksum_verified;
};

std::mutex g_shared_mutex;
std::map<FileIdentity, SharedEntry> g_shared;

}  // namespace

Status MappedFile::OpenShared(const char* path, const ValidateOptions& options, std::shared_ptr<const MappedFile>* out,
                              TrieView* view, int* err) {
  *err = 0;
  // The file is mapped first and identified by fstat of the descriptor that
  // was mapped; a mapping another thread holds of the same file is then used
  // instead, and the new one dropped.
  std::unique_ptr<MappedFile> file;
  struct stat st;
  Status s = Open(path, &file, err, &st);
  if (s != Status::kOk) return s;
  FileIdentity id{st.st_dev, st.st_ino, st.st_size,
                  static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
  std::lock_guard<std::mutex> lock(g_shared_mutex);
  for (auto it = g_shared.begin(); it != g_shared.end();) {
    if (it->second.file.expired()) it = g_shared.erase(it); else ++it;
  }
  auto found = g_shared.find(id);
  if (found != g_shared.end()) {
    std::shared_ptr<const MappedFile> existing = found->second.file.lock();
    if (existing && (found->second.checksum_verified || !options.verify_checksum)) {
      *out = existing;
      *view = found->second.view;
      return Status::kOk;
    }
  }
  TrieView v;
  s = Validate(file->data(), file->size(), options, &v);
  if (s != Status::kOk) return s;
  // Validation read every page once; lookups use a fraction of them (the
  // range tables and strings serve only cold paths). Letting them all go
  // now makes the resident set what the process uses, not what it checked:
  // a page's first use refaults it from the page cache (a minor fault,
  // about a microsecond), and no thread's residue depends on start-up order.
  ::madvise(const_cast<uint8_t*>(file->data()), file->size(), MADV_DONTNEED);
  std::shared_ptr<const MappedFile> shared(std::move(file));
  g_shared[id] = SharedEntry{shared, v, options.verify_checksum};
  *out = shared;
  *view = v;
  return Status::kOk;
}

}  // namespace splitguard
