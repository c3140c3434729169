#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run one libFuzzer target for a bounded time with a fixed seed:
#   run.sh FUZZER SEED_CORPUS SCRATCH_CORPUS
# FUZZ_SECONDS (default 20) sets the time. New inputs go to the scratch
# corpus (in the build dir); the seed corpus in the repository is only read.
set -euo pipefail
fuzzer=$1 seeds=$2 scratch=$3
mkdir -p "$scratch"
exec "$fuzzer" -seed=1 -max_total_time="${FUZZ_SECONDS:-20}" \
  -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$scratch" "$seeds"
