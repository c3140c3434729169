#!/usr/bin/env bash
# bench/modes.sh: interleaved short wrk rounds over several servers at once,
# median requests/s per server. Used to compare beneath's threading modes
# (libmicrohttpd epoll pool with and without MHD_USE_TURBO, thread per
# connection; each mode is a build, see BENEATH_MHD_MODE in
# server/CMakeLists.txt) and beneath against nginx and lighttpd.
#
#   bench/modes.sh [-d SECONDS] [-r ROUNDS] [-c "50 1"] [-f "/1k.html ..."]
#                  SERVER...
#
# SERVER is one of
#   beneath:LABEL:BINARY[:OPTIONS]  beneath BINARY with OPTIONS (spaces as ,,)
#   mode:MODE[:OPTIONS]             beneath built with BENEATH_MHD_MODE=MODE
#                                   (built into build/mode-MODE if missing)
#   nginx:off | nginx:on            nginx, one worker, disable_symlinks off/on
#   lighttpd                        lighttpd, defaults (follow-symlink enable)
# Every server runs pinned to CPU 0 and stays up; each round runs wrk (CPU 1)
# once against each server for every file and connection count, so the rows
# compared are seconds apart. Prints one line per (file, conns, server) with
# the median, min and max requests/s of the rounds and the ratio of the
# median to the first server's.
# Timing figures on a shared machine are noise: look at min/max.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD

duration=3
rounds=5
conns_list="50"
files="/1k.html /a/b/c/d/e/f/g/1k.html"
while getopts d:r:c:f: o; do
  case $o in
  d) duration=$OPTARG ;;
  r) rounds=$OPTARG ;;
  c) conns_list=$OPTARG ;;
  f) files=$OPTARG ;;
  *) sed -n '2,22s/^# \{0,1\}//p' "$0" >&2 && exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { sed -n '2,22s/^# \{0,1\}//p' "$0" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/beneath-modes.XXXXXX")
chmod 755 "$work"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do
    kill -TERM -- "-$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

root=$work/www
mkdir -p "$root/a/b/c/d/e/f/g"
head -c 1024 /dev/zero | tr '\0' x >"$root/1k.html"
cp "$root/1k.html" "$root/a/b/c/d/e/f/g/1k.html"
head -c 10485760 /dev/urandom >"$root/10m.bin"
chmod -R a+rX "$root"

free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 30000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  return 1
}

mode_bin() { # MODE: a beneath built with that threading mode
  local dir=$top/build/mode-$1
  if [ ! -x "$dir/server/beneath" ]; then
    echo "modes.sh: building $dir" >&2
    cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DENABLE_HARDENING=ON \
      -DBUILD_TESTING=OFF -DBENEATH_MHD_MODE="$1" >"$work/build-$1.log" 2>&1 &&
      cmake --build "$dir" --target beneath -j2 >>"$work/build-$1.log" 2>&1 ||
      { tail -n 20 "$work/build-$1.log" >&2; return 1; }
  fi
  echo "$dir/server/beneath"
}

labels=() ports=()
start_beneath() { # LABEL BINARY OPTIONS
  local log=$work/${#labels[@]}.log line opts
  read -r -a opts <<<"${3//,,/ }"
  setsid taskset -c 0 "$2" --root "$root" --listen 127.0.0.1:0 --threads 1 \
    --access-log off --max-connections 2048 --max-connections-per-ip 0 "${opts[@]}" \
    </dev/null >"$log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do
    line=$(grep -o 'listening on http://127\.0\.0\.1:[0-9]*' "$log" | head -n 1 || true)
    [ -n "$line" ] && break
    sleep 0.05
  done
  [ -n "$line" ] || { cat "$log" >&2; return 1; }
  labels+=("$1") ports+=("${line##*:}")
}

for spec in "$@"; do
  IFS=: read -r kind a b c <<<"$spec"
  case "$kind" in
  beneath) start_beneath "$a" "$b" "${c:-}" ;;
  mode) start_beneath "mode-$a${b:+:$b}" "$(mode_bin "$a")" "${b:-}" ;;
  nginx)
    port=$(free_port)
    mkdir -p "$work/nginx-$a"
    cat >"$work/nginx-$a/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx-$a/nginx.pid;
error_log $work/nginx-$a/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  keepalive_requests 1000000000;
  client_body_temp_path $work/nginx-$a/b;
  proxy_temp_path $work/nginx-$a/p;
  fastcgi_temp_path $work/nginx-$a/f;
  uwsgi_temp_path $work/nginx-$a/u;
  scgi_temp_path $work/nginx-$a/s;
  server { listen 127.0.0.1:$port; root $root; disable_symlinks $a; }
}
EOF
    setsid taskset -c 0 nginx -c "$work/nginx-$a/nginx.conf" -p "$work/nginx-$a/" \
      -e "$work/nginx-$a/error.log" </dev/null >"$work/nginx-$a.log" 2>&1 &
    pids+=($!)
    labels+=("nginx:$a") ports+=("$port")
    ;;
  lighttpd)
    port=$(free_port)
    cat >"$work/lighttpd.conf" <<EOF
server.document-root = "$root"
server.bind = "127.0.0.1"
server.port = $port
server.pid-file = "$work/lighttpd.pid"
server.errorlog = "$work/lighttpd-error.log"
server.max-fds = 4096
server.max-connections = 2048
server.max-keep-alive-requests = 1000000
EOF
    setsid taskset -c 0 lighttpd -D -f "$work/lighttpd.conf" </dev/null >"$work/lighttpd.log" 2>&1 &
    pids+=($!)
    labels+=(lighttpd) ports+=("$port")
    ;;
  *) echo "modes.sh: unknown server '$spec'" >&2 && exit 2 ;;
  esac
done

for i in "${!labels[@]}"; do
  for _ in $(seq 100); do
    curl -sf -o /dev/null "http://127.0.0.1:${ports[i]}/1k.html" && break
    sleep 0.1
  done
  curl -sf -o /dev/null "http://127.0.0.1:${ports[i]}/1k.html" ||
    { echo "modes.sh: ${labels[i]} does not answer" >&2; exit 1; }
done

: >"$work/rows"
for f in $files; do
  for c in $conns_list; do
    for r in $(seq "$rounds"); do
      for i in "${!labels[@]}"; do
        rps=$(taskset -c 1 wrk -t1 -c"$c" -d"${duration}s" "http://127.0.0.1:${ports[i]}$f" |
          awk '/^Requests\/sec/ { print $2 }')
        echo "$f $c $i $r $rps" >>"$work/rows"
      done
    done
  done
done

printf '%-24s %5s %-32s %10s %10s %10s %7s\n' file conns server median min max ratio
for f in $files; do
  for c in $conns_list; do
    base=""
    for i in "${!labels[@]}"; do
      read -r med min max < <(awk -v f="$f" -v c="$c" -v i="$i" '$1 == f && $2 == c && $3 == i { print $5 }' \
        "$work/rows" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }')
      [ -n "$base" ] || base=$med
      printf '%-24s %5s %-32s %10.0f %10.0f %10.0f %7.3f\n' "$f" "$c" "${labels[i]}" "$med" "$min" "$max" \
        "$(awk -v a="$med" -v b="$base" 'BEGIN { print (b > 0 ? a / b : 0) }')"
    done
  done
done
uptime
