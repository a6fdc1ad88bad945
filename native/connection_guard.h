// The connection guard's system side: lists this process's TCP connections
// through NETLINK_SOCK_DIAG and shuts chosen ones down by socket inode. Pure
// C++ over Linux system calls, no N-API: the binding and the tests share it.
//
// Why from outside the server's event loops: uWebSockets.js has no
// per-connection hooks in JavaScript, so the main thread looks at the
// kernel's view of the connections (queues, bytes acknowledged, idle time)
// and, to end one, shuts the socket down under the owning loop's feet: that
// loop then sees EOF/HUP and closes the connection through its normal path.
//
// Working at the fd limit: the guard matters most when the process has no
// free descriptor left (accept fails with EMFILE). Everything it needs is
// therefore opened once, in Open(), and kept: the netlink socket, the
// /proc/self/fd directory (rewound and read again each time) and one
// reserved descriptor slot into which a socket is duplicated with dup3()
// (dup3 onto an open descriptor number needs no free slot, where
// fcntl(F_DUPFD_CLOEXEC) would fail with EMFILE exactly then).
//
// Not thread-safe: one object per thread (splitguard uses one, in the main
// thread). The sockets it acts on may be closed by other threads at any time;
// see Shutdown() for why that is safe.
#ifndef SPLITGUARD_CONNECTION_GUARD_H_
#define SPLITGUARD_CONNECTION_GUARD_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace splitguard {

// One status per failure class; names and messages live in one table in
// connection_guard.cc and reach JavaScript unchanged (error.code, message).
enum class GuardStatus : int {
  kOk = 0,
  kNetlinkOpenFailed,    // socket(AF_NETLINK, ..., NETLINK_SOCK_DIAG) refused (errno)
  kNetlinkSendFailed,    // the dump request could not be sent (errno)
  kNetlinkReceiveFailed, // recv() failed (errno)
  kNetlinkTimeout,       // the kernel did not answer within the receive timeout
  kNetlinkTruncated,     // a datagram was longer than the receive buffer
  kNetlinkError,         // the kernel answered NLMSG_ERROR (errno = its error)
  kNetlinkMalformed,     // a length or attribute in the answer does not add up
  kNetlinkEnded,         // the answer stopped before NLMSG_DONE
  kTooManyConnections,   // more than kMaxConnections sockets, or an answer too long
  kFdDirFailed,          // /proc/self/fd could not be opened or read (errno)
  kReserveFailed,        // the reserved descriptor slot could not be set up (errno)
  kRlimitFailed,         // getrlimit/setrlimit(RLIMIT_NOFILE) refused (errno)
  kInvalidPort,          // a port outside 1..65535
  kStatusCount
};

const char* GuardStatusName(GuardStatus s);     // stable code, e.g. "connguard_netlink_error"
const char* GuardStatusMessage(GuardStatus s);  // fixed English sentence

// A bound on everything one listing collects and reads: far above any fd
// limit splitguard would run with, small enough that a runaway answer cannot
// take the process's memory with it (a Connection is 56 bytes).
constexpr size_t kMaxConnections = size_t{1} << 22;

// One TCP connection as the kernel reports it. Queues are bytes; the kernel
// reports them as 32-bit values.
struct Connection {
  uint64_t inode = 0;        // socket inode; 0 until a process has accepted the connection
  uint8_t address[16] = {};  // the remote address; IPv4 as ::ffff:a.b.c.d
  uint16_t remote_port = 0;
  uint16_t local_port = 0;
  uint8_t state = 0;          // TCP_ESTABLISHED, TCP_CLOSE_WAIT, ... (netinet/tcp.h)
  bool has_tcp_info = false;  // the kernel sent INET_DIAG_INFO long enough for the fields below
  uint32_t send_queue = 0;    // idiag_wqueue: written by the server, not yet acknowledged
  uint32_t receive_queue = 0; // idiag_rqueue: received, not yet read by the server
  uint64_t bytes_acked = 0;   // tcpi_bytes_acked: sent bytes the client has acknowledged
  uint32_t last_data_received_ms = 0;  // tcpi_last_data_recv: ms since data last arrived
};

class ConnectionGuard {
 public:
  // Opens the netlink socket, /proc/self/fd and the reserved slot. On failure
  // *out is left empty and *sys_errno says why.
  static GuardStatus Open(std::unique_ptr<ConnectionGuard>* out, int* sys_errno);
  ~ConnectionGuard();
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // The TCP connections (IPv4 and IPv6) whose local port is one of `ports`,
  // in every state that can hold a descriptor (not LISTEN, not TIME_WAIT).
  // A connection that waits in a listen queue (SYN_RECV, or established by
  // the kernel and not yet accept()ed) has no socket inode yet: inode 0.
  // Reads only the netlink answer (no walk of /proc/self/fd: at 16,000
  // descriptors that walk alone takes ~70 ms). *out is replaced.
  GuardStatus List(const uint16_t* ports, size_t port_count, std::vector<Connection>* out,
                   int* sys_errno);

  // Shuts down every socket of this process whose inode is in `inodes`:
  // SO_LINGER {1, 0} (the last close then resets the connection and frees
  // the socket at once, rather than leaving an orphan with a full send
  // queue) and shutdown(SHUT_RDWR). The owning event loop sees EOF/HUP and
  // closes its descriptor through its normal path.
  //
  // Race-free against the owner closing the descriptor meanwhile: the socket
  // is first duplicated into the reserved slot, and the duplicate is checked
  // (fstat: a socket with that inode; a stream socket; not listening) before
  // anything is done to it. A descriptor number closed and reused since the
  // directory was read names another file and is left alone; a socket closed
  // since keeps nothing to act on. A stale inode does nothing. (Closing the
  // duplicate of such another file would drop this process's POSIX record
  // locks on it, fcntl(2)'s rule for any descriptor closed; in splitguard only
  // LMDB holds such locks, on a file opened before the guard starts, so no
  // socket's number can be reused for it.)
  // *shut_down counts the sockets shut down.
  GuardStatus Shutdown(const uint64_t* inodes, size_t inode_count, size_t* shut_down,
                       int* sys_errno);

 private:
  ConnectionGuard() = default;
  GuardStatus ReadFdDir(std::vector<std::pair<int, uint64_t>>* sockets, int* sys_errno);
  GuardStatus Dump(int family, const std::vector<bool>& port_set, std::vector<Connection>* out,
                   int* sys_errno);

  int netlink_ = -1;
  int fd_dir_ = -1;    // O_DIRECTORY descriptor on /proc/self/fd, rewound for each read
  int reserved_ = -1;  // the slot sockets are duplicated into; holds /dev/null between uses
  int dev_null_ = -1;  // what the slot is reset to
  uint32_t sequence_ = 0;
  std::vector<uint8_t> buffer_;
};

// Parses one datagram of a sock_diag dump answer, the bytes one recv()
// returned, for the request numbered `seq` over `family` (AF_INET or
// AF_INET6): appends the connections whose local port is set in `port_set`
// (65536 entries) to *out, and sets *done when the answer's NLMSG_DONE was
// in it. Messages of other requests are skipped; any length that does not
// add up refuses the datagram as a whole. Used by List(); on its own for the
// fuzz harness (native/fuzz/fuzz_sock_diag.cc).
GuardStatus ParseDiagDatagram(const uint8_t* data, size_t len, uint32_t seq, int family,
                              const std::vector<bool>& port_set, std::vector<Connection>* out,
                              bool* done, int* sys_errno);

// Raises the soft RLIMIT_NOFILE to the hard limit (to fs.nr_open when the
// hard limit is unlimited) and reports both afterwards.
GuardStatus RaiseFileLimit(uint64_t* soft, uint64_t* hard, int* sys_errno);

}  // namespace splitguard

#endif  // SPLITGUARD_CONNECTION_GUARD_H_
