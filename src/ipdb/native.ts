// The only module that loads the native addon. Everything else reaches the
// trie through database.ts, and the connection guard through
// http/connection-guard.ts.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { AppError } from '../errors.js';

interface SectionInfo {
  offset: number;
  size: number;
}

export interface NativeInfo {
  formatVersion: number;
  buildTimeMs: number;
  size: number;
  checksum: number;
  v4Ranges: number;
  v6Ranges: number;
  nodes: number;
  entries: number;
  records: number;
  dirCount: number;
  feedCount: number;
  stringBytes: number;
  sourceOffset: number;
  sourceLength: number;
  versionOffset: number;
  versionLength: number;
  sections: SectionInfo[];
}

export interface NativeTrie {
  /** An ArrayBuffer over the read-only mapping; it keeps the mapping alive. Never write to it. */
  buffer(): ArrayBuffer;
  info(): NativeInfo;
  lookup(address: Uint8Array): number;
  lookupBatch4(ips: Uint32Array, out: Uint32Array): void;
  lookupBatch16(addresses: Uint8Array, out: Uint32Array): void;
  close(): void;
}

/** One TCP connection as the kernel lists it (native/connection_guard.h). */
export interface NativeConnection {
  /** The socket's inode: what shutdown() takes; 0 while the connection waits in a listen queue (not accepted yet). */
  inode: number;
  /** The remote address as text: dotted IPv4 (also for IPv4-mapped IPv6), else IPv6. */
  address: string;
  /** The remote port. */
  port: number;
  localPort: number;
  /** The kernel's TCP state: 1 ESTABLISHED, 3 SYN_RECV, 8 CLOSE_WAIT, ... */
  state: number;
  /** Bytes written by the server and not yet acknowledged by the client. */
  sendQueue: number;
  /** Bytes received and not yet read by the server. */
  receiveQueue: number;
  /** tcpi_bytes_acked; -1 when the kernel gave no tcp_info. */
  bytesAcked: number;
  /** tcpi_last_data_recv: milliseconds since data last arrived; -1 when the kernel gave no tcp_info. */
  lastReceiveMs: number;
}

/** Lists and shuts down this process's TCP connections; keeps its descriptors open until close(). */
export interface NativeConnectionGuard {
  /** The connections whose local port is one of `ports`. Throws (code connguard_...) when the kernel's answer is unusable. */
  list(ports: number[]): NativeConnection[];
  /** Shuts down the sockets of this process with these inodes (RST on close); returns how many. A stale inode is skipped. */
  shutdown(inodes: number[]): number;
  close(): void;
}

interface Binding {
  IpTrie: new (file: string, verifyChecksum: boolean) => NativeTrie;
  crc32c(bytes: Uint8Array, seed?: number): number;
  /** SCHED_IDLE for every thread of the process (threads they start inherit it); false if refused for any. */
  setIdleScheduling(): boolean;
  /** The kernel kills this process when its parent ends (Linux); false when the parent had already gone (then end). */
  endWithParent(parentPid: number): boolean;
  /** malloc_trim(0): the C heap's free memory back to the system; true if any was released. */
  trimMemory(): boolean;
  /** A sealed, unshrinkable memory copy of a file (memfd); returns its descriptor, which the caller closes. */
  sealedCopy(path: string): number;
  /** flock(fd, LOCK_EX | LOCK_NB): 0 when taken, else the errno (11, EWOULDBLOCK: someone holds it). Held until the descriptor closes. */
  lockExclusive(fd: number): number;
  statuses: Record<string, string>;
  formatVersion: number;
  /** Opens the guard's netlink socket, /proc/self/fd and its reserved descriptor; throws with code connguard_... */
  ConnectionGuard: new () => NativeConnectionGuard;
  /** Raises the soft RLIMIT_NOFILE to the hard limit; returns both (Infinity for unlimited). */
  raiseFileLimit(): { soft: number; hard: number };
  connectionGuardStatuses: Record<string, string>;
  /**
   * Walks an LMDB data file's pages (native/store_check.h) for a map of
   * `mapSize` bytes: problem null when every page reachable from its meta is
   * sound; txnid is that meta's. Throws (with errno) when the file cannot be
   * opened or mapped, or is not a regular file.
   */
  checkStoreFile(path: string, mapSize: number): { problem: string | null; txnid: bigint };
  /** Whether some process (this one included) has the LMDB environment of this lock.mdb open; throws with errno when it cannot tell. */
  storeInUse(lockPath: string): boolean;
}

/** Section order in the file; matches `enum Section` in native/trie_format.h. */
export const Section = {
  root4: 0,
  root6: 1,
  nodes: 2,
  keys: 3,
  values: 4,
  dir: 5,
  v4Starts: 6,
  v6Starts: 7,
  records: 8,
  strings: 9,
  feeds: 10,
} as const;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function load(): Binding {
  const require = createRequire(import.meta.url);
  const file = path.join(root, 'build/Release/splitguard_ipdb.node');
  try {
    return require(file) as Binding;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new AppError('addon_unavailable', `the native IP database addon could not be loaded from ${file} (${reason}); run "npm run build"`, null, { cause: err });
  }
}

export const binding: Binding = load();
