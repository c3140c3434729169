#!/usr/bin/env bash
# bench/idle_conns.sh: what a waiting connection costs, beneath beside nginx.
#
#   bench/idle_conns.sh [--conns N] [--rounds N] [--settle S] [--out DIR]
#                       [--beneath PATH] [--also NAME=PATH]... [--protos LIST]
#
# For each server and protocol, in --rounds rounds (default 3; the order of
# the servers rotated by one per round), a fresh server is started (beneath:
# its default options but --access-log off, limits raised to the count;
# nginx: one worker, `listen` and `listen ... http2` for h2c, keep-alive 600
# s), answers one request, and its serving process's PSS is read
# (/proc/PID/smaps_rollup; beneath: the keeper's child; nginx: the worker).
# Then lib/hold_conns.py opens --conns connections (default 10000) one
# after the other, on each one GET of a 1 KiB file, its whole response read
# (h1: HTTP/1.1 keep-alive; h2c: HTTP/2 by prior knowledge; h2: HTTP/2 over
# TLS by ALPN, to an https:// listener with an EC P-256 certificate made
# here), then silence. --protos (default h1,h2c) says which, comma-separated.
# --settle seconds (default 3) after the last, the PSS is read again, and a
# fresh client (curl, same protocol) fetches the file: its status and
# time_total are recorded. The PSS added per connection is the difference
# divided by the connections held. --also NAME=PATH adds another beneath
# binary. beneath needs 2 descriptors a connection: with a hard limit
# (ulimit -Hn) below 2 x --conns + 96, fewer are held, and the report says
# so. Writes
# idle_conns.csv and idle_conns.md in --out (default
# build/bench/idle_conns). Builds the release preset unless --beneath.
# bench/README.md ("A waiting connection") has figures.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

conns=10000 rounds=3 settle=3 out="" beneath="" also=() protos=h1,h2c
bench_args conns:count rounds:count settle:count out beneath also:list protos \
  -- "$@"
IFS=, read -r -a protos <<<"$protos"
tls=false
for p in "${protos[@]}"; do
  case $p in
  h1 | h2c) ;;
  h2) tls=true ;;
  *) die "--protos: h1, h2c or h2, not '$p'" ;;
  esac
done
bench_need curl nginx setsid timeout /usr/bin/python3
! $tls || bench_need openssl
/usr/bin/python3 -c 'import h2' 2>/dev/null || die "python3-h2 is missing (scripts/deps.sh test)"
hard=$(ulimit -Hn)
[ "$hard" != unlimited ] || hard=1048576
ulimit -n "$hard"
# beneath keeps 2 descriptors a connection (its socket and a file) and 64
# spare, and lowers --max-connections to what fits: hold fewer then, so
# that the fresh client still fits (ulimit -Hn needs privileges to raise)
fit=$(((hard - 64) / 2 - 16))
if [ "$conns" -gt "$fit" ]; then
  note "warning: the descriptor limit ($hard, ulimit -Hn) lets beneath hold $((fit + 16)) connections (2 descriptors each, 64 spare): holding $fit"
  conns=$fit
fi
bench_out idle_conns
bench_beneath "$beneath" "$out"
bench_work beneath-idle
text_file "$root/1k.html" 1024
chmod -R a+rX "$root"
limit=$((conns + 1000))
if $tls; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
    -keyout "$run/key.pem" -out "$run/cert.pem" 2>/dev/null
  chmod a+r "$run/key.pem" "$run/cert.pem"
fi

names=(beneath nginx) bins=("$beneath_bin" nginx)
for a in "${also[@]}"; do
  if ! [[ $a == *=* && ${a%%=*} =~ ^[A-Za-z0-9._-]+$ ]]; then
    die "--also wants NAME=PATH, not '$a'"
  fi
  [ -x "${a#*=}" ] || die "--also ${a%%=*}: not an executable: ${a#*=}"
  names+=("${a%%=*}") bins+=("${a#*=}")
done

pss_kib() { awk '/^Pss:/ { print $2 }' "/proc/$1/smaps_rollup" 2>/dev/null || echo ""; }
socket_count() { find "/proc/$1/fd" -lname 'socket:*' 2>/dev/null | wc -l; }

# nginx_conf FILE PORT H2C_PORT TLS_PORT: one worker, room for the
# connections (TLS_PORT: with --protos h2)
nginx_conf() {
  cat >"$1" <<EOF
worker_processes 1;
worker_rlimit_nofile $((limit * 2));
daemon off;
pid $run/nginx.pid;
error_log $run/nginx-error.log warn;
events { worker_connections $limit; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  sendfile on;
  keepalive_timeout 600s;
  keepalive_requests 1000000000;
$(nginx_temps)
  server {
    listen 127.0.0.1:$2;
    listen 127.0.0.1:$3 http2;
$($tls && printf '    listen 127.0.0.1:%s ssl http2;\n    ssl_certificate %s;\n    ssl_certificate_key %s;' "$4" "$run/cert.pem" "$run/key.pem")
    root $root;
  }
}
EOF
}

# start I: a fresh server I; sets pid (its group), main (the serving
# process), port, h2c_port, tls_port
start() {
  local i=$1 log="$out/server-${names[$1]}.log"
  if [ "${bins[i]}" = nginx ]; then
    port=$(free_port) || die "no free port"
    h2c_port=$(free_port) || die "no free port"
    tls_port=$(free_port) || die "no free port"
    nginx_conf "$run/nginx.conf" "$port" "$h2c_port" "$tls_port"
    setsid nginx -e "$run/nginx-error.log" -c "$run/nginx.conf" >"$log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do
      curl -s -o /dev/null "http://127.0.0.1:$port/1k.html" && break
      sleep 0.1
    done
    main=$(ps -o pid= --ppid "$pid" | head -n 1 | tr -d ' ')
  else
    local -a https=()
    ! $tls || https=(--listen https://127.0.0.1:0 --tls-cert "$run/cert.pem"
      --tls-key "$run/key.pem")
    setsid "${bins[i]}" --root "$root" --listen 127.0.0.1:0 "${https[@]}" \
      --access-log off --max-connections "$limit" --max-connections-per-ip 0 \
      --timeout 600 2>"$log" &
    pid=$!
    for _ in $(seq 200); do
      [ "$(grep -c 'listening on' "$log")" -ge $((${#https[@]} ? 2 : 1)) ] && break
      sleep 0.05
    done
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log" | head -n 1)
    tls_port=$(sed -n 's|.*listening on https://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log" | head -n 1)
    h2c_port=$port # one port: HTTP/2 by its preface
    main=$(serving_pid "$pid")
  fi
  if [ -z "$port" ] || [ -z "$main" ]; then
    die "${names[i]} did not start: $(tail -n 3 "$log")"
  fi
  bench_pids+=("$pid")
}

stop() { stop_pid "$pid"; }

csv=$out/idle_conns.csv
echo "round,position,proto,server,conns,held,pss_before_kib,pss_after_kib,bytes_per_conn,fresh_status,fresh_s" >"$csv"
# row ROUND POS PROTO I: one fresh server I, --conns idle PROTO connections
row() {
  local proto=$3 i=$4 before after n=0 held per fresh p url
  start "$i"
  local -a curl_proto=(--http1.1)
  p=$port url="http://127.0.0.1:$port/1k.html"
  case $proto in
  h2c) p=$h2c_port url="http://127.0.0.1:$h2c_port/1k.html"
    curl_proto=(--http2-prior-knowledge) ;;
  h2) p=$tls_port url="https://127.0.0.1:$tls_port/1k.html"
    curl_proto=(-k --http2) ;;
  esac
  curl -s -o /dev/null "${curl_proto[@]}" "$url" || true
  sleep 0.5
  before=$(pss_kib "$main")
  rm -f "$run/hold.ready"
  timeout 600 /usr/bin/python3 "$here/lib/hold_conns.py" "$p" "$conns" /1k.html \
    "$proto" "$run/hold.ready" 2>"$run/hold.err" &
  hold_pid=$!
  for _ in $(seq 3000); do
    [ -s "$run/hold.ready" ] && break
    kill -0 "$hold_pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -s "$run/hold.ready" ] && n=$(cat "$run/hold.ready")
  sleep "$settle"
  after=$(pss_kib "$main")
  held=$(socket_count "$main")
  fresh=$(curl -s -o /dev/null -m 10 -w '%{http_code},%{time_total}' \
    "${curl_proto[@]}" "$url" || echo "failed,")
  stop_pid "$hold_pid"
  hold_pid=""
  stop
  [ "$n" = "$conns" ] || note "warning: ${names[i]} $proto: $n of $conns held: $(head -c 300 "$run/hold.err")"
  per=""
  [ "${n:-0}" -gt 0 ] && [ -n "$before" ] && [ -n "$after" ] &&
    per=$(((after - before) * 1024 / n))
  echo "$1,$2,$proto,${names[i]},$conns,$n,$before,$after,$per,$fresh" >>"$csv"
  note "${names[i]} $proto: $n held ($held sockets), PSS $before -> $after KiB: $per bytes a connection; fresh client $fresh"
}

files=("${protos[@]}") # bench_rounds' "files": the protocols
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$SECONDS
bench_rounds "$rounds" row "${!names[@]}"

{
  echo "## A waiting connection: PSS per idle connection"
  echo
  echo "- started: $started; took $((SECONDS - t0)) s; \`bench/idle_conns.sh --conns $conns --rounds $rounds --settle $settle --protos $(IFS=,; echo "${protos[*]}")\`; descriptor limit $hard"
  echo "- beneath: $beneath_bin, default options but --access-log off, limits raised; nginx $(nginx -v 2>&1 | sed 's/.*version: //'), 1 worker"
  echo "- machine: $(nproc) CPUs, kernel $(uname -r); load average at the start: $load_start, at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "PSS added per connection (bytes) and a fresh client's time while they wait: median (min .. max) over $rounds rounds, a fresh server each."
  echo
  echo "| server | protocol | connections held | PSS per connection, bytes | fresh client, ms |"
  echo "|---|---|---|---|---|"
  awk -F, -v names="${names[*]}" -v protos="${protos[*]}" "$median_awk"'
    NR > 1 { k = $4 SUBSEP $3; n[k]++; held[k, n[k]] = $6; per[k, n[k]] = $9
             ok[k] += ($10 == 200); ms[k, n[k]] = $11 * 1000 }
    END {
      ns = split(names, s, " "); np = split(protos, p, " ")
      for (pi = 1; pi <= np; pi++) for (si = 1; si <= ns; si++) {
        k = s[si] SUBSEP p[pi]; m = n[k]
        split("", a); split("", b); split("", c)
        for (r = 1; r <= m; r++) { a[r] = per[k, r]; b[r] = ms[k, r]; c[r] = held[k, r] }
        printf "| %s | %s | %s | %s | %s (%d of %d 200) |\n", s[si],
          p[pi] == "h1" ? "HTTP/1.1" : p[pi] == "h2" ? "h2 (TLS)" : "h2c",
          mmm(c, m, "%d"), mmm(a, m, "%.0f"),
          mmm(b, m, "%.1f"), ok[k], m
      }
    }' "$csv"
} >"$out/idle_conns.md"
cat "$out/idle_conns.md"
