#!/usr/bin/env bash
# bench/h2_hold.sh: HTTP/2 streams held open against the descriptor limit,
# beneath beside nginx.
#
#   bench/h2_hold.sh [--rounds N] [--hold S] [--conns N] [--nofile N]
#                    [--out DIR] [--beneath PATH]
#
# Each server runs with RLIMIT_NOFILE --nofile (default 4096, podman's
# default) and its default limits: beneath with a plain and an https://
# listener (ALPN h2, h2c by prior knowledge on the plain one), --access-log
# off; nginx 1 worker, worker_rlimit_nofile the same, a plain port
# (HTTP/1.1), a plain `http2` port (h2c; nginx 1.22 speaks only HTTP/2
# there) and `ssl http2`, one certificate for both. Against each, over h2c
# and over h2 on TLS, tests/integration/h2_hold.py --measure: from
# 127.0.0.1, --conns connections (default 64: beneath's
# --max-connections-per-ip) each ask 100 GETs of a 4 MiB file with
# SETTINGS_INITIAL_WINDOW_SIZE 0 and never open a window; for --hold
# seconds (default 10) fresh curl clients from 127.0.0.2, .3 and .4 in turn
# ask HTTP/1.1, h2 and a small file, each bounded at 5 s. Every run starts
# a fresh server; --rounds rounds (default 3), the order rotated per round.
# Reports, per server and protocol, the fresh clients that failed or took
# over 2 s, the slowest, the serving process's peak descriptors (beneath:
# the keeper's child; nginx: the worker) and whether they came back; the
# median and min .. max over the rounds. Writes h2_hold.csv and
# h2_hold.md in --out (default build/bench/h2_hold). Builds the release
# preset unless --beneath.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

rounds=3 hold=10 conns=64 nofile=4096 out="" beneath=""
bench_args rounds:count hold:count conns:count nofile:count out beneath -- "$@"

bench_need curl nginx openssl prlimit python3
/usr/bin/python3 -c 'import h2' 2>/dev/null || die "python3-h2 is not installed (scripts/deps.sh test)"
bench_out h2_hold
bench_beneath "$beneath" "$out"
bench_work beneath-h2-hold
printf '<!DOCTYPE html><title>hold</title><p>hello</p>\n' >"$root/index.html"
printf 'body { color: black }\n' >"$root/small.css"
head -c $((4 << 20)) /dev/urandom >"$root/big.bin"
chmod -R a+rX "$root"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
  -keyout "$run/key.pem" -out "$run/cert.pem" 2>/dev/null
chmod a+r "$run/key.pem" "$run/cert.pem"
tool=$top/tests/integration/h2_hold.py

# start NAME: a fresh server; sets pid, h1 (plain HTTP/1.1 URL), h2c, h2
start() {
  local log=$out/server-$1.log p1 p2 p3
  if [ "$1" = nginx ]; then
    p1=$(free_port) p2=$(free_port) p3=$(free_port)
    cat >"$run/nginx.conf" <<EOF
worker_processes 1;
worker_rlimit_nofile $nofile;
daemon off;
pid $run/nginx.pid;
error_log $run/nginx-error.log warn;
events { worker_connections $nofile; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  sendfile on;
$(nginx_temps)
  server {
    listen 127.0.0.1:$p1;
    listen 127.0.0.1:$p2 http2;
    listen 127.0.0.1:$p3 ssl http2;
    ssl_certificate $run/cert.pem;
    ssl_certificate_key $run/key.pem;
    root $root;
  }
}
EOF
    setsid prlimit --nofile="$nofile:$nofile" nginx -e "$run/nginx-error.log" \
      -c "$run/nginx.conf" >"$log" 2>&1 &
    pid=$!
    h1=http://127.0.0.1:$p1 h2c=http://127.0.0.1:$p2 h2=https://127.0.0.1:$p3
    for _ in $(seq 100); do
      curl -s -o /dev/null --max-time 1 "$h1/" && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    curl -s -o /dev/null --max-time 1 "$h1/" ||
      die "nginx did not start: $(tail -n 3 "$run/nginx-error.log")"
  else
    setsid prlimit --nofile="$nofile:$nofile" "$beneath_bin" --root "$root" \
      --listen 127.0.0.1:0 --listen https://127.0.0.1:0 \
      --tls-cert "$run/cert.pem" --tls-key "$run/key.pem" \
      --access-log off 2>"$log" &
    pid=$!
    for _ in $(seq 600); do # 30 s: a loaded machine starts it slowly
      [ "$(grep -c 'listening on' "$log")" -ge 2 ] && break
      sleep 0.05
    done
    p1=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log")
    p3=$(sed -n 's|.*listening on https://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log")
    [ -n "$p1" ] && [ -n "$p3" ] || die "beneath did not start: $(tail -n 3 "$log")"
    h1=http://127.0.0.1:$p1 h2c=$h1 h2=https://127.0.0.1:$p3
  fi
  bench_pids+=("$pid")
}

csv=$out/h2_hold.csv
echo "round,position,server,protocol,held,answered,fds0,peak,back,probes,failed,slow,max_probe" >"$csv"
# row ROUND POS KEY SERVER/PROTOCOL
row() {
  local server=${4%/*} proto=${4#*/} url_h2 url_h1 r
  start "$server"
  if [ "$proto" = h2c ]; then url_h2=$h2c url_h1=$h1; else url_h2=$h2 url_h1=$h2; fi
  r=$(/usr/bin/python3 "$tool" --measure "$url_h2" "$url_h1" "$pid" \
    --conns "$conns" --hold "$hold")
  stop_pid "$pid"
  echo "$1,$2,$server,$proto,$(kv held "$r"),$(kv answered "$r"),$(kv fds0 "$r"),$(kv peak "$r"),$(kv back "$r"),$(kv probes "$r"),$(kv failed "$r"),$(kv slow "$r"),$(kv max_probe "$r")" >>"$csv"
}
files=(hold)
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
t0=$SECONDS
bench_rounds "$rounds" row beneath/h2c beneath/h2 nginx/h2c nginx/h2

{
  echo "## HTTP/2 streams held at a zero window, RLIMIT_NOFILE $nofile: beneath beside nginx"
  echo
  echo "- started: $started; took $((SECONDS - t0)) s; \`bench/h2_hold.sh --rounds $rounds --hold $hold --conns $conns --nofile $nofile\`"
  echo "- beneath: $beneath_bin (default limits: --max-connections 1024, 64 per address, --timeout 30); nginx $(nginx -v 2>&1 | sed 's/.*version: //'), 1 worker, defaults"
  echo "- attack: $conns connections from 127.0.0.1 x 100 GETs of a 4 MiB file, window 0, held $hold s; fresh clients from 127.0.0.2-4 in turn (curl: HTTP/1.1 /index.html, h2 /index.html, h2 /small.css)"
  echo "- machine: $(nproc) CPUs, kernel $(uname -r); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "Medians and min .. max over $rounds rounds."
  echo
  echo "| server | protocol | held | streams answered | fresh clients | failed | over 2 s | slowest s | peak fds | fds back |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  awk -F, "$median_awk"'
    NR > 1 {
      k = $3 "|" $4
      if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
      n[k]++
      held[k, n[k]] = $5; ans[k, n[k]] = $6; pr[k, n[k]] = $10
      fl[k, n[k]] = $11; sl[k, n[k]] = $12; mp[k, n[k]] = $13
      pk[k, n[k]] = $8; bk[k] += ($9 == $7)
    }
    function col(a, k, fmt,   i, v) {
      split("", v)
      for (i = 1; i <= n[k]; i++) v[i] = a[k, i]
      return mmm(v, n[k], fmt)
    }
    END {
      for (i = 1; i <= nk; i++) {
        k = keys[i]; split(k, p, "|")
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %d of %d |\n", p[1], p[2],
          col(held, k, "%d"), col(ans, k, "%d"), col(pr, k, "%d"), col(fl, k, "%d"),
          col(sl, k, "%d"), col(mp, k, "%.2f"), col(pk, k, "%d"), bk[k], n[k]
      }
    }' "$csv"
} >"$out/h2_hold.md"
cat "$out/h2_hold.md"
