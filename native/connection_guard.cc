// See connection_guard.h. Every byte of a netlink answer is distrusted:
// message and attribute lengths are checked against what was received
// before anything is read, each loop is bounded, and an answer that does not
// add up is refused as a whole rather than half-used.
#include "connection_guard.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

namespace splitguard {
namespace {

struct StatusInfo {
  const char* name;
  const char* message;
};

// Indexed by GuardStatus. One line per failure class.
constexpr StatusInfo kStatusTable[] = {
    {"ok", "done"},
    {"connguard_netlink_open_failed", "the NETLINK_SOCK_DIAG socket could not be opened"},
    {"connguard_netlink_send_failed", "the socket listing request could not be sent to the kernel"},
    {"connguard_netlink_receive_failed", "the socket listing could not be received from the kernel"},
    {"connguard_netlink_timeout", "the kernel did not answer the socket listing request in time"},
    {"connguard_netlink_truncated", "a socket listing message was longer than the receive buffer"},
    {"connguard_netlink_error", "the kernel refused the socket listing request"},
    {"connguard_netlink_malformed", "the kernel's socket listing is malformed (a length does not add up)"},
    {"connguard_netlink_ended", "the kernel's socket listing ended before its end marker"},
    {"connguard_too_many_connections", "the socket listing is longer than the guard's bound"},
    {"connguard_fd_dir_failed", "/proc/self/fd could not be read"},
    {"connguard_reserve_failed", "the guard's reserved descriptor could not be set up"},
    {"connguard_rlimit_failed", "the open-file limit (RLIMIT_NOFILE) could not be read or raised"},
    {"connguard_invalid_port", "a listening port is outside 1-65535"},
};
static_assert(sizeof(kStatusTable) / sizeof(kStatusTable[0]) ==
                  static_cast<size_t>(GuardStatus::kStatusCount),
              "one table line per status");

// TCP states as sock_diag reports them (the kernel's include/net/tcp_states.h;
// part of the ABI through idiag_state and idiag_states). Not taken from
// netinet/tcp.h, whose struct tcp_info clashes with linux/tcp.h's and lacks
// tcpi_bytes_acked.
enum : uint8_t {
  kEstablished = 1,
  kSynSent = 2,
  kSynRecv = 3,
  kFinWait1 = 4,
  kFinWait2 = 5,
  kTimeWait = 6,
  kClose = 7,
  kCloseWait = 8,
  kLastAck = 9,
  kListen = 10,
  kClosing = 11,
};

// The states of a connection the server accepted (or is accepting) and that
// can still hold a descriptor. Not LISTEN (the listening sockets themselves),
// not TIME_WAIT (no socket left, only a timer), not SYN_SENT (outgoing).
constexpr uint32_t kStates = (1u << kEstablished) | (1u << kSynRecv) | (1u << kFinWait1) |
                             (1u << kFinWait2) | (1u << kCloseWait) | (1u << kLastAck) |
                             (1u << kClosing);

// One receive buffer: the kernel sizes dump datagrams to at most 32 KiB
// (and to what recv() asked for before), so 64 KiB never truncates one.
constexpr size_t kBufferSize = 64 * 1024;
// Receive calls per dump: each brings at least one message, so this bounds a
// dump at far more than kMaxConnections datagrams' worth; reached only if the
// kernel kept sending messages that are not ours.
constexpr size_t kMaxReceives = kMaxConnections;
// A blocked recv() gives up after this long (the kernel builds dump parts
// synchronously inside recv(), so a healthy answer is never near it).
constexpr int kReceiveTimeoutMs = 2000;
// EINTR retries per call; a signal storm is not a reason to loop forever.
constexpr int kMaxRetries = 64;
// Descriptors read from /proc/self/fd per call: more than any fd limit.
constexpr size_t kMaxFdEntries = size_t{1} << 24;

constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

// Parses "socket:[12345]" (a readlink of /proc/self/fd/N); false for anything else.
bool ParseSocketLink(const char* link, size_t len, uint64_t* inode) {
  static constexpr char kPrefix[] = "socket:[";
  constexpr size_t kPrefixLen = sizeof(kPrefix) - 1;
  if (len < kPrefixLen + 2 || std::memcmp(link, kPrefix, kPrefixLen) != 0 || link[len - 1] != ']')
    return false;
  uint64_t v = 0;
  size_t digits = 0;
  for (size_t i = kPrefixLen; i < len - 1; i++) {
    char c = link[i];
    if (c < '0' || c > '9' || ++digits > 19) return false;  // 19 digits cannot overflow 64 bits
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (digits == 0) return false;
  *inode = v;
  return true;
}

// A descriptor number from a /proc/self/fd entry name; -1 for "." and "..".
int ParseFdName(const char* name) {
  long v = 0;
  size_t i = 0;
  for (; name[i] != '\0'; i++) {
    if (name[i] < '0' || name[i] > '9' || i >= 10) return -1;
    v = v * 10 + (name[i] - '0');
  }
  return i == 0 || v > 0x7fffffff ? -1 : static_cast<int>(v);
}

// Reads the one ASCII integer in a small /proc file; 0 when absent or malformed.
uint64_t ReadProcNumber(const char* path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[32];
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return 0;
  uint64_t v = 0;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9' && i < 19; i++) v = v * 10 + (buf[i] - '0');
  return v;
}

// dup3 that survives EINTR and Linux's transient EBUSY (a racing open() on
// the target number).
int Dup3Retrying(int from, int to) {
  for (int i = 0; i < kMaxRetries; i++) {
    if (dup3(from, to, O_CLOEXEC) >= 0) return 0;
    if (errno != EINTR && errno != EBUSY) return -1;
  }
  return -1;
}

}  // namespace

const char* GuardStatusName(GuardStatus s) {
  auto i = static_cast<size_t>(s);
  return i < static_cast<size_t>(GuardStatus::kStatusCount) ? kStatusTable[i].name
                                                            : "connguard_unknown";
}

const char* GuardStatusMessage(GuardStatus s) {
  auto i = static_cast<size_t>(s);
  return i < static_cast<size_t>(GuardStatus::kStatusCount) ? kStatusTable[i].message
                                                            : "unknown connection guard status";
}

// ---------------------------------------------------------------------------
// Opening and closing

namespace {

int OpenNetlink(int* sys_errno) {
  int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0) {
    *sys_errno = errno;
    return -1;
  }
  timeval tv{};
  tv.tv_sec = kReceiveTimeoutMs / 1000;
  tv.tv_usec = (kReceiveTimeoutMs % 1000) * 1000;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0) {
    *sys_errno = errno;
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

GuardStatus ConnectionGuard::Open(std::unique_ptr<ConnectionGuard>* out, int* sys_errno) {
  *sys_errno = 0;
  out->reset();
  std::unique_ptr<ConnectionGuard> g(new ConnectionGuard());
  g->netlink_ = OpenNetlink(sys_errno);
  if (g->netlink_ < 0) return GuardStatus::kNetlinkOpenFailed;
  g->fd_dir_ = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (g->fd_dir_ < 0) {
    *sys_errno = errno;
    return GuardStatus::kFdDirFailed;
  }
  g->dev_null_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (g->dev_null_ < 0) {
    *sys_errno = errno;
    return GuardStatus::kReserveFailed;
  }
  g->reserved_ = fcntl(g->dev_null_, F_DUPFD_CLOEXEC, 0);
  if (g->reserved_ < 0) {
    *sys_errno = errno;
    return GuardStatus::kReserveFailed;
  }
  g->buffer_.resize(kBufferSize);
  *out = std::move(g);
  return GuardStatus::kOk;
}

ConnectionGuard::~ConnectionGuard() {
  for (int fd : {netlink_, fd_dir_, reserved_, dev_null_})
    if (fd >= 0) close(fd);
}

// ---------------------------------------------------------------------------
// /proc/self/fd

// Every descriptor of the process that is a socket, with its inode, except
// the guard's own. The directory descriptor is rewound, not reopened (no
// free descriptor needed); procfs lists the descriptor table as it is at
// each read.
GuardStatus ConnectionGuard::ReadFdDir(std::vector<std::pair<int, uint64_t>>* sockets,
                                       int* sys_errno) {
  sockets->clear();
  if (lseek(fd_dir_, 0, SEEK_SET) < 0) {
    *sys_errno = errno;
    return GuardStatus::kFdDirFailed;
  }
  // struct linux_dirent64 as getdents64(2) returns it.
  struct Dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    uint16_t d_reclen;
    uint8_t d_type;
  };
  constexpr size_t kNameOffset = offsetof(Dirent64, d_type) + 1;  // d_name follows d_type
  uint8_t* buf = buffer_.data();
  size_t entries = 0;
  for (;;) {
    long n = 0;
    int tries = 0;
    do {
      n = syscall(SYS_getdents64, fd_dir_, buf, buffer_.size());
    } while (n < 0 && errno == EINTR && ++tries < kMaxRetries);
    if (n < 0) {
      *sys_errno = errno;
      return GuardStatus::kFdDirFailed;
    }
    if (n == 0) return GuardStatus::kOk;
    size_t len = static_cast<size_t>(n);
    for (size_t off = 0; off < len;) {
      Dirent64 d;
      if (len - off < kNameOffset) return GuardStatus::kFdDirFailed;
      std::memcpy(&d, buf + off, sizeof(d) < len - off ? sizeof(d) : len - off);
      if (d.d_reclen <= kNameOffset || d.d_reclen > len - off) return GuardStatus::kFdDirFailed;
      // The name is NUL-terminated inside the record; bound the scan by the record.
      const char* name = reinterpret_cast<const char*>(buf + off + kNameOffset);
      size_t name_max = d.d_reclen - kNameOffset;
      off += d.d_reclen;
      if (memchr(name, '\0', name_max) == nullptr) return GuardStatus::kFdDirFailed;
      if (++entries > kMaxFdEntries) return GuardStatus::kTooManyConnections;
      int fd = ParseFdName(name);
      if (fd < 0 || fd == netlink_ || fd == fd_dir_ || fd == reserved_ || fd == dev_null_) continue;
      char link[64];
      // readlinkat needs no free descriptor. A descriptor closed since the
      // directory was read gives ENOENT: it is simply not there any more.
      ssize_t l = readlinkat(fd_dir_, name, link, sizeof(link));
      if (l <= 0 || static_cast<size_t>(l) >= sizeof(link)) continue;
      uint64_t inode;
      if (ParseSocketLink(link, static_cast<size_t>(l), &inode)) sockets->emplace_back(fd, inode);
    }
  }
}

// ---------------------------------------------------------------------------
// Parsing one datagram of the answer

// Messages follow each other, each aligned to 4 bytes:
//   nlmsghdr {len, type, flags, seq, pid}       len covers header + payload
//   payload (type SOCK_DIAG_BY_FAMILY):
//     inet_diag_msg {family, state, ..., sockid {sport, dport, src, dst, ...},
//                    expires, rqueue, wqueue, uid, inode}
//     rtattr {len, type} + data, repeated, each aligned to 4 bytes
//   NLMSG_DONE (payload: the dump's result, an int) ends the answer;
//   NLMSG_ERROR (payload: nlmsgerr) refuses the request.
GuardStatus ParseDiagDatagram(const uint8_t* buf, size_t len, uint32_t seq, int family,
                              const std::vector<bool>& port_set, std::vector<Connection>* out,
                              bool* done, int* sys_errno) {
  *done = false;
  if (port_set.size() < 65536) return GuardStatus::kInvalidPort;
  size_t off = 0;
  while (off < len) {
    // A message: a header, whose length covers itself and its payload and
    // lies inside what was received; the next one starts at the aligned end.
    if (len - off < sizeof(nlmsghdr)) return GuardStatus::kNetlinkMalformed;
    nlmsghdr h;
    std::memcpy(&h, buf + off, sizeof(h));
    if (h.nlmsg_len < sizeof(nlmsghdr) || h.nlmsg_len > len - off)
      return GuardStatus::kNetlinkMalformed;
    const uint8_t* payload = buf + off + NLMSG_HDRLEN;
    const size_t payload_len = h.nlmsg_len - NLMSG_HDRLEN;
    size_t step = NLMSG_ALIGN(h.nlmsg_len);
    off += step < len - off ? step : len - off;

    // Parts of an earlier, abandoned request: not this answer.
    if (h.nlmsg_seq != seq) continue;
    if (h.nlmsg_type == NLMSG_DONE) {
      // A dump's end marker carries the dump's own result; negative is an errno.
      int32_t result = 0;
      if (payload_len >= sizeof(result)) std::memcpy(&result, payload, sizeof(result));
      *done = true;
      if (result >= 0) return GuardStatus::kOk;
      *sys_errno = result > -4096 ? -result : 0;
      return GuardStatus::kNetlinkError;
    }
    if (h.nlmsg_type == NLMSG_ERROR) {
      nlmsgerr e;
      if (payload_len < sizeof(e)) return GuardStatus::kNetlinkMalformed;
      std::memcpy(&e, payload, sizeof(e));
      if (e.error == 0) continue;  // an acknowledgement, not an error
      *sys_errno = e.error < 0 && e.error > -4096 ? -e.error : 0;
      return GuardStatus::kNetlinkError;
    }
    if (h.nlmsg_type != SOCK_DIAG_BY_FAMILY) continue;

    inet_diag_msg m;
    if (payload_len < sizeof(m)) return GuardStatus::kNetlinkMalformed;
    std::memcpy(&m, payload, sizeof(m));
    if (m.idiag_family != family) return GuardStatus::kNetlinkMalformed;
    // The request's state mask is a filter the kernel applies; check it again.
    if (m.idiag_state >= 32 || ((1u << m.idiag_state) & kStates) == 0) continue;
    uint16_t local_port = ntohs(m.id.idiag_sport);
    if (!port_set[local_port]) continue;
    if (out->size() >= kMaxConnections) return GuardStatus::kTooManyConnections;

    Connection c;
    c.inode = m.idiag_inode;
    c.local_port = local_port;
    c.remote_port = ntohs(m.id.idiag_dport);
    c.state = m.idiag_state;
    c.send_queue = m.idiag_wqueue;
    c.receive_queue = m.idiag_rqueue;
    if (family == AF_INET) {
      std::memcpy(c.address, kMapped, 12);
      std::memcpy(c.address + 12, &m.id.idiag_dst[0], 4);  // network order, as it travels
    } else {
      std::memcpy(c.address, m.id.idiag_dst, 16);
    }

    // Attributes: each rtattr's length covers itself and lies inside the
    // payload; INET_DIAG_INFO is a struct tcp_info, of whatever length this
    // kernel writes (older kernels: shorter; newer: longer).
    size_t a = NLMSG_ALIGN(sizeof(inet_diag_msg));
    while (a < payload_len && payload_len - a >= sizeof(rtattr)) {
      rtattr attr;
      std::memcpy(&attr, payload + a, sizeof(attr));
      if (attr.rta_len < sizeof(rtattr) || attr.rta_len > payload_len - a)
        return GuardStatus::kNetlinkMalformed;
      if (attr.rta_type == INET_DIAG_INFO) {
        size_t info_len = attr.rta_len - RTA_LENGTH(0);
        tcp_info info;
        std::memset(&info, 0, sizeof(info));
        std::memcpy(&info, payload + a + RTA_LENGTH(0), std::min(info_len, sizeof(info)));
        if (info_len >= offsetof(tcp_info, tcpi_bytes_acked) + sizeof(info.tcpi_bytes_acked)) {
          c.has_tcp_info = true;
          c.bytes_acked = info.tcpi_bytes_acked;
          c.last_data_received_ms = info.tcpi_last_data_recv;
        }
      }
      size_t next = RTA_ALIGN(attr.rta_len);
      if (next >= payload_len - a) break;
      a += next;
    }
    out->push_back(c);
  }
  return GuardStatus::kOk;
}

// ---------------------------------------------------------------------------
// Listing

GuardStatus ConnectionGuard::List(const uint16_t* ports, size_t port_count,
                                  std::vector<Connection>* out, int* sys_errno) {
  *sys_errno = 0;
  out->clear();
  std::vector<bool> port_set(65536, false);
  for (size_t i = 0; i < port_count; i++) {
    if (ports[i] == 0) return GuardStatus::kInvalidPort;
    port_set[ports[i]] = true;
  }
  for (int family : {AF_INET, AF_INET6}) {
    GuardStatus s = Dump(family, port_set, out, sys_errno);
    if (s != GuardStatus::kOk) {
      out->clear();
      // The kernel may still hold the rest of this dump for the socket, and
      // would answer the next request with EBUSY or stale parts: start over
      // on a fresh socket (kept as is if none can be opened now).
      int unused = 0;
      int fresh = OpenNetlink(&unused);
      if (fresh >= 0) {
        close(netlink_);
        netlink_ = fresh;
      }
      return s;
    }
  }
  return GuardStatus::kOk;
}

GuardStatus ConnectionGuard::Dump(int family, const std::vector<bool>& port_set,
                                  std::vector<Connection>* out, int* sys_errno) {
  struct Request {
    nlmsghdr header;
    inet_diag_req_v2 body;
  } request;
  std::memset(&request, 0, sizeof(request));
  uint32_t seq = ++sequence_;
  request.header.nlmsg_len = sizeof(request);
  request.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  request.header.nlmsg_seq = seq;
  request.body.sdiag_family = static_cast<uint8_t>(family);
  request.body.sdiag_protocol = IPPROTO_TCP;
  request.body.idiag_states = kStates;
  request.body.idiag_ext = 1u << (INET_DIAG_INFO - 1);

  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  ssize_t sent = -1;
  for (int tries = 0; tries < kMaxRetries; tries++) {
    sent = sendto(netlink_, &request, sizeof(request), 0, reinterpret_cast<sockaddr*>(&kernel),
                  sizeof(kernel));
    if (sent >= 0 || errno != EINTR) break;
  }
  if (sent != static_cast<ssize_t>(sizeof(request))) {
    *sys_errno = sent < 0 ? errno : 0;
    return GuardStatus::kNetlinkSendFailed;
  }

  uint8_t* buf = buffer_.data();
  for (size_t receives = 0; receives < kMaxReceives; receives++) {
    sockaddr_nl from{};
    iovec iov{buf, buffer_.size()};
    msghdr msg{};
    msg.msg_name = &from;
    msg.msg_namelen = sizeof(from);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    ssize_t n = -1;
    for (int tries = 0; tries < kMaxRetries; tries++) {
      n = recvmsg(netlink_, &msg, 0);
      if (n >= 0 || errno != EINTR) break;
    }
    if (n < 0) {
      *sys_errno = errno;
      return errno == EAGAIN || errno == EWOULDBLOCK ? GuardStatus::kNetlinkTimeout
                                                     : GuardStatus::kNetlinkReceiveFailed;
    }
    if (n == 0) return GuardStatus::kNetlinkEnded;
    if (msg.msg_flags & MSG_TRUNC) return GuardStatus::kNetlinkTruncated;
    // Only the kernel (port id 0) answers dumps; anything else is not ours.
    if (msg.msg_namelen < sizeof(sockaddr_nl) || from.nl_pid != 0) continue;

    bool done = false;
    GuardStatus s = ParseDiagDatagram(buf, static_cast<size_t>(n), seq, family, port_set, out, &done,
                                      sys_errno);
    if (s != GuardStatus::kOk || done) return s;
  }
  return GuardStatus::kTooManyConnections;
}

// ---------------------------------------------------------------------------
// Shutting down

GuardStatus ConnectionGuard::Shutdown(const uint64_t* inodes, size_t inode_count,
                                      size_t* shut_down, int* sys_errno) {
  *sys_errno = 0;
  *shut_down = 0;
  if (reserved_ < 0) return GuardStatus::kReserveFailed;
  std::unordered_set<uint64_t> wanted(inodes, inodes + inode_count);
  wanted.erase(0);
  if (wanted.empty()) return GuardStatus::kOk;
  std::vector<std::pair<int, uint64_t>> sockets;
  GuardStatus s = ReadFdDir(&sockets, sys_errno);
  if (s != GuardStatus::kOk) return s;

  for (const auto& [fd, inode] : sockets) {
    if (wanted.count(inode) == 0) continue;
    // Take our own reference in the reserved slot (no free descriptor
    // needed). From here the socket cannot go away under us, and if `fd`
    // was closed and reused since the directory was read, the slot now
    // holds some other file, which the fstat below tells apart.
    if (Dup3Retrying(fd, reserved_) != 0) continue;  // EBADF: closed meanwhile
    struct stat st;
    int type = 0, listening = 0;
    socklen_t type_len = sizeof(type), listening_len = sizeof(listening);
    if (fstat(reserved_, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == inode &&
        getsockopt(reserved_, SOL_SOCKET, SO_TYPE, &type, &type_len) == 0 && type == SOCK_STREAM &&
        getsockopt(reserved_, SOL_SOCKET, SO_ACCEPTCONN, &listening, &listening_len) == 0 &&
        listening == 0) {
      linger l{};
      l.l_onoff = 1;
      l.l_linger = 0;
      setsockopt(reserved_, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
      // ENOTCONN: the connection had already ended; its owner will see that too.
      if (shutdown(reserved_, SHUT_RDWR) == 0 || errno == ENOTCONN) (*shut_down)++;
      wanted.erase(inode);  // once per socket, even if it has several descriptors
    }
    // Drop our reference: the slot goes back to /dev/null. Should that ever
    // fail, give the slot up rather than keep a socket alive.
    if (Dup3Retrying(dev_null_, reserved_) != 0) {
      *sys_errno = errno;
      close(reserved_);
      reserved_ = -1;
      return GuardStatus::kReserveFailed;
    }
    if (wanted.empty()) break;
  }
  return GuardStatus::kOk;
}

// ---------------------------------------------------------------------------
// The open-file limit

GuardStatus RaiseFileLimit(uint64_t* soft, uint64_t* hard, int* sys_errno) {
  *sys_errno = 0;
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) {
    *sys_errno = errno;
    return GuardStatus::kRlimitFailed;
  }
  rlim_t target = r.rlim_max;
  if (target == RLIM_INFINITY) {
    // Linux refuses a soft limit above fs.nr_open, "unlimited" included.
    uint64_t nr_open = ReadProcNumber("/proc/sys/fs/nr_open");
    target = nr_open ? static_cast<rlim_t>(nr_open) : static_cast<rlim_t>(1) << 20;
  }
  if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < target) {
    rlimit raised = r;
    raised.rlim_cur = target;
    if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
      *sys_errno = errno;
      return GuardStatus::kRlimitFailed;
    }
  }
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) {
    *sys_errno = errno;
    return GuardStatus::kRlimitFailed;
  }
  *soft = r.rlim_cur;
  *hard = r.rlim_max;
  return GuardStatus::kOk;
}

}  // namespace splitguard
