// CRC32C (Castagnoli, reflected polynomial 0x82F63B78), the trie file checksum.
#ifndef SPLITGUARD_CRC32C_H_
#define SPLITGUARD_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace splitguard {

// Continues a CRC: Crc32c(Crc32c(0, a), b) == Crc32c(0, a followed by b).
// Uses the SSE4.2 instruction when the CPU has it, a table otherwise.
uint32_t Crc32c(uint32_t crc, const uint8_t* data, size_t len);

}  // namespace splitguard

#endif  // SPLITGUARD_CRC32C_H_
