#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The fuzzers' long run, outside CI (which gives each 20 s): every libFuzzer
# target of tests/fuzz/ for N minutes, one after another, at low priority.
#
#   bench/fuzz.sh [--minutes N] [--only NAME]... [--out DIR] [--no-build]
#
# --minutes: per fuzzer (default 10). --only: a target name without "fuzz_"
# (resolver, request, target, range, cond, negotiate, framing); repeatable.
# --out: default build/fuzz-long. Builds the "fuzz" preset first unless
# --no-build. fuzz_resolver needs root (a mount namespace of its own).
#
# Each fuzzer starts from its seeds (tests/fuzz/corpus/NAME, only read) and
# the corpus its earlier long runs grew (OUT/corpus/NAME), and stops at its
# first finding (a crash, a leak, or for fuzz_resolver a difference between
# the kernel and the emulation), which it writes as OUT/NAME-crash-*.
# Prints one row per fuzzer: minutes, inputs run, inputs/s, corpus size,
# findings; the same rows go to OUT/fuzz.csv, each fuzzer's log to
# OUT/NAME.log.
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=10 out=build/fuzz-long build=1
only=()
while [ $# -gt 0 ]; do
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --only) only+=("$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "usage: $0 [--minutes N] [--only NAME]... [--out DIR] [--no-build]" >&2
       exit 2 ;;
  esac
done
case $minutes in
  '' | *[!0-9]* | 0) echo "$0: --minutes: a whole number above 0" >&2; exit 2 ;;
esac
names=(resolver request target range cond negotiate framing)
[ ${#only[@]} -eq 0 ] || names=("${only[@]}")
for n in "${names[@]}"; do
  [ -d "tests/fuzz/corpus/$n" ] || { echo "$0: no fuzzer '$n'" >&2; exit 2; }
done

mkdir -p "$out"
if [ "$build" = 1 ]; then
  echo "building the fuzz preset (log: $out/build.log)"
  { nice -n 5 cmake --preset fuzz && nice -n 5 cmake --build --preset fuzz -j2; } \
    >"$out/build.log" 2>&1
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
csv=$out/fuzz.csv
echo "fuzzer,minutes,inputs,inputs_per_s,corpus,findings,started" >"$csv"
printf '%-18s %7s %12s %9s %7s  %s\n' fuzzer minutes inputs inputs/s corpus findings
for n in "${names[@]}"; do
  bin=build/fuzz/tests/fuzz_$n
  [ -x "$bin" ] || { echo "$0: $bin missing (build the fuzz preset)" >&2; exit 1; }
  mkdir -p "$out/corpus/$n"
  started=$(date -u +%FT%TZ)
  rc=0
  nice -n 15 "$bin" -seed=1 -max_total_time=$((minutes * 60)) -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/$n-" \
    "$out/corpus/$n" "tests/fuzz/corpus/$n" >"$out/$n.log" 2>&1 || rc=$?
  inputs=$(awk '/^stat::number_of_executed_units:/ { print $NF }' "$out/$n.log")
  rate=$(awk '/^stat::average_exec_per_sec:/ { print $NF }' "$out/$n.log")
  corpus=$(find "$out/corpus/$n" -type f | wc -l)
  findings=$(find "$out" -maxdepth 1 -type f -name "$n-*" -newermt "$started" | wc -l)
  [ "$rc" = 0 ] || [ "$findings" -gt 0 ] ||
    { echo "$0: fuzz_$n exited $rc without a finding: see $out/$n.log" >&2; exit 1; }
  printf '%-18s %7s %12s %9s %7s  %s\n' "fuzz_$n" "$minutes" "${inputs:-?}" \
    "${rate:-?}" "$corpus" "$findings"
  echo "fuzz_$n,$minutes,${inputs:-},${rate:-},$corpus,$findings,$started" >>"$csv"
done
echo "CSV: $csv; findings (if any): $out/NAME-crash-*, their logs $out/NAME.log"
