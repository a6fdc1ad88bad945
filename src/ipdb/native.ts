// The only module that loads the native addon. Everything else reaches the
// trie through database.ts.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export interface SectionInfo {
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

interface Binding {
  IpTrie: new (file: string, verifyChecksum: boolean) => NativeTrie;
  crc32c(bytes: Uint8Array, seed?: number): number;
  /** SCHED_IDLE for the calling thread only; false if refused. */
  setIdleScheduling(): boolean;
  /** malloc_trim(0): the C heap's free memory back to the system; true if any was released. */
  trimMemory(): boolean;
  /** A sealed, unshrinkable memory copy of a file (memfd); returns its descriptor, which the caller closes. */
  sealedCopy(path: string): number;
  statuses: Record<string, string>;
  formatVersion: number;
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
    throw new Error(`the native IP database addon could not be loaded from ${file} (${reason}); run "npm run build"`);
  }
}

export const binding: Binding = load();
