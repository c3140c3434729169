#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/compress_cpu.sh: server CPU time per request of compressed answers of
# a 20 KiB CSS file, beneath (--compress, warm cache) beside nginx gzip on
# and gzip_static on, in rotated rounds; then the worst stall of a worker
# that compresses a file on the request's thread.
#
#   bench/compress_cpu.sh [--rounds N] [--duration S] [--bin PATH]
#
# Configurations (each server --threads 1 / one worker, pinned to CPU 0;
# wrk -t1 -c8 on CPU 1, keep-alive, GET /style.css with Accept-Encoding):
#   beneath:identity    --compress off, Accept-Encoding: gzip (no coding)
#   beneath:gzip        --compress gzip (level 6), cached after the first
#   beneath:br          --compress br (quality 5), cached
#   beneath:zstd        --compress zstd (level 3), cached
#   beneath:gz-sidecar  --precompressed gz --compress off, style.css.gz
#   nginx:gzip-1        gzip on (nginx's default level 1, every request)
#   nginx:gzip-6        gzip on, gzip_comp_level 6 (beneath's gzip level)
#   nginx:gzip_static   gzip_static on, the same style.css.gz
# CPU per request = on-CPU ns of every server thread (schedstat; beneath:
# keeper and serving process, nginx: master and worker) around a
# wrk run ÷ the requests wrk completed; median and min..max over rounds.
# Stall: for 20 files of COMPRESS_SYNC_MAX (32 KiB) of distinct text, the
# server CPU of the first request with each coding (compressed on the
# request's thread) minus that of the second (from the cache).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

rounds=5 duration=3 bin=$release_bin
bench_args rounds:count duration:count bin -- "$@"
bench_beneath "$bin"
bench_need wrk nginx curl gzip
bench_pinning
bench_work beneath-compress-cpu # nginx's worker runs as nobody: the dir is 755

# A stylesheet of 20 KiB: rules with varied selectors and values.
mkdir -p "$work/www" "$work/stall"
awk 'BEGIN { srand(7); for (i = 0; i < 2000; i++)
  printf ".c%d > a:hover{color:#%06x;margin:%dpx %dpx;font:%dpx sans-serif}\n",
    i, int(rand() * 16777215), i % 40, i % 17, 10 + i % 9 }' >"$work/www/style.css"
truncate -s 20480 "$work/www/style.css"
gzip -9 -k -n "$work/www/style.css"
touch -r "$work/www/style.css" "$work/www/style.css.gz"
chmod -R a+rX "$work/www"

names=(beneath:identity beneath:gzip beneath:br beneath:zstd
  beneath:gz-sidecar nginx:gzip-1 nginx:gzip-6 nginx:gzip_static)
declare -A opts ae port pid_of
opts[beneath:identity]="--compress off"
opts[beneath:gzip]="--compress gzip"
opts[beneath:br]="--compress br"
opts[beneath:zstd]="--compress zstd"
opts[beneath:gz-sidecar]="--precompressed gz --compress off"
for n in "${names[@]}"; do ae[$n]=gzip; done
ae[beneath:br]=br
ae[beneath:zstd]=zstd

nginx_conf() { # NAME PORT DIRECTIVES
  mkdir -p "$work/$1"
  cat >"$work/$1/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/$1/nginx.pid;
error_log $work/$1/error.log warn;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  sendfile on;
  keepalive_requests 1000000000;
  client_body_temp_path $work/$1/body;
  proxy_temp_path $work/$1/proxy;
  fastcgi_temp_path $work/$1/fastcgi;
  uwsgi_temp_path $work/$1/uwsgi;
  scgi_temp_path $work/$1/scgi;
  server { listen 127.0.0.1:$2; root $work/www; $3 }
}
EOF
}

for n in "${names[@]}"; do
  case $n in
  beneath:*)
    # shellcheck disable=SC2086 # the options are words
    start_beneath "$work/$n.err" --threads 1 --root "$work/www" ${opts[$n]}
    pid_of[$n]=$bench_pid port[$n]=$bench_port
    ;;
  nginx:*)
    port[$n]=$(free_port)
    case $n in
    nginx:gzip-1) d="gzip on; gzip_types text/css;" ;;
    nginx:gzip-6) d="gzip on; gzip_types text/css; gzip_comp_level 6;" ;;
    *) d="gzip_static on;" ;;
    esac
    nginx_conf "$n" "${port[$n]}" "$d"
    "${pin_server[@]}" nginx -c "$work/$n/nginx.conf" -p "$work/$n/" \
      -e "$work/$n/error.log" 2>"$work/$n.err" &
    pid_of[$n]=$!
    bench_pids+=("$!")
    srv_pid=$! wait_http "${port[$n]}" || die "$n did not start: $(cat "$work/$n.err")"
    ;;
  esac
done

# Check each answer (and warm the caches): status, coding, decoded body.
declare -A wire
for n in "${names[@]}"; do
  want=${ae[$n]}
  [ "$n" = beneath:identity ] && want=""
  hdrs=$(curl -s -D - -o "$work/body" -H "Accept-Encoding: ${ae[$n]}" \
    "http://127.0.0.1:${port[$n]}/style.css" | tr -d '\r')
  got=$(awk -F': ' 'tolower($1) == "content-encoding" { print $2 }' <<<"$hdrs")
  [ "$got" = "$want" ] || die "$n: Content-Encoding '$got', want '$want'"
  wire[$n]=$(stat -c %s "$work/body")
  curl -s --compressed "http://127.0.0.1:${port[$n]}/style.css" |
    cmp -s - "$work/www/style.css" || die "$n: the decoded body differs"
done

measure() { # NAME PATH: one wrk run; prints ns per request
  local n=$1 before after reqs
  before=$(server_cpu_ns "${pid_of[$n]}")
  reqs=$("${pin_client[@]}" wrk -t1 -c8 -d"${duration}s" \
    -H "Accept-Encoding: ${ae[$n]}" "http://127.0.0.1:${port[$n]}$2" |
    awk '/requests in/ {print $1}')
  after=$(server_cpu_ns "${pid_of[$n]}")
  [ "${reqs:-0}" -gt 0 ] || die "$n: wrk completed no request"
  echo $(((after - before) / reqs))
}

declare -A res # NAME: its ns per request of every round
files=(/style.css) # what every round serves (bench_rounds)
record() { res[$4]+="$(measure "$4" "$3") "; } # ROUND POS PATH NAME: NAME's ns/request
bench_rounds "$rounds" record "${names[@]}"

echo "# server CPU per request (ns) for GET /style.css (20480 bytes), $rounds rounds of ${duration}s, wrk -t1 -c8, $pinning"
echo "# $("$bin" --version 2>&1 | head -n 1); nginx $(nginx -v 2>&1 | sed 's/.*version: //'); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-20s %8s %8s %8s %12s\n' config median min max wire-bytes
for n in "${names[@]}"; do
  read -r med min max < <(med_min_max "${res[$n]}")
  printf '%-20s %8d %8d %8d %12d\n' "$n" "$med" "$min" "$max" "${wire[$n]}"
done

# --- the stall of compressing on the request's thread ---------------------
for i in $(seq 20); do
  awk -v s="$i" 'BEGIN { srand(s); for (j = 0; j < 2000; j++)
    printf ".s%d-%d{color:#%06x;padding:%dpx}\n", s, j, int(rand() * 16777215), j % 50 }' >"$work/stall/f$i.css"
  truncate -s 32768 "$work/stall/f$i.css"
done
echo
echo "# stall: server CPU (µs) of the first request of a 32 KiB CSS file (compressed on the request's thread) minus the second (cached); 20 files per coding"
printf '%-6s %8s %8s %8s\n' coding median min max
for c in gzip br zstd; do
  start_beneath "$work/stall-$c.err" --threads 1 --root "$work/stall" --compress "$c"
  sp=$bench_pid sport=$bench_port
  vals=""
  for i in $(seq 20); do
    u="http://127.0.0.1:$sport/f$i.css"
    a=$(server_cpu_ns "$sp")
    curl -s -o /dev/null -H "Accept-Encoding: $c" "$u"
    b=$(server_cpu_ns "$sp")
    curl -s -o /dev/null -H "Accept-Encoding: $c" "$u"
    d=$(server_cpu_ns "$sp")
    vals+="$((((b - a) - (d - b)) / 1000)) "
  done
  read -r med min max < <(med_min_max "$vals")
  printf '%-6s %8d %8d %8d\n' "$c" "$med" "$min" "$max"
  stop_pid "$sp"
done
