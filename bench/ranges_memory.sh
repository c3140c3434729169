#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Memory of multipart/byteranges bodies: CLIENTS curls at once (default 20)
# each ask a SIZE_MIB file (default 256, sparse) for 16 ranges spread over
# all of it (bytes=0-N,2N-3N,...), reading at full speed; prints the
# server's peak RSS (VmHWM) before and after, and the bytes each client got.
#   bench/ranges_memory.sh [--beneath PATH] [--clients N] [--size-mib N]
set -euo pipefail
bin=build/release/server/beneath
clients=20
mib=256
while [ $# -gt 0 ]; do
  case $1 in
  --beneath) bin=$2; shift 2 ;;
  --clients) clients=$2; shift 2 ;;
  --size-mib) mib=$2; shift 2 ;;
  *) echo "usage: $0 [--beneath PATH] [--clients N] [--size-mib N]" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-ranges-XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$tmp/www"
truncate -s "${mib}M" "$tmp/www/big.bin"
"$bin" --listen 127.0.0.1:0 --access-log off "$tmp/www" 2>"$tmp/err" &
pid=$!
for _ in $(seq 200); do
  grep -q 'listening on http://' "$tmp/err" && break
  sleep 0.05
done
url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/err" | head -1)
hwm() { awk '/VmHWM/ {print $2 " kB"}' "/proc/$pid/status"; }
size=$((mib * 1024 * 1024))
step=$((size / 32))
ranges=
for i in $(seq 0 15); do
  ranges="$ranges${ranges:+,}$((2 * i * step))-$(((2 * i + 1) * step - 1))"
done
echo "server peak RSS before: $(hwm); $clients clients x 16 parts of $mib MiB (half the file each)"
start=$(date +%s.%N)
for c in $(seq "$clients"); do
  curl -s -o /dev/null -w '%{http_code} %{size_download}\n' -r "$ranges" "$url/big.bin" >"$tmp/c$c" &
done
wait $(jobs -p | grep -v "^$pid$") 2>/dev/null || true
end=$(date +%s.%N)
sort "$tmp"/c* | uniq -c
echo "server peak RSS after: $(hwm); $(echo "$end - $start" | bc) s wall"
