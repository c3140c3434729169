#!/usr/bin/env bash
# bench/cpu.sh: server CPU time per request, beneath beside nginx and lighttpd.
#
#   bench/cpu.sh [--quick] [--rounds N] [--duration S] [--conns N]
#                [--syscalls N] [--out DIR] [--beneath PATH]
#                [--also NAME=PATH]... [--only REGEX]
#
# Starts one server per configuration, all at once, each pinned to CPU 0:
# beneath (its default options, --threads 1 --access-log off) with the
# kernel backend, the emulated backend (with its directory cache) and the
# lexical baseline; nginx (one worker, sendfile on, access_log off) and
# lighttpd (defaults, one process). Then --rounds rounds (default 5): in each,
# every configuration serves the 1 KiB file at depth 1, then at depth 8, to
# wrk (CPU 1, keep-alive, --conns connections, default 50) for --duration
# seconds (default 3), the order rotated by one configuration per round.
# Around every wrk run it reads the on-CPU nanoseconds of all the server's
# threads (and child processes: beneath's keeper and serving process,
# nginx's master and worker) from /proc/PID/task/*/schedstat; the
# difference divided by the requests wrk completed is the server's CPU time
# per request, the figure this benchmark is about: unlike requests/s it does
# not depend on how much CPU the machine had left to give. Reports per
# configuration and file the median, min .. max over the rounds of CPU per
# request, of its ratio to nginx in the same round, of requests/s, and the
# median latency; then system calls per request (strace -f -c over
# --syscalls keep-alive requests on one connection, default 1000, 0: none).
# --also NAME=PATH adds the beneath binary PATH (kernel backend) as row
# kernel:NAME, so a change is measured against its parent in the same run;
# 'NAME=PATH OPTION...' also gives it those beneath options.
# --only keeps the configurations whose name matches (nginx is the ratios'
# reference: keep it). --quick: 2 rounds of 1 s, 200 requests under strace;
# its figures are noise and its report says so. --out: default
# build/bench/cpu (quick: build/bench-quick/cpu); writes cpu.csv (every row),
# summary.csv, syscalls.csv and cpu.md. Builds the release preset unless
# --beneath. bench/README.md ("Server CPU per request") says why.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

quick=0 rounds="" duration="" conns=50 syscalls="" out="" only="" beneath="" also=()
bench_args quick:flag rounds:count duration:count conns:count syscalls out only beneath also:list -- "$@"
if [ "$quick" = 1 ]; then
  rounds=${rounds:-2} duration=${duration:-1} nsys=${syscalls:-200}
else
  rounds=${rounds:-5} duration=${duration:-3} nsys=${syscalls:-1000}
fi
[ "$nsys" = 0 ] || whole --syscalls "$nsys"
files=(1k-d1 1k-d8)

bench_need curl wrk taskset setsid timeout
[ "$nsys" = 0 ] || command -v strace >/dev/null || {
  note "warning: strace is missing: no system call counts"
  nsys=0
}
bench_pinning
bench_out cpu
rm -f "$out"/syscalls.csv
bench_beneath "$beneath" "$out"
bench_work beneath-cpu small

# --- configurations -----------------------------------------------------------
# name|server|backend|flags|binary ("" = --beneath)|more beneath options
ref=nginx:disable_symlinks=off
configs=(
  "kernel:default|beneath|kernel|default|"
  "emulated:default|beneath|emulated|default|"
  "lexical:default|beneath|lexical|default|"
  "$ref|nginx|-|off|"
  "lighttpd:follow-symlink=enable|lighttpd|-|enable|"
)
for a in "${also[@]}"; do
  name=${a%%=*} path=${a#*=} more=""
  if [[ $path == *" "* ]]; then
    more=${path#* } path=${path%% *}
  fi
  if [ "$name" = "$a" ] || ! [[ $name =~ ^[A-Za-z0-9._-]+$ ]]; then
    die "--also wants NAME=PATH (NAME: letters, digits, . _ -), not '$a'"
  fi
  [ -x "$path" ] || die "--also $name: not an executable: $path"
  configs+=("kernel:$name|beneath|kernel|default|$(cd "$(dirname "$path")" && pwd)/$(basename "$path")|$more")
done

c_name=() c_server=() c_backend=() c_flags=() c_threads=() c_pinned=() c_opts=()
c_bin=() c_skip=() c_pid=() c_main=() c_port=()
for spec in "${configs[@]}"; do
  IFS='|' read -r cfg server backend flags bin opts <<<"$spec"
  if [ -n "$only" ] && ! [[ $cfg =~ $only ]]; then
    continue
  fi
  c_name+=("$cfg") c_server+=("$server") c_backend+=("$backend") c_flags+=("$flags")
  c_threads+=(1) c_pinned+=(yes) c_opts+=("$opts") c_bin+=("$bin")
done
nconf=${#c_name[@]}
[ "$nconf" -gt 0 ] || die "--only '$only' matches no configuration"

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
t0=$SECONDS
start_all "$out"
live=()
for ci in "${!c_name[@]}"; do
  if [ -n "${c_skip[ci]}" ]; then
    note "warning: ${c_name[ci]}: ${c_skip[ci]}: not measured"
  else
    live+=("$ci")
  fi
done
[ "${#live[@]}" -gt 0 ] || die "no server started"
precheck_all "${live[@]}"

# Warm-up: one unrecorded second per server
warm_up "${file_path[${files[1]}]}" "$conns" "${live[@]}"

csv=$out/cpu.csv
echo "round,position,file,path,config,server,connections,status,duration_s,requests,rps,p50_us,p99_us,mbps,err_status,err_socket,cpu_ns,cpu_ns_per_request" >"$csv"
cpu_row() { # ROUND POS FILE CI: one wrk run, the server's CPU time around it
  local key=$3 ci=$4 before after wr reqs used per=""
  before=$(server_cpu_ns "${c_pid[ci]}")
  wr=$(wrk_row "http://127.0.0.1:${c_port[ci]}${file_path[$key]}" "$conns" yes "$duration")
  after=$(server_cpu_ns "${c_pid[ci]}")
  [ "$wr" != wrk-failed ] || wr="wrk-failed,,0,,,,,,"
  IFS=, read -r _ _ reqs _ <<<"$wr"
  used=$((after - before))
  [ "${reqs:-0}" -eq 0 ] || per=$((used / reqs))
  echo "$1,$2,$key,${file_path[$key]},${c_name[ci]},${c_server[ci]},$conns,$wr,$used,$per" >>"$csv"
}
bench_rounds "$rounds" cpu_row "${live[@]}"

# System calls per request, one server at a time (the others idle)
echo "config,file,requests,syscalls,per_request,top_per_request" >"$out/syscalls.csv"
if [ "$nsys" -gt 0 ]; then
  for ci in "${live[@]}"; do
    use_server "$ci"
    for key in "${files[@]}"; do
      syscalls_row "${c_name[ci]}" "$key" "$nsys" >>"$out/syscalls.csv"
    done
  done
fi
series_s=$((SECONDS - t0))
stop_all

bad=$(awk -F, 'NR > 1 && $8 != "ok"' "$csv" | wc -l)
args="--rounds $rounds --duration $duration --conns $conns --syscalls $nsys"
[ "$quick" = 0 ] || args="--quick"
{
  [ "$quick" = 0 ] ||
    echo "**QUICK RUN (bench/cpu.sh --quick): these figures are noise, not measurements; rerun without --quick on a quiet machine.**"
  echo "## Server CPU per request"
  echo
  echo "- started: $started; took ${series_s} s; \`bench/cpu.sh $args\`"
  echo "- $rounds rounds; per round every configuration serves each file for ${duration} s, one after the other, the order rotated by one configuration per round"
  echo "- beneath: $("$beneath_bin" --version 2>&1 | head -n 1), default options, --threads 1 --access-log off; nginx $(nginx -v 2>&1 | sed 's/.*version: //'): 1 worker, sendfile on, access_log off; lighttpd $(lighttpd -v 2>&1 | head -n 1 | awk '{ print $1 }'): defaults, 1 process"
  echo "- $pinning; wrk $(wrk -v 2>&1 | head -n 1 | awk '{ print $2 }'), 1 thread, keep-alive, $conns connections"
  echo "- machine: $(nproc) CPUs, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), kernel $(uname -r); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "CPU µs/request = on-CPU time of all the server's threads (/proc/PID/task/*/schedstat) over a wrk run ÷ the requests wrk completed;"
  echo "÷ $ref = that ratio in the same round (lower is better). Medians and min .. max over the rounds."
  [ "$bad" = 0 ] || echo "**$bad row(s) not ok** (status column of cpu.csv): they do not count."
  echo
  awk -v configs="$(for ci in "${live[@]}"; do printf '%s ' "${c_name[ci]}"; done)" -v files="${files[*]}" \
    -v ref="$ref" -v kernel=kernel:default -v emulated=emulated:default \
    -v summary="$out/summary.csv" -f "$here/lib/median.awk" -f "$here/lib/stats.awk" -f "$here/lib/cpu.awk" "$csv"
  echo
  if [ "$nsys" -gt 0 ]; then
    echo "System calls per request (strace -f -c, $nsys keep-alive requests on one connection):"
    echo
    echo "| configuration | file | per request | top calls per request |"
    echo "|---|---|---|---|"
    awk -F, 'NR > 1 { printf "| %s | %s | %s | %s |\n", $1, $2, $5, $6 }' "$out/syscalls.csv"
    echo
  fi
  echo "Every round's rows: cpu.csv; this table: summary.csv (in $out)."
} >"$out/cpu.md"
cat "$out/cpu.md"
