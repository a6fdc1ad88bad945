#!/usr/bin/env bash
# Fuzzes the trie reader: builds fuzz_trie_reader.cc with trie_reader.cc and
# crc32c.cc under libFuzzer + AddressSanitizer + UndefinedBehaviorSanitizer,
# writes a seed corpus with the TypeScript builder (seed.mjs), and runs for
# FUZZ_SECONDS (default 60). Run from anywhere; everything lands in
# native/fuzz/out/ (git-ignored): the binary, corpus/ (seeds plus whatever
# the fuzzer keeps) and artifacts/ (reproducers).
#
# Exit status: 0 when the time ran out without a finding; non-zero when the
# fuzzer found a crash, a sanitizer report, a failed harness check, a leak or
# a timeout (reproduce with: native/fuzz/out/fuzz_trie_reader <artifact>), or
# when the build failed.
set -euo pipefail
cd "$(dirname "$0")/../.."

CXX="${CXX:-clang++}"
OUT=native/fuzz/out
mkdir -p "$OUT/corpus" "$OUT/artifacts"

"$CXX" -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Inative native/fuzz/fuzz_trie_reader.cc native/trie_reader.cc native/crc32c.cc \
  -o "$OUT/fuzz_trie_reader"

# The seeds come from dist/ (the builder) and the addon (its CRC32C, and the
# reader that checks each seed). dist/ is rebuilt when src/ipdb is newer; the
# addon only when it is missing (a stale one makes seed.mjs fail loudly).
if [[ ! -f build/Release/splitguard_ipdb.node ]]; then
  npx node-gyp rebuild
fi
if [[ ! -f dist/ipdb/build.js || -n $(find src/ipdb -name '*.ts' -newer dist/ipdb/build.js) ]]; then
  npx tsc -p tsconfig.build.json
fi
node native/fuzz/seed.mjs "$OUT/corpus"

# Inputs may grow a little past the largest seed (~0.5 MiB, mostly ROOT4
# and ROOT6), so that insertions stay possible.
max_len=$(( $(wc -c < "$OUT/corpus/full.ipdb") + 65536 ))
exec "$OUT/fuzz_trie_reader" "$OUT/corpus" \
  -max_total_time="${FUZZ_SECONDS:-60}" -max_len="$max_len" -timeout=10 \
  -artifact_prefix="$OUT/artifacts/" -print_final_stats=1
