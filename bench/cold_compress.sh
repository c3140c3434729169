#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/cold_compress.sh: what the first answers after a start cost when a
# compressible file is compressed as it is sent (compress_stream) instead
# of going out identity: server CPU and bytes of the first and the second
# request of a 700 KB HTML file and a 1.7 MB script, each on a fresh
# server, per coding, beside identity (no Accept-Encoding), in rotated
# rounds.
#
#   bench/cold_compress.sh [--rounds N] [--bin PATH]
#
# Each row: a fresh beneath (--threads 1, pinned to CPU 0, --compress
# CODING; identity: the default and no Accept-Encoding), one GET of the
# file by curl (CPU 1), then, once the server's CPU has settled (the
# background content hash and compression done), a second GET, settled
# again. CPU = on-CPU ns of every server thread (schedstat, keeper and
# serving process) from before the request until it settled, so it holds
# what the request set off in the background too: the content hash (both
# requests of a file over 256 KiB hash it once, the first), the coding as
# it is sent, and (second request) the body kept for the next ones. The
# third request of a coded file is served from the cache (cached-ms).
# Median and min..max over rounds.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

rounds=5 bin=$release_bin
bench_args rounds:count bin -- "$@"
bench_beneath "$bin"
bench_need curl
bench_pinning
bench_work beneath-cold-compress

words() { # BYTES FILE: text and markup, compressible, not repetitive
  awk -v n="$1" 'BEGIN { srand(11); split("div span class=\"nav\" function return var const let if else for while <p> </p> <a href=\"/x\"> </a> the of and to in", w, " ");
    while (s < n) { t = w[int(rand() * 22) + 1] " "; if (rand() < 0.1) t = t int(rand() * 100000) "\n"; printf "%s", t; s += length(t) } }' >"$2"
  truncate -s "$1" "$2"
}
words 716800 "$root/page.html"
words 1782579 "$root/app.js"

# settle PID: wait (at most 10 s) until the server's CPU time has grown by
# less than 0.2 ms in each of four 50 ms steps (an idle server's timers
# cost some µs), and print it
settle() {
  local last now same=0
  last=$(server_cpu_ns "$1")
  for _ in $(seq 200); do
    sleep 0.05
    now=$(server_cpu_ns "$1")
    if [ $((now - last)) -lt 200000 ]; then
      same=$((same + 1))
      [ "$same" -ge 4 ] && break
    else
      same=0
    fi
    last=$now
  done
  echo "$now"
}

# one CODING FILE: "first-ms first-bytes second-ms second-bytes cached-ms"
one() {
  local coding=$1 f=$2 c0 c1 c2 c3 b1 b2
  local -a ae=(-H "Accept-Encoding: gzip, br, zstd")
  [ "$coding" = identity ] && ae=()
  start_beneath "$run/err" --threads 1 --compress "${coding/identity/gzip}" "$root"
  c0=$(settle "$bench_pid")
  b1=$("${pin_client[@]}" curl -s -o /dev/null "${ae[@]}" -w '%{size_download}' "http://127.0.0.1:$bench_port/$f")
  c1=$(settle "$bench_pid")
  b2=$("${pin_client[@]}" curl -s -o /dev/null "${ae[@]}" -w '%{size_download}' "http://127.0.0.1:$bench_port/$f")
  c2=$(settle "$bench_pid")
  "${pin_client[@]}" curl -s -o /dev/null "${ae[@]}" "http://127.0.0.1:$bench_port/$f"
  c3=$(settle "$bench_pid")
  stop_pid "$bench_pid"
  awk -v a="$c0" -v b="$c1" -v c="$c2" -v d="$c3" -v b1="$b1" -v b2="$b2" \
    'BEGIN { printf "%.2f %d %.2f %d %.2f\n", (b - a) / 1e6, b1, (c - b) / 1e6, b2, (d - c) / 1e6 }'
}

codings="identity gzip br zstd"
echo "# $pinning; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# coding file round first-ms first-bytes second-ms second-bytes cached-ms"
for r in $(seq "$rounds"); do
  # rotate the order of the codings from round to round
  # shellcheck disable=SC2086 # the words of the list
  set -- $codings
  for _ in $(seq $(((r - 1) % 4))); do set -- "$@" "$1"; shift; done
  for coding in "$@"; do
    for f in page.html app.js; do
      echo "$coding $f $r $(one "$coding" "$f")"
    done
  done
done | tee "$run/lines"
echo
echo "| file | coding | first request: server CPU ms | bytes | second: CPU ms | bytes | third (cached): CPU ms |"
echo "|---|---|---|---|---|---|---|"
for f in page.html app.js; do
  for coding in $codings; do
    awk -v c="$coding" -v f="$f" "$median_awk"'
      $1 == c && $2 == f { n++; a[n] = $4; b[n] = $5; x[n] = $6; y[n] = $7; z[n] = $8 }
      END { printf "| %s | %s | %s | %s | %s | %s | %s |\n", f, c, mmm(a, n, "%.1f"),
              mmm(b, n, "%d"), mmm(x, n, "%.1f"), mmm(y, n, "%d"), mmm(z, n, "%.2f") }' "$run/lines"
  done
done
