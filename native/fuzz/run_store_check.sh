#!/usr/bin/env bash
# Fuzzes the store walk (native/store_check.cc) under libFuzzer +
# AddressSanitizer + UndefinedBehaviorSanitizer for FUZZ_SECONDS (default
# 60), from a seed store written here through lmdb-js with the product's
# options (records deep enough for branch pages, and an overflow run).
# Where things land and the exit status: common.sh.
source "$(dirname "$0")/common.sh"
mkdir -p "$OUT/corpus_store_check"
build_fuzzer fuzz_store_check native/store_check.cc

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
run_fuzzer fuzz_store_check "$OUT/corpus_store_check" "$max_len"
