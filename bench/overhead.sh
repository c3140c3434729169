#!/usr/bin/env bash
# bench/overhead.sh: confinement overhead at the HTTP level, measured in pairs.
#
#   bench/overhead.sh [--quick] [--pairs N] [--duration S] [--conns N]
#                     [--out DIR] [--beneath PATH]
#
# Starts one beneath server per configuration (lexical, the unconfined
# baseline; kernel beneath; kernel no-jumps; emulated beneath, with its
# directory cache and without: --resolver-cache 0), all at once, each
# --threads 1 pinned to CPU 0, and runs --pairs rounds (default 10): in each
# round every configuration serves the 1 KiB file at depth 1, then at depth 8,
# to wrk (CPU 1, keep-alive, --conns connections, default 50) for --duration
# seconds (default 2), in an order rotated by one configuration per round.
# Each row is divided by the lexical row of the same round and file;
# overhead = 1 - that ratio. Prints, and writes to overhead.md, the median
# overhead over the rounds, min .. max, and the mean with its 95% confidence
# interval; overhead.csv has every round's raw req/s, summary.csv the table.
# --quick: 2 pairs of 1 s. --out: default build/bench/overhead (quick:
# build/bench-quick/overhead). Builds the release preset unless --beneath.
# bench/README.md ("Paired confinement overhead") says why.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

quick=0 pairs="" duration="" conns=50 out="" beneath=""
bench_args quick:flag pairs:count duration:count conns:count out beneath -- "$@"
if [ "$quick" = 1 ]; then
  pairs=${pairs:-2} duration=${duration:-1}
else
  pairs=${pairs:-10} duration=${duration:-2}
fi
files=(1k-d1 1k-d8)

bench_need curl wrk taskset setsid timeout
bench_pinning
bench_out overhead
bench_beneath "$beneath" "$out"
bench_work beneath-overhead small

# --- configurations: one table, one row each; the first is the baseline ---------
# name|backend|--confine flags|more beneath options (words split on spaces)
configs=(
  "lexical:beneath|lexical|beneath|"
  "kernel:beneath|kernel|beneath|"
  "kernel:no-jumps|kernel|no-jumps|"
  "emulated:beneath|emulated|beneath|"
)
configs+=("emulated:beneath/no-cache|emulated|beneath|--resolver-cache 0")
cache_note="emulated rows: with the directory cache (the default) and without (--resolver-cache 0)"

c_name=() c_server=() c_backend=() c_flags=() c_threads=() c_pinned=() c_opts=()
c_skip=() c_pid=() c_main=() c_port=()
for spec in "${configs[@]}"; do
  IFS='|' read -r cfg backend flags opts <<<"$spec"
  c_name+=("$cfg") c_server+=(beneath) c_backend+=("$backend") c_flags+=("$flags")
  c_threads+=(1) c_pinned+=(yes) c_opts+=("$opts")
done
baseline=${c_name[0]}

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
t0=$SECONDS
start_all "$out"
for ci in "${!c_name[@]}"; do
  [ -z "${c_skip[ci]}" ] || die "${c_name[ci]}: ${c_skip[ci]} (log: $out/server-*.log)"
done

precheck_all "${!c_name[@]}"

# Warm-up: one unrecorded second per server
warm_up "${file_path[${files[1]}]}" "$conns" "${!c_name[@]}"

csv=$out/overhead.csv
echo "round,position,file,path,config,backend,flags,options,connections,status,duration_s,requests,rps,p50_us,p99_us,mbps,err_status,err_socket" >"$csv"
overhead_row() { # ROUND POS FILE CI: one wrk run
  local key=$3 ci=$4 wr
  wr=$(wrk_row "http://127.0.0.1:${c_port[ci]}${file_path[$key]}" "$conns" yes "$duration")
  [ "$wr" != wrk-failed ] || wr="wrk-failed,,,,,,,,"
  echo "$1,$2,$key,${file_path[$key]},${c_name[ci]},${c_backend[ci]},${c_flags[ci]//,/+},${c_opts[ci]},$conns,$wr" >>"$csv"
}
bench_rounds "$pairs" overhead_row "${!c_name[@]}"
series_s=$((SECONDS - t0))
stop_all

bad=$(awk -F, 'NR > 1 && $10 != "ok"' "$csv" | wc -l)
{
  [ "$quick" = 0 ] ||
    echo "**QUICK RUN (bench/overhead.sh --quick): these figures are noise, not measurements; rerun without --quick on a quiet machine.**"
  echo "## Paired confinement overhead"
  echo
  echo "- started: $started; took ${series_s} s; \`bench/overhead.sh --pairs $pairs --duration $duration --conns $conns\`$([ "$quick" = 1 ] && echo " (--quick)")"
  echo "- $pairs rounds; per round every configuration serves each file for ${duration} s, one after the other, the order rotated by one configuration per round"
  echo "- beneath --threads 1 --access-log off, one server per configuration, all up at once; $pinning; wrk $(wrk -v 2>&1 | head -n 1 | awk '{ print $2 }'), 1 thread, keep-alive, $conns connections"
  echo "- beneath: $("$beneath_bin" --version 2>&1 | head -n 1) ($beneath_bin); $cache_note"
  echo "- machine: $(nproc) CPUs, kernel $(uname -r); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "overhead = 1 − req/s ÷ req/s of \`$baseline\` (unconfined) in the same round, same file; over the rounds:"
  echo "median, min .. max, mean with its 95% confidence interval (Student t, pairs − 1 degrees of freedom)."
  echo "A negative overhead means faster than the baseline in that round."
  [ "$bad" = 0 ] || echo "**$bad row(s) not ok** (status column of overhead.csv): their rounds do not count."
  echo
  awk -v baseline="$baseline" -v configs="${c_name[*]}" -v files="${files[*]}" \
    -v summary="$out/summary.csv" -f "$here/lib/median.awk" -f "$here/lib/stats.awk" -f "$here/lib/overhead.awk" "$csv"
  echo
  echo "Raw req/s of every round: overhead.csv; this table: summary.csv (in $out)."
} >"$out/overhead.md"
cat "$out/overhead.md"
