#!/usr/bin/env bash
# bench/tls_front.sh: HTTPS through beneath's TLS front beside the GnuTLS path
# it replaced and beside nginx.
#
#   bench/tls_front.sh --base PATH [--rounds N] [--duration S] [--conns N]
#                      [--big-conns N] [--out DIR] [--beneath PATH]
#                      [--also NAME=PATH]...
#
# Every server serves https://127.0.0.1 with the same EC P-256 certificate
# (made here), one worker, pinned to CPU 0; wrk runs on CPU 1 with
# keep-alive: beneath (the front: OpenSSL, the byte tap) and --base PATH
# (a beneath binary from before the front: libmicrohttpd's GnuTLS; e.g. the
# parent commit's release build), both --threads 1 --access-log off; nginx
# (1 worker, `listen ... ssl`, access_log off); --also NAME=PATH adds another
# beneath binary (a hand-off candidate). Then --rounds rounds (default 5): in
# each, every server serves the 1 KiB file to --conns connections (default
# 50) and the 10 MiB file to --big-conns (default 4), for --duration seconds
# (default 3) each, the order rotated by one server per round. Around every
# wrk run it reads the servers' on-CPU nanoseconds (/proc/PID/task/*/
# schedstat; server_cpu_ns: beneath's keeper and its serving process, nginx's
# master and worker). Reports per server and file the median and min .. max
# over the rounds of CPU µs per request, of its ratio to --base in the same
# round, of MB/s and of its ratio to nginx in the same round. Writes
# tls_front.csv (every row) and tls_front.md in --out (default
# build/bench/tls_front). Builds the release preset unless --beneath.
# bench/README.md ("HTTPS: the TLS front") has figures.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

base="" rounds=5 duration=3 conns=50 big_conns=4 out="" beneath="" also=()
bench_args base rounds:count duration:count conns:count big_conns:count out \
  beneath also:list -- "$@"
[ -n "$base" ] || die "--base PATH: the beneath binary to compare with (GnuTLS)"
[ -x "$base" ] || die "--base: not an executable: $base"
base=$(cd "$(dirname "$base")" && pwd)/$(basename "$base")

bench_need curl wrk taskset nginx openssl
bench_pinning
bench_out tls_front
bench_beneath "$beneath" "$out"
bench_work beneath-tls
tls_files

# --- servers: name, binary ("nginx" for nginx) ----------------------------------
names=(front base nginx) bins=("$beneath_bin" "$base" nginx)
for a in "${also[@]}"; do
  [[ $a == *=* ]] && [[ ${a%%=*} =~ ^[A-Za-z0-9._-]+$ ]] ||
    die "--also wants NAME=PATH, not '$a'"
  [ -x "${a#*=}" ] || die "--also ${a%%=*}: not an executable: ${a#*=}"
  names+=("${a%%=*}") bins+=("${a#*=}")
done
pids=() ports=()

start_one() { # I: start server I, set pids[I] ports[I]
  local i=$1 log="$out/server-${names[$1]}.log" port
  if [ "${bins[i]}" = nginx ]; then
    port=$(free_port) || die "no free port"
    nginx_tls_conf "$run/nginx.conf" "$port" ""
    setsid "${pin_server[@]}" nginx -e "$run/nginx-error.log" -c "$run/nginx.conf" \
      >"$log" 2>&1 &
    pids[i]=$!
    for _ in $(seq 100); do
      curl -sk -o /dev/null "https://127.0.0.1:$port/1k.html" && break
      sleep 0.1
    done
  else
    setsid "${pin_server[@]}" "${bins[i]}" --root "$root" \
      --listen https://127.0.0.1:0 --tls-cert "$run/cert.pem" \
      --tls-key "$run/key.pem" --threads 1 --access-log off \
      --max-connections-per-ip 0 2>"$log" &
    pids[i]=$!
    for _ in $(seq 100); do
      grep -q 'listening on https' "$log" && break
      sleep 0.1
    done
    port=$(sed -n 's|.*listening on https://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log")
  fi
  [ -n "$port" ] || die "${names[i]} did not start: $(tail -n 3 "$log")"
  ports[i]=$port
  bench_pids+=("${pids[i]}")
}

for i in "${!names[@]}"; do start_one "$i"; done
for i in "${!names[@]}"; do
  for f in "${files[@]}"; do
    got=$(curl -sk -o /dev/null -w '%{http_code} %{size_download}' \
      "https://127.0.0.1:${ports[i]}${path[$f]}")
    [ "$got" = "200 ${bytes[$f]}" ] || die "${names[i]}: ${path[$f]}: $got"
  done
  run_wrk "https://127.0.0.1:${ports[i]}${path[1k]}" "$conns" yes 1 >/dev/null
done

csv=$out/tls_front.csv
echo "round,position,file,server,connections,status,duration_s,requests,rps,p50_us,p99_us,mbps,err_status,err_socket,cpu_ns,cpu_ns_per_request" >"$csv"
row() { # ROUND POS FILE I
  local i=$4 c=$conns before after wr reqs per=""
  [ "$3" = 1k ] || c=$big_conns
  before=$(server_cpu_ns "${pids[i]}")
  wr=$(wrk_row "https://127.0.0.1:${ports[i]}${path[$3]}" "$c" yes "$duration")
  after=$(server_cpu_ns "${pids[i]}")
  [ "$wr" != wrk-failed ] || wr="wrk-failed,,0,,,,,,"
  IFS=, read -r _ _ reqs _ <<<"$wr"
  [ "${reqs:-0}" -eq 0 ] || per=$(((after - before) / reqs))
  echo "$1,$2,$3,${names[i]},$c,$wr,$((after - before)),$per" >>"$csv"
}
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$SECONDS
bench_rounds "$rounds" row "${!names[@]}"

{
  echo "## HTTPS: the TLS front beside the GnuTLS path and nginx"
  echo
  echo "- started: $started; took $((SECONDS - t0)) s; \`bench/tls_front.sh --rounds $rounds --duration $duration --conns $conns --big-conns $big_conns\`"
  echo "- front: $beneath_bin; base: $base; nginx $(nginx -v 2>&1 | sed 's/.*version: //'), 1 worker, \`listen ... ssl\`; beneath --threads 1 --access-log off; one EC P-256 certificate for all"
  echo "- $pinning; wrk $(wrk -v 2>&1 | head -n 1 | awk '{ print $2 }'), 1 thread, keep-alive; 1 KiB: $conns connections, 10 MiB: $big_conns"
  echo "- machine: $(nproc) CPUs, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), kernel $(uname -r); load average at the start: $load_start, at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "Medians and min .. max over $rounds rounds; ratios are taken within each round."
  echo
  echo "| server | file | CPU µs/request | ÷ base | MB/s | ÷ nginx |"
  echo "|---|---|---|---|---|---|"
  rounds_table "$csv" "${names[*]}" "${files[*]}" 6 16 12 base nginx
} >"$out/tls_front.md"
cat "$out/tls_front.md"
