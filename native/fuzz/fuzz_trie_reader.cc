// libFuzzer harness for the trie reader (trie_reader.h), built by run.sh
// under AddressSanitizer and UndefinedBehaviorSanitizer.
//
// Every input is a candidate trie file. The checksum is not verified, so that
// mutated inputs reach the structural checks instead of stopping at the CRC.
// Besides "no crash, no out-of-bounds read, no UB", it checks:
//   * every status is one of the table's (no "ipdb_unknown");
//   * verifying the checksum too changes the answer only to a checksum
//     mismatch (the CRC is one more check, never a substitute for another);
//   * on a file that validates, Lookup4 / Lookup16 return an existing record,
//     agree with a plain linear walk of the same trie (which finds nodes
//     through NODES and uses neither DIR nor the search), and send
//     ::ffff:a.b.c.d to the IPv4 trie;
//     LookupBatch4 / LookupBatch16 over all the addresses checked (a count
//     that is rarely a multiple of the lane count) give the same answers.
// A failed check aborts, which libFuzzer reports as a crash.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "trie_reader.h"

namespace {

using splitguard::Status;
using splitguard::TrieView;

void Fail(const char* what) {
  std::fprintf(stderr, "fuzz_trie_reader: %s\n", what);
  std::abort();
}

// The last key <= w in the node inner entry e names, by linear scans: the
// node whose DIR position the entry carries, then its keys.
int32_t ReferenceStep(const TrieView& v, int32_t e, uint32_t w) {
  const uint32_t p = ~static_cast<uint32_t>(e) >> splitguard::kShiftBits;
  uint32_t n = 0;
  while (n < v.nodes && v.nodes_table[2 * n + 1] != p) n++;
  if (n == v.nodes) Fail("an inner entry names no node on a validated trie");
  uint32_t lo = v.nodes_table[2 * n];
  uint32_t hi = v.nodes_table[2 * n + 2];
  int32_t found = v.values[lo];
  for (uint32_t i = lo + 1; i < hi && v.keys[i] <= w; i++) found = v.values[i];
  return found;
}

// Record of a 16-byte address (IPv4-mapped included) by the reference walk.
uint32_t ReferenceLookup(const TrieView& v, const uint8_t a[16]) {
  static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
  const bool v4 = std::memcmp(a, kMapped, 12) == 0;
  const uint8_t* w = v4 ? a + 12 : a;
  const int words = v4 ? 2 : 8;
  int32_t e = (v4 ? v.root4 : v.root6)[(uint32_t{w[0]} << 8) | w[1]];
  for (int i = 1; e < 0 && i < words; i++) {
    e = ReferenceStep(v, e, (uint32_t{w[2 * i]} << 8) | w[2 * i + 1]);
  }
  // A validated trie has no node below the last word and no leaf past the
  // record table: either would be a validation gap.
  if (e < 0) Fail("the walk ran out of words on a validated trie");
  if (static_cast<uint32_t>(e) >= v.records) Fail("a leaf past the record table on a validated trie");
  return static_cast<uint32_t>(e);
}

// Every address checked one by one, with its answer, for the batch pass.
struct Checked {
  std::vector<uint8_t> addrs;  // 16 bytes each
  std::vector<uint32_t> records;
  std::vector<uint32_t> ips;  // the IPv4 ones as integers
  std::vector<uint32_t> ip_records;
};

void CheckAddress(const TrieView& v, const uint8_t a[16], Checked* c) {
  uint32_t got = splitguard::Lookup16(v, a);
  if (got >= v.records) Fail("Lookup16 returned a record past the table");
  if (got != ReferenceLookup(v, a)) Fail("Lookup16 disagrees with the linear walk");
  c->addrs.insert(c->addrs.end(), a, a + 16);
  c->records.push_back(got);
}

void CheckIPv4(const TrieView& v, uint32_t ip, Checked* c) {
  uint8_t a[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF,
                   static_cast<uint8_t>(ip >> 24), static_cast<uint8_t>(ip >> 16),
                   static_cast<uint8_t>(ip >> 8), static_cast<uint8_t>(ip)};
  uint32_t got = splitguard::Lookup4(v, ip);
  if (got != splitguard::Lookup16(v, a)) Fail("Lookup4 and Lookup16 disagree on ::ffff:a.b.c.d");
  CheckAddress(v, a, c);
  c->ips.push_back(ip);
  c->ip_records.push_back(got);
}

void CheckBatches(const TrieView& v, const Checked& c) {
  // Poisoned, so that a slot the batch never writes cannot pass by accident.
  std::vector<uint32_t> out(c.records.size(), 0xDEADBEEF);
  splitguard::LookupBatch16(v, c.addrs.data(), c.records.size(), out.data());
  if (out != c.records) Fail("LookupBatch16 disagrees with Lookup16");
  std::vector<uint32_t> out4(c.ips.size(), 0xDEADBEEF);
  splitguard::LookupBatch4(v, c.ips.data(), c.ips.size(), out4.data());
  if (out4 != c.ip_records) Fail("LookupBatch4 disagrees with Lookup4");
}

void CheckLookups(const TrieView& v, const uint8_t* data, size_t size) {
  Checked checked;
  Checked* c = &checked;
  static const uint32_t kFixed4[] = {0, 0xFFFFFFFFu, 0x01000001u, 0x08080808u, 0x0A144009u, 0xAC100A07u};
  for (uint32_t ip : kFixed4) CheckIPv4(v, ip, c);
  static const uint8_t kFixed6[][16] = {
      {},
      {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF},
      {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
      {0x2a, 0x00, 0x14, 0x50, 0x40, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5},
  };
  for (const auto& a : kFixed6) CheckAddress(v, a, c);

  // The file's own range edges, where a wrong search would show: each start
  // and the address just below it (at most 64 of each family).
  for (uint32_t i = 0; i < v.v4_ranges && i < 64; i++) {
    uint32_t start = v.v4_starts[i];
    CheckIPv4(v, start, c);
    CheckIPv4(v, start - 1, c);
  }
  for (uint32_t i = 0; i < v.v6_ranges && i < 64; i++) {
    uint8_t a[16];
    std::memcpy(a, v.v6_starts + 16 * i, 16);
    CheckAddress(v, a, c);
    for (int k = 15; k >= 0 && a[k]-- == 0; k--) {
    }
    CheckAddress(v, a, c);
  }

  // Addresses taken from the input itself, spread over it.
  if (size >= 16) {
    for (size_t k = 0; k < 8; k++) {
      const uint8_t* p = data + (size - 16) / 8 * k;
      CheckAddress(v, p, c);
      uint32_t ip;
      std::memcpy(&ip, p, 4);
      CheckIPv4(v, ip, c);
    }
  }
  CheckBatches(v, checked);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Validate needs 8-byte alignment (a mapping is page-aligned); libFuzzer's
  // buffer has none. malloc aligns to 16 and, unlike a rounded-up buffer,
  // lets AddressSanitizer catch a read even one byte past the input.
  std::unique_ptr<uint8_t, decltype(&std::free)> copy(static_cast<uint8_t*>(std::malloc(size ? size : 1)), &std::free);
  uint8_t* buf = copy.get();
  if (buf == nullptr || reinterpret_cast<uintptr_t>(buf) % 8 != 0) Fail("no aligned buffer");
  if (size > 0) std::memcpy(buf, data, size);

  splitguard::ValidateOptions structure_only;
  structure_only.verify_checksum = false;
  TrieView view;
  Status s = splitguard::Validate(buf, size, structure_only, &view);
  if (std::strcmp(splitguard::StatusName(s), "ipdb_unknown") == 0) Fail("a status outside the table");

  splitguard::ValidateOptions with_checksum;
  TrieView checked;
  Status c = splitguard::Validate(buf, size, with_checksum, &checked);
  if (c != s && c != Status::kChecksumMismatch) Fail("the checksum pass changed the structural verdict");

  if (size > 0 && splitguard::Validate(buf + 1, size - 1, structure_only, &checked) != Status::kMisaligned) {
    Fail("a misaligned buffer was not refused");
  }

  if (s == Status::kOk) CheckLookups(view, buf, size);
  return 0;
}
