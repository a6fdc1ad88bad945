// libFuzzer harness for the connection guard's netlink parser: any bytes as
// one datagram of a sock_diag dump answer must give a status, never a crash,
// an out-of-bounds read (AddressSanitizer) or undefined behaviour, and what
// it returns must hold together.
//
// Input: byte 0 picks the family (odd: AF_INET6, even: AF_INET), the rest is
// the datagram, copied to a buffer of exactly its size so that a read past
// its end is caught.
#include <sys/socket.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "connection_guard.h"

using splitguard::Connection;
using splitguard::GuardStatus;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const std::vector<bool> kAllPorts(65536, true);
  const int family = (data[0] & 1) ? AF_INET6 : AF_INET;
  std::vector<uint8_t> datagram(data + 1, data + size);
  std::vector<Connection> out;
  bool done = false;
  int sys_errno = 0;
  GuardStatus s = splitguard::ParseDiagDatagram(datagram.data(), datagram.size(), 1, family,
                                                kAllPorts, &out, &done, &sys_errno);
  if (static_cast<int>(s) < 0 || s >= GuardStatus::kStatusCount) abort();
  if (sys_errno < 0 || sys_errno >= 4096) abort();
  // Every message is at least 16 bytes + a 72-byte inet_diag_msg.
  if (out.size() > datagram.size() / 88) abort();
  static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  for (const Connection& c : out) {
    if (family == AF_INET && std::memcmp(c.address, kMapped, 12) != 0) abort();
    if (c.state == 0 || c.state == 6 || c.state == 10 || c.state > 11) abort();  // none, TIME_WAIT, LISTEN
  }
  return 0;
}
