#!/usr/bin/env bash
# Build the release preset and run the resolver micro-benchmark pinned to one
# CPU (BENCH_CPU, default 0); the CSV goes to build/release/bench/
# resolver_bench.csv, or to $1. Further arguments go to resolver_bench
# (-n calls per round, -r rounds). Then, when strace is installed, count the
# system calls per open+close of a few configurations: unlike the times,
# those counts do not depend on the machine's load.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release --target resolver_bench -j"$(nproc)" >/dev/null
bin=build/release/bench/resolver_bench
csv=${1:-build/release/bench/resolver_bench.csv}
shift || true
cpu=${BENCH_CPU:-0}
echo "pinned to CPU $cpu (taskset); kernel $(uname -r); load $(cut -d' ' -f1-3 /proc/loadavg)"
taskset -c "$cpu" "$bin" -o "$csv" "$@"
echo "CSV: $csv"

command -v strace >/dev/null || exit 0
n=1000
echo
echo "system calls per open+close (strace -c, $n calls; the floor's 2 subtracted)"
for conf in "kernel:beneath 4 0" "emulated:beneath 4 0" "emulated:beneath 8 0" \
            "emulated:beneath 4 1" "emulated:beneath 4 4" \
            "emulated:beneath,no-xdev,no-magiclinks 4 0" \
            "emulated+cache:beneath 8 0" "emulated+cache:beneath 8 1"; do
  set -- $conf
  out=$(mktemp)
  strace -f -c -o "$out" "$bin" -n "$n" -r 1 -m "$1" -d "$2" -l "$3" >/dev/null
  total=$(awk '$NF == "total" { print $(NF-2) }' "$out")
  awk -v t="$total" -v n="$n" -v c="$1 depth $2 links $3" \
    'BEGIN { printf "  %-48s %5.1f\n", c, (t - 2 * n) / n }'
  rm -f "$out"
done
