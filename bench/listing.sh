#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What one directory listing costs: a directory of ENTRIES files (default
# 100,000), listed ROUNDS times (default 5) as HTML and as JSON by one curl
# at a time; prints the median and min..max of curl's time_total, the page
# size, and the server's peak RSS (VmHWM) before and after.
#   bench/listing.sh [--beneath PATH] [--entries N] [--rounds N]
# Without --beneath, build/release/server/beneath. Not a timed test: the
# figures depend on the machine and its load.
set -euo pipefail
bin=build/release/server/beneath
entries=100000
rounds=5
while [ $# -gt 0 ]; do
  case $1 in
  --beneath) bin=$2; shift 2 ;;
  --entries) entries=$2; shift 2 ;;
  --rounds) rounds=$2; shift 2 ;;
  *) echo "usage: $0 [--beneath PATH] [--entries N] [--rounds N]" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "no server binary at $bin (build the release preset)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-listing-XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p "$tmp/www/big"
python3 - "$tmp/www/big" "$entries" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    with open(os.path.join(d, "file-%07d.txt" % i), "w") as f:
        f.write("x" * (i % 5000))
PY

"$bin" --listen 127.0.0.1:0 --listing on --access-log off "$tmp/www" 2>"$tmp/err" &
pid=$!
for _ in $(seq 200); do
  grep -q 'listening on http://' "$tmp/err" && break
  sleep 0.05
done
url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/err" | head -1)
[ -n "$url" ] || { cat "$tmp/err" >&2; exit 1; }
hwm() { awk '/VmHWM/ {print $2 " kB"}' "/proc/$pid/status"; }
echo "directory: $entries entries; server peak RSS before: $(hwm)"

stats() { # the times on stdin, one per line
  sort -n | awk '{v[NR] = $1} END {
    printf "median %.3f s, min..max %.3f..%.3f s over %d rounds\n",
      v[int((NR + 1) / 2)], v[1], v[NR], NR }'
}
for form in html json; do
  accept=text/html
  [ $form = json ] && accept=application/json
  for _ in $(seq "$rounds"); do
    curl -s -o "$tmp/page" -H "Accept: $accept" -w '%{time_total}\n' "$url/big/"
  done | stats | sed "s/^/$form: /"
  if [ $form = html ]; then
    n=$(grep -o 'href="./' "$tmp/page" | wc -l)
  else
    n=$(grep -o '"name":' "$tmp/page" | wc -l)
  fi
  echo "$form: $(stat -c %s "$tmp/page") bytes, $n entries"
done
echo "server peak RSS after: $(hwm)"
