#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# First-byte latency of the first request for a large file, cold: the file
# evicted from the page cache (sync, then dd iflag=nocache; fincore shows
# what stayed), a fresh server, so no content hash is known. Two answers:
#   no-tag  what beneath does: the body at once, without an ETag, while the
#           content hash runs in the background
#   wait    the hash first, then the body with its content ETag (forced
#           here by an If-None-Match naming another tag, which makes beneath
#           hash on the request's thread, as waiting for every first answer
#           would)
# ROUNDS rounds of both, in alternating order; each line gives curl's
# time_starttransfer and time_total and the ETag sent; then the medians.
#   bench/etag_first_byte.sh [--beneath PATH] [--rounds N] [--size-mib N]
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

beneath=$release_bin rounds=5 size_mib=300
bench_args beneath rounds:count size-mib:count -- "$@"
bench_beneath "$beneath"
bench_need curl dd fincore
bench_work beneath-etag-first-byte

# real bytes: a sparse file's holes read without the disk
head -c "${size_mib}M" /dev/urandom >"$root/big.bin"
sync "$root/big.bin"

# one MODE cold: "first-byte total etag cached-before"
cold() {
  local -a ask=()
  [ "$1" = wait ] && ask=(-H 'If-None-Match: "another-tag"')
  dd if="$root/big.bin" iflag=nocache count=0 status=none
  local cached
  cached=$(fincore -n -b -o RES "$root/big.bin" | tr -d ' ')
  start_beneath "$work/err" "$root"
  curl -s -o /dev/null -D "$work/head" -w '%{time_starttransfer} %{time_total}' \
    "${ask[@]}" "http://127.0.0.1:$bench_port/big.bin"
  printf ' %s %s\n' "$(tr -d '\r' <"$work/head" | awk 'tolower($1) == "etag:" { print $2 }' | grep . || echo none)" "$cached"
  stop_pid "$bench_pid"
}

echo "# $size_mib MiB, cold; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# mode round first-byte-s total-s etag page-cache-bytes-before"
for r in $(seq "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then order="no-tag wait"; else order="wait no-tag"; fi
  for m in $order; do
    echo "$m $r $(cold "$m")"
  done
done | tee "$run/lines"
for m in no-tag wait; do
  awk -v m="$m" '$1 == m { print $3 }' "$run/lines" | sort -g |
    awk -v m="$m" '{ v[NR] = $1 } END { printf "median first byte, %s: %.3f s (%.3f .. %.3f)\n", m, v[int((NR + 1) / 2)], v[1], v[NR] }'
done
