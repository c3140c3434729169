#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Memory of multipart/byteranges bodies: CLIENTS curls at once (default 20)
# each ask a SIZE_MIB file (default 256, sparse) for 16 ranges spread over
# all of it (bytes=0-N,2N-3N,...), reading at full speed; prints the
# server's peak RSS (VmHWM) before and after, and the bytes each client got.
#   bench/ranges_memory.sh [--beneath PATH] [--clients N] [--size-mib N]
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

beneath=$release_bin clients=20 size_mib=256
bench_args beneath clients:count size-mib:count -- "$@"
bench_beneath "$beneath"
bench_work beneath-ranges

truncate -s "${size_mib}M" "$root/big.bin"
start_beneath "$work/err" "$root"
url=http://127.0.0.1:$bench_port
# the serving process (with the sandbox on, not the keeper: serving_pid)
hwm() { awk '/VmHWM/ {print $2 " kB"}' "/proc/$bench_main/status"; }
size=$((size_mib * 1024 * 1024))
step=$((size / 32))
ranges=
for i in $(seq 0 15); do
  ranges="$ranges${ranges:+,}$((2 * i * step))-$(((2 * i + 1) * step - 1))"
done
echo "server peak RSS before: $(hwm); $clients clients x 16 parts of $size_mib MiB (half the file each)"
start=$(date +%s.%N)
for c in $(seq "$clients"); do
  curl -s -o /dev/null -w '%{http_code} %{size_download}\n' -r "$ranges" "$url/big.bin" >"$work/c$c" &
done
wait $(jobs -p | grep -v "^$bench_pid$") 2>/dev/null || true
end=$(date +%s.%N)
sort "$work"/c* | uniq -c
echo "server peak RSS after: $(hwm); $(echo "$end - $start" | bc) s wall"
