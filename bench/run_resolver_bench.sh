#!/usr/bin/env bash
# Build the release preset and run the resolver micro-benchmark pinned to one
# CPU; the CSV goes to build/release/bench/resolver_bench.csv (or $1).
# Extra arguments after the CSV path go to resolver_bench (-n calls, -r rounds).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release --target resolver_bench -j"$(nproc)" >/dev/null
csv=${1:-build/release/bench/resolver_bench.csv}
shift || true
cpu=${BENCH_CPU:-0}
echo "pinned to CPU $cpu (taskset); kernel $(uname -r)"
exec taskset -c "$cpu" build/release/bench/resolver_bench -o "$csv" "$@"
