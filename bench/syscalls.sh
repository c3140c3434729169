#!/usr/bin/env bash
# bench/syscalls.sh: system calls per request, beneath beside nginx and
# lighttpd. Each server (pinned to CPU 0) serves a 1 KiB file at depth 1 and
# depth 8; `strace -f -c` is attached to the serving process while one curl
# makes N keep-alive requests on one connection; the counts are divided by N.
# Unlike requests/s, these counts do not depend on the load of the machine.
#
#   bench/syscalls.sh [-n N] [-b path/to/beneath] [-s "beneath nginx lighttpd"]
#                     [-- extra beneath options]
#
# Needs strace and curl; nginx and lighttpd rows are skipped when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

n=1000
bin=build/release/server/beneath
servers="beneath nginx lighttpd"
while [ $# -gt 0 ]; do
  case "$1" in
  -n) n=$2 && shift ;;
  -b) bin=$2 && shift ;;
  -s) servers=$2 && shift ;;
  --) shift && break ;;
  *) echo "usage: $0 [-n N] [-b BIN] [-s SERVERS] [-- beneath options]" >&2 && exit 2 ;;
  esac
  shift
done
extra=("$@")
for t in strace curl taskset setsid; do
  command -v "$t" >/dev/null || { echo "syscalls.sh: $t missing" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/beneath-syscalls.XXXXXX")
chmod 755 "$work"
pid="" spid=""
cleanup() {
  [ -z "$spid" ] || kill -INT "$spid" 2>/dev/null || true
  if [ -n "$pid" ]; then
    kill -TERM -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

root=$work/www
mkdir -p "$root/a/b/c/d/e/f/g"
head -c 1024 /dev/zero | tr '\0' x >"$root/1k.html"
cp "$root/1k.html" "$root/a/b/c/d/e/f/g/1k.html"
chmod -R a+rX "$root"

free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 30000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  return 1
}

wait_up() { # URL
  for _ in $(seq 100); do
    curl -sf -o /dev/null "$1" && return 0
    sleep 0.1
  done
  return 1
}

# start SERVER: sets pid (group leader), main (serving process), port
start() {
  local log=$work/$1.log line
  case "$1" in
  beneath)
    setsid taskset -c 0 "$bin" --root "$root" --listen 127.0.0.1:0 --threads 1 \
      --access-log off --max-connections-per-ip 0 "${extra[@]}" </dev/null >"$log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do
      line=$(grep -o 'listening on http://127\.0\.0\.1:[0-9]*' "$log" | head -n 1 || true)
      [ -n "$line" ] && break
      sleep 0.05
    done
    port=${line##*:}
    main=$pid
    ;;
  nginx)
    port=$(free_port)
    cat >"$work/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  keepalive_requests 1000000000;
  client_body_temp_path $work/nb;
  proxy_temp_path $work/np;
  fastcgi_temp_path $work/nf;
  uwsgi_temp_path $work/nu;
  scgi_temp_path $work/ns;
  server { listen 127.0.0.1:$port; root $root; disable_symlinks ${SYMLINKS:-off}; }
}
EOF
    setsid taskset -c 0 nginx -c "$work/nginx.conf" -p "$work/" -e "$work/nginx-error.log" \
      </dev/null >"$log" 2>&1 &
    pid=$!
    wait_up "http://127.0.0.1:$port/1k.html"
    main=$(ps -o pid= --ppid "$pid" | head -n 1 | tr -d ' ')
    ;;
  lighttpd)
    port=$(free_port)
    cat >"$work/lighttpd.conf" <<EOF
server.document-root = "$root"
server.bind = "127.0.0.1"
server.port = $port
server.pid-file = "$work/lighttpd.pid"
server.errorlog = "$work/lighttpd-error.log"
server.max-keep-alive-requests = 1000000
EOF
    setsid taskset -c 0 lighttpd -D -f "$work/lighttpd.conf" </dev/null >"$log" 2>&1 &
    pid=$!
    main=$pid
    ;;
  esac
  wait_up "http://127.0.0.1:$port/1k.html"
}

stop() {
  kill -TERM -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=""
}

count() { # NAME PATH
  local url=http://127.0.0.1:$port$2
  : >"$work/curl.cfg"
  for _ in $(seq "$n"); do
    printf 'url = "%s"\noutput = "/dev/null"\n' "$url" >>"$work/curl.cfg"
  done
  strace -f -c -o "$work/strace.txt" -p "$main" 2>"$work/strace.err" &
  spid=$!
  for _ in $(seq 50); do
    grep -q attached "$work/strace.err" 2>/dev/null && break
    sleep 0.1
  done
  sleep 0.3
  curl -s -K "$work/curl.cfg"
  sleep 0.2
  kill -INT "$spid"
  wait "$spid" 2>/dev/null || true
  spid=""
  awk -v name="$1" -v path="$2" -v n="$n" '
    /^-----/ { d++; next }
    d == 1 && NF >= 5 { c[$NF] = $4 }
    d == 2 && $NF == "total" { total = $4 }
    END {
      top = ""
      PROCINFO["sorted_in"] = "@val_num_desc"
      for (k in c) if (c[k] / n >= 0.05) top = top sprintf(" %s %.2f", k, c[k] / n)
      printf "%-10s %-24s %6.2f  %s\n", name, path, total / n, top
    }' "$work/strace.txt"
}

printf '%-10s %-24s %6s  %s\n' server path per_req "calls per request"
for s in $servers; do
  case "$s" in beneath) [ -x "$bin" ] || { echo "no $bin" >&2; continue; } ;;
  *) command -v "$s" >/dev/null || { echo "$s not installed: skipped" >&2; continue; } ;;
  esac
  start "$s" || { echo "$s did not start" >&2; stop; continue; }
  count "$s" /1k.html
  count "$s" /a/b/c/d/e/f/g/1k.html
  stop
done
