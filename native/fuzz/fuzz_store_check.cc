// libFuzzer harness for the store walk (store_check.h), built by
// run_store_check.sh under AddressSanitizer and UndefinedBehaviorSanitizer.
// Every input is a candidate LMDB data file; the walk must answer without
// reading outside it, and a sound answer must name the newest meta's txnid.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "store_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const splitguard::StoreCheck r = splitguard::CheckLmdbFile(data, size, uint64_t{1} << 36);
  if (r.problem.empty()) {
    // Sound: both meta pages were read, and the txnid is the later one's.
    const size_t page = static_cast<size_t>(data[48]) | static_cast<size_t>(data[49]) << 8 |
                        static_cast<size_t>(data[50]) << 16 | static_cast<size_t>(data[51]) << 24;
    uint64_t a, b;
    std::memcpy(&a, data + 152, 8);
    std::memcpy(&b, data + page + 152, 8);
    if (r.txnid != (a >= b ? a : b)) {
      std::fprintf(stderr, "fuzz_store_check: a sound answer names txnid %llu\n", static_cast<unsigned long long>(r.txnid));
      std::abort();
    }
  }
  return 0;
}
