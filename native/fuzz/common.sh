# Sourced by the fuzz run scripts: where everything lands and the one way a
# harness is built and run. Everything goes to native/fuzz/out/ (git-ignored):
# the binaries, a corpus directory per harness (seeds plus what the fuzzer
# keeps) and artifacts/ (reproducers: run the binary on one).
#
# Exit status of a run: 0 when FUZZ_SECONDS (default 60) ran out without a
# finding; non-zero on a crash, a sanitizer report, a failed harness check, a
# leak or a timeout, or when the build failed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

CXX="${CXX:-clang++}"
OUT=native/fuzz/out
mkdir -p "$OUT/artifacts"

# build_fuzzer NAME SOURCE...: $OUT/NAME from native/fuzz/NAME.cc and the
# product's sources it tests, under libFuzzer + AddressSanitizer +
# UndefinedBehaviorSanitizer.
build_fuzzer() {
  local name=$1
  shift
  "$CXX" -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -Inative "native/fuzz/$name.cc" "$@" -o "$OUT/$name"
}

# run_fuzzer NAME CORPUS MAX_LEN: replaces the script, so its status is the run's.
run_fuzzer() {
  exec "$OUT/$1" "$2" -max_total_time="${FUZZ_SECONDS:-60}" -max_len="$3" -timeout=10 \
    -artifact_prefix="$OUT/artifacts/" -print_final_stats=1
}
