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
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

beneath=$release_bin entries=100000 rounds=5
bench_args beneath entries:count rounds:count -- "$@"
bench_beneath "$beneath"
bench_work beneath-listing

mkdir -p "$root/big"
python3 - "$root/big" "$entries" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    with open(os.path.join(d, "file-%07d.txt" % i), "w") as f:
        f.write("x" * (i % 5000))
PY

start_beneath "$work/err" --listing on "$root"
url=http://127.0.0.1:$bench_port
# the serving process (with the sandbox on, not the keeper: serving_pid)
hwm() { awk '/VmHWM/ {print $2 " kB"}' "/proc/$bench_main/status"; }
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
    curl -s -o "$work/page" -H "Accept: $accept" -w '%{time_total}\n' "$url/big/"
  done | stats | sed "s/^/$form: /"
  if [ $form = html ]; then
    n=$(grep -o 'href="./' "$work/page" | wc -l)
  else
    n=$(grep -o '"name":' "$work/page" | wc -l)
  fi
  echo "$form: $(stat -c %s "$work/page") bytes, $n entries"
done
echo "server peak RSS after: $(hwm)"
