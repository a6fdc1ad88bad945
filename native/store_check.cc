// The layout walked here is that of lmdb-js 3.5.6's LMDB (the mdb.master3
// line: node_modules/lmdb/dependencies/lmdb/libraries/liblmdb/mdb.c, data
// format 2), 64-bit, little-endian. Offsets in bytes:
//
//   page header (PAGEHDRSZ = 24)
//     pgno u64 @0     the page's own number (mdb_page_alloc writes it)
//     txnid u64 @8    the transaction that wrote it; never later than the meta's
//     pad u16 @16     key size on a LEAF2 page
//     flags u16 @18   P_BRANCH 0x01, P_LEAF 0x02, P_OVERFLOW 0x04, P_META 0x08,
//                     P_LEAF2 0x20, P_SUBP 0x40
//     lower u16 @20, upper u16 @22   free space, both counted from byte 24;
//                     lower / 2 is the number of nodes, whose offsets (u16,
//                     also from byte 24) follow the header
//     pages u32 @20   on an overflow page instead: how many pages it spans
//   meta (page 0 or 1, from byte 24 of the page)
//     magic u32 @24, version u32 @28, address @32, mapsize @40,
//     dbs[2] @48 and @96 (FREE_DBI, MAIN_DBI), last_pg u64 @144, txnid u64 @152
//   MDB_db (48 bytes): pad u32 @0, flags u16 @4, depth u16 @6, page and entry
//     counts @8..@39, root u64 @40 (~0: an empty tree)
//   node (NODESIZE = 8): lo u16 @0, hi u16 @2, flags u16 @4, ksize u16 @6,
//     then the key, then (leaves) the value.
//     branch: the child's page number is lo | hi << 16 | flags << 32
//     leaf: the value's size is lo | hi << 16; flags F_BIGDATA 0x01 (the value
//     is an MDB_ovpage {pgno u64, txnid u64, pages u64} naming an overflow
//     run), F_SUBDATA 0x02 (an MDB_db: a named database in MAIN_DBI, or a
//     duplicate tree with F_DUPDATA), F_DUPDATA 0x04 (duplicates: a sub-page
//     image inside the value, or with F_SUBDATA a tree)
//
// LMDB picks the meta page with the later txnid (ties: page 0) when, as
// splitguard opens it, overlappingSync is off. Every page reachable from it
// must lie inside the file at or below last_pg, be reached once, carry its
// own number, a txnid no later than the meta's (a later one makes LMDB take a
// clean page for one its write transaction may change in place: the map is
// read-only) and the kind its parent expects, and keep every node it points
// at inside itself; an overflow run must be at least as long as its value
// needs (longer is sound: see Overflow). Also refused: a meta transaction
// number near 2^64, a last page past both the file and the map, flags on the
// main tree (REVERSEKEY there makes LMDB read every name as missing), and a
// free-list record whose count runs past its value. What is not checked: the
// order of keys (a damaged order misleads searches but reads nothing outside
// the map), the page and entry counts, and the page numbers in the free list
// (LMDB reuses them for writes; a damaged one can make a commit fail or
// overwrite a live page, not read outside the map).
#include "store_check.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace splitguard {
namespace {

constexpr size_t kPageHeader = 24;
constexpr size_t kNodeHeader = 8;
constexpr size_t kDbRecord = 48;
constexpr size_t kOverflowRef = 24;
constexpr uint64_t kNoPage = ~uint64_t{0};
constexpr unsigned kMaxDepth = 32;  // LMDB's CURSOR_STACK

constexpr uint16_t P_BRANCH = 0x01, P_LEAF = 0x02, P_OVERFLOW = 0x04, P_META = 0x08, P_LEAF2 = 0x20, P_SUBP = 0x40;
constexpr uint16_t kKindBits = P_BRANCH | P_LEAF | P_OVERFLOW | P_META | P_LEAF2 | P_SUBP;
constexpr uint16_t F_BIGDATA = 0x01, F_SUBDATA = 0x02, F_DUPDATA = 0x04;
constexpr uint16_t MDB_DUPSORT = 0x04, MDB_DUPFIXED = 0x10;

uint16_t U16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
uint32_t U32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t U64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Which tree a page belongs to: what its leaves may hold.
enum class Tree { kFree, kMain, kNamed, kDuplicates };

// What the walk knows of the tree it is in, from the MDB_db record that names it.
struct TreeOf {
  Tree tree;
  uint16_t flags;      // md_flags: MDB_DUPSORT, MDB_DUPFIXED, ...
  uint32_t fixed_key;  // md_pad: the key size of a duplicate tree's LEAF2 pages (LMDB reads it here, not from the page)
  const std::string* name;
};

class Walker {
 public:
  Walker(const uint8_t* file, size_t size, size_t page_size, uint64_t last_pg, uint64_t txnid)
      : file_(file), page_size_(page_size), pages_(size / page_size), last_pg_(last_pg), txnid_(txnid),
        seen_((pages_ + 63) / 64, 0) {}

  const std::string& problem() const { return problem_; }

  // Walks the tree an MDB_db record describes; false once a problem is found.
  bool WalkTree(const uint8_t* db, Tree tree, const std::string& name) {
    const TreeOf of{tree, U16(db + 4), U32(db), &name};
    const unsigned depth = U16(db + 6);
    const uint64_t root = U64(db + 40);
    if (tree == Tree::kMain && of.flags != 0) return Fail(name, "carries flags LMDB never gives it");
    if (tree == Tree::kDuplicates && (of.flags & MDB_DUPFIXED) && of.fixed_key == 0) return Fail(name, "holds fixed-size duplicates of no size");
    if (root == kNoPage) return depth == 0 || Fail(name, "is empty but names a depth");
    if (depth == 0 || depth > kMaxDepth) return Fail(name, "names a depth LMDB cannot follow");
    return Visit(root, depth, of);
  }

 private:
  bool Fail(const std::string& name, const char* what) {
    problem_ = "database '" + name + "' " + what;
    return false;
  }
  bool FailPage(uint64_t pgno, const TreeOf& of, const char* what) {
    problem_ = "page " + std::to_string(pgno) + " (database '" + *of.name + "') " + what;
    return false;
  }
  bool FailNode(uint64_t pgno, const TreeOf& of, size_t node, const char* what) {
    problem_ = "page " + std::to_string(pgno) + " (database '" + *of.name + "'), node " + std::to_string(node) + ": " + what;
    return false;
  }

  // Claims pages [pgno, pgno + count): inside the file, at or below last_pg,
  // not claimed before. Written so that no sum can wrap around 2^64.
  bool Claim(uint64_t pgno, uint64_t count, const TreeOf& of) {
    if (pgno < 2 || count == 0 || pgno >= pages_ || count > pages_ - pgno || pgno > last_pg_ || count - 1 > last_pg_ - pgno) {
      return FailPage(pgno, of, "lies outside the file");
    }
    for (uint64_t p = pgno; p < pgno + count; p++) {
      uint64_t& word = seen_[p / 64];
      const uint64_t bit = uint64_t{1} << (p % 64);
      if (word & bit) return FailPage(pgno, of, "is reached twice");
      word |= bit;
    }
    return true;
  }

  // The header every page LMDB reads as a page carries: its own number and a transaction no later than the store's.
  bool OwnPage(const uint8_t* page, uint64_t pgno, const TreeOf& of) {
    if (U64(page) != pgno) return FailPage(pgno, of, "holds another page's number");
    if (U64(page + 8) > txnid_) return FailPage(pgno, of, "belongs to a later transaction than the store's");
    return true;
  }

  bool Visit(uint64_t pgno, unsigned level, const TreeOf& of) {
    if (!Claim(pgno, 1, of)) return false;
    const uint8_t* page = file_ + pgno * page_size_;
    if (!OwnPage(page, pgno, of)) return false;
    const uint16_t kind = U16(page + 18) & kKindBits;
    if (level > 1) {
      if (kind != P_BRANCH) return FailPage(pgno, of, "is not the branch page its parent names");
    } else if (kind != P_LEAF && !(kind == (P_LEAF | P_LEAF2) && of.tree == Tree::kDuplicates && (of.flags & MDB_DUPFIXED))) {
      return FailPage(pgno, of, "is not the leaf page its parent names");
    }
    return Nodes(page, page_size_, pgno, level, of, of.fixed_key);
  }

  // The nodes of a branch or leaf page image of `size` bytes (a page of the
  // file, or a duplicate sub-page inside a value); `fixed_key` is the key
  // size LMDB takes for it if it is a LEAF2 page.
  bool Nodes(const uint8_t* page, size_t size, uint64_t pgno, unsigned level, const TreeOf& of, size_t fixed_key) {
    const size_t lower = U16(page + 20), upper = U16(page + 22);
    const size_t room = size - kPageHeader;
    if (lower % 2 != 0 || lower > upper || upper > room) return FailPage(pgno, of, "has its free space bounds out of order");
    const size_t count = lower / 2;
    if (U16(page + 18) & P_LEAF2) {
      if (fixed_key == 0 || count * fixed_key > room) return FailPage(pgno, of, "holds fixed-size keys that run past it");
      return true;
    }
    if (level > 1 && count == 0) return FailPage(pgno, of, "is a branch page with no children");
    for (size_t i = 0; i < count; i++) {
      const size_t at = U16(page + kPageHeader + 2 * i);
      if (at < upper || at > room || room - at < kNodeHeader) return FailNode(pgno, of, i, "lies outside the page");
      const uint8_t* node = page + kPageHeader + at;
      const size_t key = U16(node + 6);
      if (key > room - at - kNodeHeader) return FailNode(pgno, of, i, "its key runs past the page");
      const size_t left = room - at - kNodeHeader - key;  // bytes after the key
      if (level > 1) {
        const uint64_t child = U16(node) | uint64_t{U16(node + 2)} << 16 | uint64_t{U16(node + 4)} << 32;
        if (!Visit(child, level - 1, of)) return false;
        continue;
      }
      if (!Value(node, left, pgno, i, of)) return false;
    }
    return true;
  }

  bool Value(const uint8_t* node, size_t left, uint64_t pgno, size_t i, const TreeOf& of) {
    const uint16_t flags = U16(node + 4);
    const size_t size = U16(node) | size_t{U16(node + 2)} << 16;
    const uint8_t* value = node + kNodeHeader + U16(node + 6);
    if (flags & ~(F_BIGDATA | F_SUBDATA | F_DUPDATA)) return FailNode(pgno, of, i, "has flags LMDB never writes");
    if (flags & F_BIGDATA) {
      if (flags != F_BIGDATA) return FailNode(pgno, of, i, "has flags LMDB never writes together");
      if (left < kOverflowRef) return FailNode(pgno, of, i, "its value runs past the page");
      const uint8_t* data = Overflow(U64(value), U64(value + 8), U64(value + 16), size, pgno, i, of);
      return data != nullptr && (of.tree != Tree::kFree || FreeRecord(data, size, pgno, i, of));
    }
    if (size > left) return FailNode(pgno, of, i, "its value runs past the page");
    if (of.tree == Tree::kFree) {
      if (flags != 0) return FailNode(pgno, of, i, "has flags LMDB never writes in the free list");
      return FreeRecord(value, size, pgno, i, of);
    }
    const bool duplicates = (flags & F_DUPDATA) != 0;
    if (duplicates && (of.tree == Tree::kDuplicates || !(of.flags & MDB_DUPSORT))) {
      return FailNode(pgno, of, i, "holds duplicates in a database that keeps none");
    }
    if (flags & F_SUBDATA) {
      if (size != kDbRecord) return FailNode(pgno, of, i, "holds a database record of the wrong size");
      if (duplicates) return WalkTree(value, Tree::kDuplicates, *of.name);
      if (of.tree != Tree::kMain) return FailNode(pgno, of, i, "names a database outside the main one");
      const uint8_t* key = node + kNodeHeader;
      std::string child;
      // lmdb-js stores a name with its terminating NUL.
      for (size_t k = 0; k < U16(node + 6) && k < 40 && key[k] != 0; k++) child += (key[k] >= 0x20 && key[k] < 0x7f) ? static_cast<char>(key[k]) : '?';
      return WalkTree(value, Tree::kNamed, child);
    }
    if (duplicates) {
      // A sub-page: a leaf page image of `size` bytes with its own header,
      // whose LEAF2 key size LMDB takes from the sub-page itself.
      if (size < kPageHeader) return FailNode(pgno, of, i, "holds a duplicate page shorter than its header");
      const uint16_t kind = U16(value + 18) & kKindBits;
      const bool fixed = kind == (P_LEAF | P_LEAF2 | P_SUBP) && (of.flags & MDB_DUPFIXED);
      if (kind != (P_LEAF | P_SUBP) && !fixed) return FailNode(pgno, of, i, "holds a duplicate page of the wrong kind");
      const TreeOf sub{Tree::kDuplicates, of.flags, U16(value + 16), of.name};
      return Nodes(value, size, pgno, 1, sub, sub.fixed_key);
    }
    return true;
  }

  // A free-list record: a count, then that many page numbers (u64 each);
  // LMDB reads the count and trusts it when it reuses pages.
  bool FreeRecord(const uint8_t* data, size_t size, uint64_t pgno, size_t i, const TreeOf& of) {
    if (size < 8 || U64(data) > size / 8 - 1) return FailNode(pgno, of, i, "holds a free-page list longer than its value");
    return true;
  }

  // The F_BIGDATA value of `size` bytes on the overflow run a node names:
  // its bytes, or null once a problem is found.
  const uint8_t* Overflow(uint64_t first, uint64_t txnid, uint64_t count, size_t size, uint64_t pgno, size_t i, const TreeOf& of) {
    const uint64_t needed = (kPageHeader - 1 + size) / page_size_ + 1;  // LMDB's OVPAGES
    // A longer run is sound: mdb_cursor_put overwrites a run its own
    // transaction wrote with a smaller value in place, keeping the length.
    if (count < needed) return FailNode(pgno, of, i, "names an overflow run too short for its value"), nullptr;
    if (txnid > txnid_) return FailNode(pgno, of, i, "names an overflow run of a later transaction than the store's"), nullptr;
    if (!Claim(first, count, of)) return nullptr;
    const uint8_t* page = file_ + first * page_size_;
    if (!OwnPage(page, first, of)) return nullptr;
    if ((U16(page + 18) & kKindBits) != P_OVERFLOW || U32(page + 20) != count) {
      return FailPage(first, of, "is not the overflow run its node names"), nullptr;
    }
    return page + kPageHeader;
  }

  const uint8_t* file_;
  const size_t page_size_;
  const uint64_t pages_;
  const uint64_t last_pg_;
  const uint64_t txnid_;
  std::vector<uint64_t> seen_;
  std::string problem_;
};

}  // namespace

StoreCheck CheckLmdbFile(const uint8_t* file, size_t size, uint64_t map_size) {
  StoreCheck out;
  if (size < kPageHeader + 160) {
    out.problem = "it is shorter than LMDB's meta page";
    return out;
  }
  const size_t page_size = U32(file + 48);
  if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0) {
    out.problem = "its page size is not one LMDB writes";
    return out;
  }
  if (size / page_size < 2) {
    out.problem = "it is too short for its two meta pages";
    return out;
  }
  const uint8_t* metas[2] = {file, file + page_size};
  for (const uint8_t* m : metas) {
    if (!(U16(m + 18) & P_META) || U32(m + 24) != 0xBEEFC0DE) {
      out.problem = "a meta page is damaged";
      return out;
    }
  }
  const uint8_t* meta = U64(metas[0] + 152) >= U64(metas[1] + 152) ? metas[0] : metas[1];
  out.txnid = U64(meta + 152);
  const uint64_t last_pg = U64(meta + 144);
  // LMDB's transaction numbers only grow; near 2^64 they wrap, and LMDB with them.
  if (out.txnid >= uint64_t{1} << 63) {
    out.problem = "its meta page names a transaction number LMDB never reaches";
    return out;
  }
  // LMDB maps at least up to last_pg when it opens the file: past both the
  // file and the map it would be given, that map cannot be made.
  if (last_pg >= std::max<uint64_t>(size, map_size) / page_size) {
    out.problem = "its meta page names a last page past the file and the map";
    return out;
  }
  Walker walker(file, size, page_size, last_pg, out.txnid);
  if (!walker.WalkTree(meta + 48, Tree::kFree, "(free pages)") || !walker.WalkTree(meta + 96, Tree::kMain, "(main)")) {
    out.problem = walker.problem();
  }
  return out;
}

}  // namespace splitguard
