// The trie reader: validates a trie file held in memory and answers lookups.
// Pure C++, no N-API: the binding, the fuzz harness and the tests share it.
#ifndef SPLITGUARD_TRIE_READER_H_
#define SPLITGUARD_TRIE_READER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <sys/stat.h>

#include <memory>

#include "trie_format.h"

namespace splitguard {

// One status per failure class. The names and messages live in one table in
// trie_reader.cc; the binding hands both to JavaScript unchanged.
enum class Status : int {
  kOk = 0,
  kOpenFailed,
  kNotAFile,
  kTruncated,
  kTooLarge,
  kMapFailed,
  kMisaligned,
  kBadMagic,
  kBadVersion,
  kBadHeader,
  kSizeMismatch,
  kSectionOutOfRange,
  kSectionSize,
  kChecksumMismatch,
  kBadNode,
  kBadIndex,
  kChildOutOfRange,
  kCycle,
  kSharedNode,
  kOrphanNode,
  kTooDeep,
  kRecordOutOfRange,
  kStringOutOfRange,
  kBadUtf8,
  kBadRanges,
  kCopyFailed,
  kBadFeed,
  kFeedOutOfRange,
  kStatusCount
};

const char* StatusName(Status s);     // stable code, e.g. "ipdb_bad_magic"
const char* StatusMessage(Status s);  // fixed English sentence

struct ValidateOptions {
  // The checksum pass reads every byte; the fuzz harness turns it off so that
  // mutated inputs reach the structural checks.
  bool verify_checksum = true;
};

// Typed pointers into a validated file. Valid exactly as long as the memory
// handed to Validate stays mapped; it owns nothing.
struct TrieView {
  const uint8_t* base = nullptr;
  uint64_t size = 0;
  uint32_t version = 0;
  uint64_t build_time_ms = 0;
  uint32_t checksum = 0;
  uint32_t v4_ranges = 0, v6_ranges = 0, nodes = 0, entries = 0, records = 0, string_bytes = 0;
  uint32_t dir_count = 0;
  uint32_t feed_count = 0;
  uint32_t source_off = 0, source_len = 0, data_version_off = 0, data_version_len = 0;
  uint64_t section_offset[kSectionCount] = {};
  uint64_t section_size[kSectionCount] = {};

  const int32_t* root4 = nullptr;
  const int32_t* root6 = nullptr;
  const uint32_t* nodes_table = nullptr;  // (start, DIR position) pairs, nodes + 1 of them
  const uint16_t* keys = nullptr;
  const int32_t* values = nullptr;
  const uint32_t* dir = nullptr;
  const uint32_t* v4_starts = nullptr;
  const uint8_t* v6_starts = nullptr;
  const uint32_t* record_table = nullptr;  // records × {asn, org_off, org_len, feeds}
  const uint8_t* strings = nullptr;
  const uint32_t* feed_table = nullptr;    // feed_count × kFeedWords
};

// Checks everything a lookup could trip over (see trie_format.h), then fills
// *view. `data` must be 8-byte aligned (a mapping always is).
Status Validate(const uint8_t* data, size_t size, const ValidateOptions& options, TrieView* view);

// Lookups on a validated view. They return a record index, 0 for "no data".
// Every step is still bounds-checked, so a view that skipped validation can
// answer wrongly but never read outside the file.
uint32_t Lookup4(const TrieView& v, uint32_t ip);
uint32_t Lookup16(const TrieView& v, const uint8_t addr[16]);  // IPv4-mapped goes to the IPv4 trie

// Batch lookups: the same answers as the single ones, for many addresses per call.
void LookupBatch4(const TrieView& v, const uint32_t* ips, size_t n, uint32_t* out);
void LookupBatch16(const TrieView& v, const uint8_t* addrs, size_t n, uint32_t* out);

// A read-only private mapping of a whole file. The descriptor is closed once
// mapped; the mapping lives until the object is destroyed.
class MappedFile {
 public:
  // Maps a regular file read-only. `st`, if given, receives fstat of the
  // descriptor that was mapped (the identity of what is mapped, whatever the
  // path names by now).
  static Status Open(const char* path, std::unique_ptr<MappedFile>* out, int* err, struct stat* st = nullptr);

  // Maps and validates a trie file once per process: while any holder keeps
  // a mapping of the same file (same device, inode, size and mtime) alive,
  // another thread opening it gets that mapping and its validated view, so
  // N server threads hold one copy of the pages, not N. A file replaced by
  // rename is a new inode and gets a new mapping.
  static Status OpenShared(const char* path, const ValidateOptions& options, std::shared_ptr<const MappedFile>* out,
                           TrieView* view, int* err);

  // Copies the regular file at `path` into an anonymous memory file (memfd)
  // sealed against shrinking, growing and writing, and returns its
  // descriptor in *fd (the caller closes it). Mapped through
  // /proc/self/fd/<fd>, a database no one can truncate: a file in the data
  // directory can be truncated by anyone who may write there, and reading a
  // mapped page past the new end raises SIGBUS, which would end the process.
  // Nothing is validated here; OpenShared does that.
  static Status SealedCopy(const char* path, int* fd, int* err);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

  // Readers that still serve from this mapping (open database handles, in
  // any thread). Views handed to JavaScript keep the mapping itself alive
  // until they are collected, which under load can be long after a swap;
  // when the last reader closes, the pages are released at once
  // (MADV_DONTNEED). The mapping is private, read-only and never written,
  // so a late read through a surviving view refaults the same bytes from
  // the file.
  void AddReader() const { readers_.fetch_add(1, std::memory_order_relaxed); }
  void DropReader() const;

 private:
  MappedFile(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  const uint8_t* data_;
  size_t size_;
  mutable std::atomic<int> readers_{0};
};

}  // namespace splitguard

#endif  // SPLITGUARD_TRIE_READER_H_
