#!/usr/bin/env bash
# bench/h2.sh: HTTP/2 over TLS, beneath beside nginx, with h2load.
#
#   bench/h2.sh [--rounds N] [--duration S] [--conns N] [--streams N]
#               [--big-conns N] [--out DIR] [--beneath PATH]
#
# Both servers serve https://127.0.0.1 with ALPN h2 and the same EC P-256
# certificate (made here), one worker, pinned to CPU 0; h2load (1 thread)
# runs on CPU 1. beneath: --threads 1 --access-log off (h2 is on by
# default); nginx: 1 worker, `listen ... ssl http2`, access_log off. Before
# anything is measured each must answer both files with 200, the whole body
# and HTTP/2 (curl --http2). Then --rounds rounds (default 5): in each, both
# serve the 1 KiB file to --conns connections (default 50) with --streams
# concurrent streams each (default 10), and the 10 MiB file to --big-conns
# connections (default 4, one stream each), for --duration seconds (default
# 3) each, the order rotated per round. Around every h2load run it reads the
# server's on-CPU nanoseconds (/proc/PID/task/*/schedstat; server_cpu_ns:
# beneath's keeper and its serving process, nginx's master and worker).
# Reports, per server and file, the median and min .. max over the rounds
# of CPU µs per request, of its ratio to nginx in the same round, and of
# MB/s and its ratio to nginx. Writes h2.csv (every row) and h2.md in --out
# (default build/bench/h2). Builds the release preset unless --beneath.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

rounds=5 duration=3 conns=50 streams=10 big_conns=4 out="" beneath=""
bench_args rounds:count duration:count conns:count streams:count \
  big_conns:count out beneath -- "$@"

bench_need curl h2load taskset nginx openssl
bench_pinning
bench_out h2
bench_beneath "$beneath" "$out"
bench_work beneath-h2
tls_files

names=(beneath nginx)
pids=() ports=()
for i in "${!names[@]}"; do
  log="$out/server-${names[i]}.log"
  if [ "${names[i]}" = nginx ]; then
    port=$(free_port) || die "no free port"
    nginx_tls_conf "$run/nginx.conf" "$port" http2
    setsid "${pin_server[@]}" nginx -e "$run/nginx-error.log" \
      -c "$run/nginx.conf" >"$log" 2>&1 &
    pids[i]=$!
  else
    setsid "${pin_server[@]}" "$beneath_bin" --root "$root" \
      --listen https://127.0.0.1:0 --tls-cert "$run/cert.pem" \
      --tls-key "$run/key.pem" --threads 1 --access-log off \
      --max-connections-per-ip 0 2>"$log" &
    pids[i]=$!
    port=$(listen_port "$log" 100)
  fi
  bench_pids+=("${pids[i]}")
  for _ in $(seq 100); do
    curl -sk -o /dev/null "https://127.0.0.1:$port/1k.html" && break
    sleep 0.1
  done
  [ -n "$port" ] || die "${names[i]} did not start: $(tail -n 3 "$log")"
  ports[i]=$port
  for f in "${files[@]}"; do
    got=$(curl -sk --http2 -o /dev/null \
      -w '%{http_code} %{size_download} %{http_version}' \
      "https://127.0.0.1:$port${path[$f]}")
    [ "$got" = "200 ${bytes[$f]} 2" ] || die "${names[i]}: ${path[$f]}: $got"
  done
done

# h2load_row URL CONNS STREAMS: status,requests,failed,mbps of one run
h2load_row() {
  local o
  o=$(timeout $((duration + 60)) "${pin_client[@]}" h2load -t 1 -c "$2" \
    -m "$3" -D "$duration" --warm-up-time 1 "$1" 2>&1 || true)
  awk '
    /^finished in/ {
      for (i = 1; i <= NF; i++) if ($i ~ /B\/s,?$/) {
        v = $i; u = v; sub(/[KMG]?B\/s,?$/, "", v); sub(/^[0-9.]+/, "", u)
        mb = v * (u ~ /^G/ ? 1000 : u ~ /^K/ ? 0.001 : u ~ /^M/ ? 1 : 1e-6)
      }
    }
    /^requests:/ { ok = $8; failed = $10 + $12 + $14 }
    /^status codes:/ { bad = $7 + $9 } # 4xx, 5xx
    END {
      st = ok > 0 && failed == 0 && bad == 0 ? "ok" : "errors"
      printf "%s,%d,%d,%.1f\n", st, ok, failed, mb
    }' <<<"$o"
}

csv=$out/h2.csv
echo "round,position,file,server,connections,streams,status,requests,failed,mbps,cpu_ns,cpu_ns_per_request" >"$csv"
row() { # ROUND POS FILE I
  local i=$4 c=$conns m=$streams before after r reqs per=""
  [ "$3" = 1k ] || { c=$big_conns m=1; }
  before=$(server_cpu_ns "${pids[i]}")
  r=$(h2load_row "https://127.0.0.1:${ports[i]}${path[$3]}" "$c" "$m")
  after=$(server_cpu_ns "${pids[i]}")
  IFS=, read -r _ reqs _ <<<"$r"
  [ "${reqs:-0}" -eq 0 ] || per=$(((after - before) / reqs))
  echo "$1,$2,$3,${names[i]},$c,$m,$r,$((after - before)),$per" >>"$csv"
}
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$SECONDS
bench_rounds "$rounds" row "${!names[@]}"

{
  echo "## HTTP/2 over TLS: beneath beside nginx (h2load)"
  echo
  echo "- started: $started; took $((SECONDS - t0)) s; \`bench/h2.sh --rounds $rounds --duration $duration --conns $conns --streams $streams --big-conns $big_conns\`"
  echo "- beneath: $beneath_bin, --threads 1 --access-log off; nginx $(nginx -v 2>&1 | sed 's/.*version: //'), 1 worker, \`listen ... ssl http2\`; one EC P-256 certificate for both"
  echo "- $pinning; $(h2load --version 2>&1 | head -n 1), 1 thread; 1 KiB: $conns connections x $streams streams, 10 MiB: $big_conns connections x 1"
  echo "- machine: $(nproc) CPUs, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), kernel $(uname -r); load average at the start: $load_start, at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "Medians and min .. max over $rounds rounds; ratios are taken within each round."
  echo
  echo "| server | file | CPU µs/request | ÷ nginx | MB/s | ÷ nginx |"
  echo "|---|---|---|---|---|---|"
  rounds_table "$csv" "${names[*]}" "${files[*]}" 7 12 10 nginx nginx
} >"$out/h2.md"
cat "$out/h2.md"
