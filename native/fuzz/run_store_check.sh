#!/usr/bin/env bash
# Fuzzes the store walk (native/store_check.cc) under libFuzzer +
# AddressSanitizer + UndefinedBehaviorSanitizer for FUZZ_SECONDS (default
# 60), from a seed store written here through lmdb-js with the product's
# options (records deep enough for branch pages, and an overflow run).
# Everything lands in native/fuzz/out/ (git-ignored); exit status as in run.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."

CXX="${CXX:-clang++}"
OUT=native/fuzz/out
mkdir -p "$OUT/corpus_store_check" "$OUT/artifacts"

"$CXX" -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Inative native/fuzz/fuzz_store_check.cc native/store_check.cc \
  -o "$OUT/fuzz_store_check"

if [[ ! -f dist/store/db.js || -n $(find src/store -name '*.ts' -newer dist/store/db.js) ]]; then
  npx tsc -p tsconfig.build.json
fi
node --input-type=module - "$OUT/corpus_store_check" <<'JS'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStores } from './dist/store/db.js';
const dir = mkdtempSync(path.join(os.tmpdir(), 'fuzz-store-'));
const s = openStores(dir);
await s.root.transaction(() => {
  for (let i = 0; i < 600; i++) s.conversions.put([1, `g${i % 3}`, (i * 2654435761).toString(16).padStart(16, '0')], { variant: i % 2, day: 1, at: i, value: null });
  s.sketches.put([1, 0, 0], new Uint8Array(9000).fill(3));
});
await s.root.close();
copyFileSync(path.join(dir, 'db', 'data.mdb'), path.join(process.argv[2], 'store.mdb'));
rmSync(dir, { recursive: true, force: true });
JS

max_len=$(( $(wc -c < "$OUT/corpus_store_check/store.mdb") + 16384 ))
exec "$OUT/fuzz_store_check" "$OUT/corpus_store_check" \
  -max_total_time="${FUZZ_SECONDS:-60}" -max_len="$max_len" -timeout=10 \
  -artifact_prefix="$OUT/artifacts/" -print_final_stats=1
