// A structural walk of an LMDB data file (the store's db/data.mdb), run
// before lmdb-js opens it. LMDB keeps no checksums and follows every page
// number, node offset and size it finds; a few damaged bytes in one page end
// the process with SIGSEGV or SIGBUS on the first read that reaches them.
// This walk reaches every page LMDB could follow from the meta page it would
// pick and checks what LMDB trusts there, so that a damaged store is refused
// with a message instead. Pure: no I/O, every byte of `file` distrusted.
#ifndef SPLITGUARD_STORE_CHECK_H_
#define SPLITGUARD_STORE_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace splitguard {

struct StoreCheck {
  // Empty when every page reachable from the meta page is sound; otherwise
  // what is wrong, naming the page and the database it belongs to.
  std::string problem;
  // The transaction of the meta page the walk followed: a caller that reads
  // a file another process may be writing compares it with the file's
  // newest afterwards (a commit meanwhile can reuse pages the walk read).
  uint64_t txnid = 0;
};

// `map_size` is the map the file will be opened with: a last page number
// past it and past the file is one LMDB could not map.
StoreCheck CheckLmdbFile(const uint8_t* file, size_t size, uint64_t map_size);

}  // namespace splitguard

#endif  // SPLITGUARD_STORE_CHECK_H_
