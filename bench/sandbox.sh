#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/sandbox.sh: server CPU per request with the sandbox off, on and
# strict, in rotated rounds.
#
#   bench/sandbox.sh [--beneath PATH] [--rounds N] [--duration S] [--conns N]
#                    [--out DIR]
#
# Starts one beneath per mode (--sandbox off|on|strict, --threads 1,
# --access-log off, --resolver kernel), all up at once and pinned to CPU 0;
# wrk runs on CPU 1 (1 thread, keep-alive, --conns connections, default 50).
# Each of --rounds rounds (default 10) runs every mode on the 1 KiB file at
# depth 1, then at depth 8, for --duration seconds (default 2), the order
# rotated by one mode per round. Server CPU of a row = the growth of the sum
# of /proc/PID/task/*/schedstat run times (ns) over the row, of the PID
# started and its child (server_cpu_ns: with --sandbox on|strict the keeper,
# idle, and the serving process, its child; off: one process); per request =
# that / the requests wrk completed. Prints each row (out/sandbox.csv) and,
# per mode and file, the median ns/request with min .. max over the rounds
# and the median of the per-round ratio to "off" (out/sandbox.md).
# Default --beneath: build/release/server/beneath; --out: build/bench/sandbox.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

bin=$top/build/release/server/beneath rounds=10 duration=2 conns=50
out=$top/build/bench/sandbox
while [ $# -gt 0 ]; do
  case "$1" in
  --beneath) bin=${2:?} && shift ;;
  --rounds) rounds=${2:?} && shift ;;
  --duration) duration=${2:?} && shift ;;
  --conns) conns=${2:?} && shift ;;
  --out) out=${2:?} && shift ;;
  -h | --help) bench_usage ;;
  *) die "unknown argument '$1'" ;;
  esac
  shift
done
bench_need wrk taskset curl
[ -x "$bin" ] || die "$bin: not an executable (build the release preset)"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (server on 0, wrk on 1)"
mkdir -p "$out"
out=$(cd "$out" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/beneath-sandbox-bench-XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/www/a/b/c/d/e/f/g"
head -c 1024 /dev/zero | tr '\0' x >"$work/www/1k.html"
cp "$work/www/1k.html" "$work/www/a/b/c/d/e/f/g/1k.html"
files=(/1k.html /a/b/c/d/e/f/g/1k.html)
modes=(off on strict)

ports=()
for m in "${modes[@]}"; do
  taskset -c 0 "$bin" --listen 127.0.0.1:0 --threads 1 --access-log off \
    --resolver kernel --sandbox "$m" "$work/www" 2>"$out/server-$m.log" &
  pids+=($!)
done
for i in "${!modes[@]}"; do
  ports[i]=$(listen_port "$out/server-${modes[i]}.log" 200)
  [ -n "${ports[i]}" ] || die "${modes[i]}: no listening line ($out/server-${modes[i]}.log)"
  for f in "${files[@]}"; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${ports[i]}$f")" = 200 ] ||
      die "${modes[i]}: $f is not served"
  done
done

csv=$out/sandbox.csv
echo "round,position,file,mode,requests,server_cpu_ns,ns_per_request" >"$csv"
for i in "${!modes[@]}"; do # warm-up, unrecorded
  taskset -c 1 wrk -t1 -c"$conns" -d1s "http://127.0.0.1:${ports[i]}${files[0]}" >/dev/null
done
for r in $(seq "$rounds"); do
  echo "$prog: round $r/$rounds" >&2
  for f in "${files[@]}"; do
    for pos in $(seq 0 $((${#modes[@]} - 1))); do
      i=$(((pos + r - 1) % ${#modes[@]}))
      before=$(server_cpu_ns "${pids[i]}")
      n=$(taskset -c 1 wrk -t1 -c"$conns" -d"${duration}s" \
        "http://127.0.0.1:${ports[i]}$f" | sed -n 's/^ *\([0-9]*\) requests in.*/\1/p')
      after=$(server_cpu_ns "${pids[i]}")
      if [ -z "$n" ] || [ "$n" -eq 0 ]; then
        die "${modes[i]}: wrk completed no request"
      fi
      echo "$r,$((pos + 1)),$f,${modes[i]},$n,$((after - before)),$(((after - before) / n))" >>"$csv"
    done
  done
done

{
  echo "## Server CPU per request, sandbox off / on / strict"
  echo
  echo "- \`bench/sandbox.sh --rounds $rounds --duration $duration --conns $conns\`; $("$bin" --version); $(nproc) CPUs, kernel $(uname -r)"
  echo "- server (--threads 1) on CPU 0, wrk on CPU 1; order rotated per round; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- $(grep -h 'sandbox: landlock\|sandbox: no landlock' "$out/server-on.log" | head -n 1)"
  echo
  echo "| file | mode | ns/request, median | min .. max | ratio to off, median (min .. max) |"
  echo "|---|---|---|---|---|"
  awk -F, -v modes="${modes[*]}" '
    NR > 1 { v[$3, $4, $1] = $7; file[$3] = 1; if ($1 > R) R = $1 }
    function med(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
      nm = split(modes, m, " ")
      for (f in file) for (k = 1; k <= nm; k++) {
        n = 0; q = 0
        for (r = 1; r <= R; r++) {
          if ((f, m[k], r) in v) x[++n] = v[f, m[k], r]
          if ((f, m[k], r) in v && (f, "off", r) in v) y[++q] = v[f, m[k], r] / v[f, "off", r]
        }
        lo = hi = x[1]; for (i = 1; i <= n; i++) { if (x[i] < lo) lo = x[i]; if (x[i] > hi) hi = x[i] }
        ylo = yhi = y[1]; for (i = 1; i <= q; i++) { if (y[i] < ylo) ylo = y[i]; if (y[i] > yhi) yhi = y[i] }
        printf "| %s | %s | %.0f | %.0f .. %.0f | %.3f (%.3f .. %.3f) |\n", f, m[k], med(x, n), lo, hi, med(y, q), ylo, yhi
      }
    }' "$csv" | sort
  echo
  echo "Every row: $csv."
} >"$out/sandbox.md"
cat "$out/sandbox.md"
