#!/usr/bin/env bash
# Fuzzes the connection guard's sock_diag parser (ParseDiagDatagram in
# native/connection_guard.cc) under libFuzzer + AddressSanitizer +
# UndefinedBehaviorSanitizer for FUZZ_SECONDS (default 60), from a few seeds
# written here: an IPv4 and an IPv6 connection with tcp_info then the end
# marker, an error answer, and parts of another request. Where things land
# and the exit status: common.sh.
source "$(dirname "$0")/common.sh"
mkdir -p "$OUT/corpus_sock_diag"
build_fuzzer fuzz_sock_diag native/connection_guard.cc

node - "$OUT/corpus_sock_diag" <<'JS'
const fs = require('node:fs');
const path = require('node:path');
const dir = process.argv[2];
// nlmsghdr: len, type, flags, seq, pid (host order, little-endian here).
const msg = (type, seq, payload) => {
  const len = 16 + payload.length;
  const b = Buffer.alloc((len + 3) & ~3);
  b.writeUInt32LE(len, 0); b.writeUInt16LE(type, 4); b.writeUInt16LE(2, 6); b.writeUInt32LE(seq, 8);
  payload.copy(b, 16);
  return b;
};
const SOCK_DIAG_BY_FAMILY = 20, DONE = 3, ERROR = 2;
// inet_diag_msg (72 bytes) + INET_DIAG_INFO (type 2) holding a 232-byte tcp_info.
const diag = (family, dst) => {
  const m = Buffer.alloc(72);
  m[0] = family; m[1] = 1; // ESTABLISHED
  m.writeUInt16BE(8443, 4); m.writeUInt16BE(51000, 6);
  dst.copy(m, 24);
  m.writeUInt32LE(10, 56); m.writeUInt32LE(4000000, 60); m.writeUInt32LE(12345, 68);
  const info = Buffer.alloc(232);
  info.writeUInt32LE(5000, 52);          // tcpi_last_data_recv
  info.writeBigUInt64LE(113781n, 120);   // tcpi_bytes_acked
  const attr = Buffer.alloc(4 + info.length);
  attr.writeUInt16LE(attr.length, 0); attr.writeUInt16LE(2, 2); info.copy(attr, 4);
  return Buffer.concat([m, attr]);
};
const done = msg(DONE, 1, Buffer.alloc(4));
const v4 = Buffer.from([127, 0, 0, 2]);
const v6 = Buffer.from('20010db8000000000000000000000001', 'hex');
const seeds = {
  v4: Buffer.concat([Buffer.from([0]), msg(SOCK_DIAG_BY_FAMILY, 1, diag(2, v4)), msg(SOCK_DIAG_BY_FAMILY, 1, diag(2, v4)), done]),
  v6: Buffer.concat([Buffer.from([1]), msg(SOCK_DIAG_BY_FAMILY, 1, diag(10, v6)), done]),
  error: Buffer.concat([Buffer.from([0]), msg(ERROR, 1, Buffer.from([0xea, 0xff, 0xff, 0xff, ...Buffer.alloc(16)]))]),
  stale: Buffer.concat([Buffer.from([0]), msg(SOCK_DIAG_BY_FAMILY, 2, diag(2, v4)), done]),
};
for (const [name, bytes] of Object.entries(seeds)) fs.writeFileSync(path.join(dir, name), bytes);
JS

run_fuzzer fuzz_sock_diag "$OUT/corpus_sock_diag" 4096
