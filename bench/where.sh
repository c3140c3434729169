#!/usr/bin/env bash
# bench/where.sh: where a server's CPU time per request goes, by part.
#
#   bench/where.sh [--server beneath|nginx|lighttpd] [--beneath PATH]
#                  [--file 1k-d1|1k-d8] [--seconds S] [--conns N]
#                  [--out DIR] [-- beneath options]
#
# Starts one server (beneath: --resolver kernel, its default options,
# --threads 1 --access-log off; nginx and lighttpd as in bench/cpu.sh)
# pinned to CPU 0, loads it with wrk (CPU 1, keep-alive, --conns connections,
# default 50) for --seconds + 4 seconds (default 10), measures its CPU time
# per request from /proc/PID/task/*/schedstat over the whole run (the PID
# started and its children: server_cpu_ns), and records `perf record -g`
# samples of its serving process (beneath: the keeper's child) for --seconds
# in the middle. Each sample is put in one part (bench/lib/parts.awk): the
# system call it is in (send split into the loopback delivery to the client,
# its wake-up and the rest), the kernel outside any call, the server's own
# code, libmicrohttpd, libc; each part gets its share of the CPU time per
# request, in µs. Prints a markdown table and writes it to
# OUT/where-SERVER-FILE.md (default OUT build/bench/where). Needs perf
# (Debian: linux-perf) and root.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

server=beneath
beneath_bin=""
key=1k-d1
seconds=10
conns=50
out=""
while [ $# -gt 0 ]; do
  case "$1" in
  --server) server=${2:?--server needs a name} && shift ;;
  --beneath) beneath_bin=${2:?--beneath needs a path} && shift ;;
  --file) key=${2:?--file needs 1k-d1 or 1k-d8} && shift ;;
  --seconds) seconds=${2:?--seconds needs a number} && shift ;;
  --conns) conns=${2:?--conns needs a count} && shift ;;
  --out) out=${2:?--out needs a directory} && shift ;;
  --) shift && break ;;
  -h | --help) bench_usage ;;
  *) bench_bad_arg "$1" ;;
  esac
  shift
done
case "$server" in beneath | nginx | lighttpd) ;; *) die "--server: beneath, nginx or lighttpd" ;; esac
case "$key" in 1k-d1 | 1k-d8) ;; *) die "--file: 1k-d1 or 1k-d8" ;; esac
for v in "$seconds" "$conns"; do
  case "$v" in '' | *[!0-9]* | 0) die "--seconds and --conns must be whole numbers > 0" ;; esac
done
for tool in perf wrk curl taskset setsid timeout; do
  command -v "$tool" >/dev/null || die "$tool is missing (perf: apt-get install linux-perf)"
done
out=${out:-$top/build/bench/where}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ "$server" = beneath ] && [ -z "$beneath_bin" ]; then
  bench_build "$out"
fi
bench_pinning
bench_work beneath-where small

c_name=("$server") c_server=("$server") c_threads=(1) c_pinned=(yes) c_opts=("$*")
case "$server" in
beneath) c_backend=(kernel) c_flags=(default) ;;
nginx) c_backend=(-) c_flags=(off) ;;
lighttpd) c_backend=(-) c_flags=(enable) ;;
esac
c_skip=() c_pid=() c_main=() c_port=()
start_all "$run"
[ -z "${c_skip[0]}" ] || die "$server: ${c_skip[0]} (log: $run/server-$server.log)"
use_server 0
url="http://127.0.0.1:$srv_port${file_path[$key]}"
read -r st ka < <(precheck "$url" "${file_bytes[$key]}")
if [ "$st" != ok ] || [ "$ka" != yes ]; then
  die "$url: status $st, keep-alive $ka"
fi
run_wrk "$url" "$conns" yes 1 >/dev/null # warm-up

obj=$(readlink -f "/proc/$srv_main/exe")
before=$(server_cpu_ns "$srv_pid")
run_wrk "$url" "$conns" yes $((seconds + 4)) >"$run/wrk.txt" &
wrk_pid=$!
sleep 2
perf record -F 999 -g -p "$srv_main" -o "$run/perf.data" -- sleep "$seconds" >"$run/perf.log" 2>&1 ||
  die "perf record failed: $(tail -n 3 "$run/perf.log")"
wait "$wrk_pid" || true
after=$(server_cpu_ns "$srv_pid")
line=$(cat "$run/wrk.txt")
requests=$(kv requests "$line")
[ "${requests:-0}" -gt 0 ] || die "wrk completed no request: $line"
us=$(awk -v a="$before" -v b="$after" -v n="$requests" 'BEGIN { printf "%.3f", (b - a) / n / 1000 }')
rps=$(awk -v n="$requests" -v d="$(kv duration_us "$line")" 'BEGIN { printf "%.0f", n / (d / 1e6) }')

md=$out/where-$server-$key.md
{
  echo "### Where the time goes: $server, ${file_path[$key]}"
  echo
  echo "- \`bench/where.sh --server $server --file $key --seconds $seconds --conns $conns\`; $(date -u '+%Y-%m-%d %H:%M UTC'); $obj"
  echo "- CPU per request ${us} µs (schedstat over $requests requests, ${rps} req/s; perf running); $pinning; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  perf script -i "$run/perf.data" -F ip,sym,dso 2>/dev/null | awk -v us="$us" -v bin="$obj" -f "$here/lib/parts.awk"
} >"$md"
cat "$md"
stop_all
