#!/usr/bin/env bash
# Fuzzes the trie reader: builds fuzz_trie_reader.cc with trie_reader.cc and
# crc32c.cc under libFuzzer + AddressSanitizer + UndefinedBehaviorSanitizer,
# writes a seed corpus with the TypeScript builder (seed.mjs), and runs for
# FUZZ_SECONDS (default 60). Run from anywhere; where things land and the
# exit status: common.sh (reproduce a finding with
# native/fuzz/out/fuzz_trie_reader <artifact>).
source "$(dirname "$0")/common.sh"
mkdir -p "$OUT/corpus"
build_fuzzer fuzz_trie_reader native/trie_reader.cc native/crc32c.cc

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
run_fuzzer fuzz_trie_reader "$OUT/corpus" "$max_len"
