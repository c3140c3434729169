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
# CPU per request = on-CPU ns of every server thread (schedstat) around a
# wrk run ÷ the requests wrk completed; median and min..max over rounds.
# Stall: for 20 files of COMPRESS_SYNC_MAX (32 KiB) of distinct text, the
# server CPU of the first request with each coding (compressed on the
# request's thread) minus that of the second (from the cache).
set -euo pipefail
prog=bench/compress_cpu.sh
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR
source "$here/lib/common.sh"

rounds=5 duration=3 bin="$here/../build/release/server/beneath"
while [ $# -gt 0 ]; do
  case $1 in
  --rounds) rounds=$2; shift 2 ;;
  --duration) duration=$2; shift 2 ;;
  --bin) bin=$2; shift 2 ;;
  *) die "unknown argument $1" ;;
  esac
done
[ -x "$bin" ] || die "no beneath at $bin (cmake --build --preset release)"
for t in wrk nginx curl gzip; do
  command -v $t >/dev/null || die "$t is missing (scripts/deps.sh test)"
done
bench_pinning

tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-compress-cpu.XXXXXX")
chmod 755 "$tmp" # nginx's worker runs as nobody
pids=()
cleanup() {
  for p in "${pids[@]}"; do stop_pid "$p"; done
  rm -rf "$tmp"
}
trap cleanup EXIT

# A stylesheet of 20 KiB: rules with varied selectors and values.
mkdir -p "$tmp/www" "$tmp/stall"
awk 'BEGIN { srand(7); for (i = 0; i < 2000; i++)
  printf ".c%d > a:hover{color:#%06x;margin:%dpx %dpx;font:%dpx sans-serif}\n",
    i, int(rand() * 16777215), i % 40, i % 17, 10 + i % 9 }' >"$tmp/www/style.css"
truncate -s 20480 "$tmp/www/style.css"
gzip -9 -k -n "$tmp/www/style.css"
touch -r "$tmp/www/style.css" "$tmp/www/style.css.gz"
chmod -R a+rX "$tmp/www"

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
  mkdir -p "$tmp/$1"
  cat >"$tmp/$1/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $tmp/$1/nginx.pid;
error_log $tmp/$1/error.log warn;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  sendfile on;
  keepalive_requests 1000000000;
  client_body_temp_path $tmp/$1/body;
  proxy_temp_path $tmp/$1/proxy;
  fastcgi_temp_path $tmp/$1/fastcgi;
  uwsgi_temp_path $tmp/$1/uwsgi;
  scgi_temp_path $tmp/$1/scgi;
  server { listen 127.0.0.1:$2; root $tmp/www; $3 }
}
EOF
}

for n in "${names[@]}"; do
  case $n in
  beneath:*)
    # shellcheck disable=SC2086 # the options are words
    "${pin_server[@]}" "$bin" --listen 127.0.0.1:0 --threads 1 \
      --access-log off --root "$tmp/www" ${opts[$n]} 2>"$tmp/$n.err" &
    pid_of[$n]=$!
    pids+=("$!")
    ;;
  nginx:*)
    port[$n]=$(free_port)
    case $n in
    nginx:gzip-1) d="gzip on; gzip_types text/css;" ;;
    nginx:gzip-6) d="gzip on; gzip_types text/css; gzip_comp_level 6;" ;;
    *) d="gzip_static on;" ;;
    esac
    nginx_conf "$n" "${port[$n]}" "$d"
    "${pin_server[@]}" nginx -c "$tmp/$n/nginx.conf" -p "$tmp/$n/" \
      -e "$tmp/$n/error.log" 2>"$tmp/$n.err" &
    pid_of[$n]=$!
    pids+=("$!")
    srv_pid=$! # wait_http watches it
    wait_http "${port[$n]}" || die "$n did not start: $(cat "$tmp/$n.err")"
    ;;
  esac
done
for n in "${names[@]}"; do
  [[ $n == beneath:* ]] || continue
  for _ in $(seq 100); do
    grep -q 'listening on' "$tmp/$n.err" && break
    sleep 0.05
  done
  port[$n]=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$tmp/$n.err" | head -1)
  [ -n "${port[$n]}" ] || die "$n did not start: $(cat "$tmp/$n.err")"
done

# Check each answer (and warm the caches): status, coding, decoded body.
declare -A wire
for n in "${names[@]}"; do
  want=${ae[$n]}
  [ "$n" = beneath:identity ] && want=""
  hdrs=$(curl -s -D - -o "$tmp/body" -H "Accept-Encoding: ${ae[$n]}" \
    "http://127.0.0.1:${port[$n]}/style.css" | tr -d '\r')
  got=$(awk -F': ' 'tolower($1) == "content-encoding" { print $2 }' <<<"$hdrs")
  [ "$got" = "$want" ] || die "$n: Content-Encoding '$got', want '$want'"
  wire[$n]=$(stat -c %s "$tmp/body")
  curl -s --compressed "http://127.0.0.1:${port[$n]}/style.css" |
    cmp -s - "$tmp/www/style.css" || die "$n: the decoded body differs"
done

measure() { # NAME: one wrk run; prints ns per request
  local n=$1 before after reqs
  before=$(server_cpu_ns "${pid_of[$n]}")
  reqs=$("${pin_client[@]}" wrk -t1 -c8 -d"${duration}s" \
    -H "Accept-Encoding: ${ae[$n]}" "http://127.0.0.1:${port[$n]}/style.css" |
    awk '/requests in/ {print $1}')
  after=$(server_cpu_ns "${pid_of[$n]}")
  [ "${reqs:-0}" -gt 0 ] || die "$n: wrk completed no request"
  echo $(((after - before) / reqs))
}

declare -A res
for r in $(seq 0 $((rounds - 1))); do
  for k in $(seq 0 $((${#names[@]} - 1))); do
    n=${names[$(((k + r) % ${#names[@]}))]}
    res[$n]+="$(measure "$n") "
  done
  note "round $((r + 1))/$rounds done"
done

echo "# server CPU per request (ns) for GET /style.css (20480 bytes), $rounds rounds of ${duration}s, wrk -t1 -c8, $pinning"
echo "# $("$bin" --version 2>&1 | head -n 1); nginx $(nginx -v 2>&1 | sed 's/.*version: //'); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-20s %8s %8s %8s %12s\n' config median min max wire-bytes
for n in "${names[@]}"; do
  read -r med min max < <(tr ' ' '\n' <<<"${res[$n]}" | grep . | sort -n |
    awk '{v[NR]=$1} END {print v[int((NR+1)/2)], v[1], v[NR]}')
  printf '%-20s %8d %8d %8d %12d\n' "$n" "$med" "$min" "$max" "${wire[$n]}"
done

# --- the stall of compressing on the request's thread ---------------------
for i in $(seq 20); do
  awk -v s="$i" 'BEGIN { srand(s); for (j = 0; j < 2000; j++)
    printf ".s%d-%d{color:#%06x;padding:%dpx}\n", s, j, int(rand() * 16777215), j % 50 }' >"$tmp/stall/f$i.css"
  truncate -s 32768 "$tmp/stall/f$i.css"
done
echo
echo "# stall: server CPU (µs) of the first request of a 32 KiB CSS file (compressed on the request's thread) minus the second (cached); 20 files per coding"
printf '%-6s %8s %8s %8s\n' coding median min max
for c in gzip br zstd; do
  "${pin_server[@]}" "$bin" --listen 127.0.0.1:0 --threads 1 --access-log off \
    --root "$tmp/stall" --compress "$c" 2>"$tmp/stall-$c.err" &
  sp=$!
  pids+=("$sp")
  for _ in $(seq 100); do
    grep -q 'listening on' "$tmp/stall-$c.err" && break
    sleep 0.05
  done
  sport=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$tmp/stall-$c.err" | head -1)
  [ -n "$sport" ] || die "stall server did not start"
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
  read -r med min max < <(tr ' ' '\n' <<<"$vals" | grep . | sort -n |
    awk '{v[NR]=$1} END {print v[int((NR+1)/2)], v[1], v[NR]}')
  printf '%-6s %8d %8d %8d\n' "$c" "$med" "$min" "$max"
  stop_pid "$sp"
done
