#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/sites.sh: --sites DIR beside --root and nginx's root DIR/$host:
# start-up time and serving memory by the number of site directories, and
# server CPU per request, in rotated rounds.
#
#   bench/sites.sh [--rounds N] [--duration S] [--counts "1 10000 100000"]
#                  [--startup-rounds N] [--only REGEX] [--bin PATH] [--out DIR]
#
# 1. Start-up and memory: a DIR of each count of site directories
#    (s0.example ... each with a small index.html; s1.example also has a
#    1 KiB file.txt), then per round, the counts in a rotated order:
#    beneath --sites DIR --threads 1 (sandbox on: keeper and serving
#    process) and nginx (one worker, root DIR/$host), each on a free port,
#    timed from the exec to the first 200 answered by the bash client that
#    connects as soon as the port accepts (start-up includes binding,
#    beneath's keeper and its serving process); then VmRSS and Pss
#    (/proc/PID/smaps_rollup) of the serving process (beneath's keeper's
#    child; nginx's worker) at once ("idle"), and after wrk has asked
#    --duration seconds for random sites ("in use": up to --sites-cache
#    1024 site directories kept by beneath).
# 2. CPU per request, DIR of the largest count, one server each pinned to
#    CPU 0 (--threads 1 --access-log off), wrk -t1 -c8 on CPU 1:
#      root          beneath --root DIR/s1.example      GET /file.txt
#      sites         beneath --sites DIR, Host s1.example GET /file.txt
#      sites-files   the same with --site-files on (each site's rule files,
#                    looked at again once a second)
#      sites-link    the same, Host link.example: DIR/link.example -> s1.example
#                    (a site directory that is a link is resolved by the
#                    resolver on every request)
#      nginx-root    nginx root DIR/s1.example          GET /file.txt
#      nginx-sites   nginx root DIR/$host, Host s1.example
#      random        beneath --sites DIR, GET / with a random Host of the
#                    count (wrk's Lua): mostly site directories not kept
#      nginx-random  nginx root DIR/$host, the same requests
#    Every configuration is checked first (200 and the whole body). The CPU
#    time is the on-CPU ns of every thread of the server and its children
#    (/proc/PID/task/*/schedstat) around each wrk run, divided by the
#    requests wrk completed (bench/README.md, "Server CPU per request").
# Prints the tables (median and min .. max over the rounds; for sites
# against root also the ratio of each round's pair) and writes them to
# OUT/sites.md (default build/bench/sites). --startup-rounds: rounds of
# part 1 (default --rounds; 0 skips it); --only: the part 2 configurations
# whose name matches (root is always kept: the ratios' reference).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

rounds=5 duration=3 counts="1 10000 100000" bin=$release_bin out=""
startup_rounds="" only=.
bench_args rounds:count duration:count counts startup-rounds only bin out -- "$@"
startup_rounds=${startup_rounds:-$rounds}
read -r -a counts <<<"$counts"
for c in "${counts[@]}"; do whole --counts "$c"; done
bench_beneath "$bin"
bench_need wrk nginx curl taskset setsid
bench_pinning
bench_out sites
bench_work beneath-sites

# --- the trees: DIR per count --------------------------------------------------
file_txt=$(head -c 768 /dev/urandom | base64 -w 76 | head -c 1024)
make_sites() { # COUNT DIR
  local n=$1 dir=$2 i
  mkdir -p "$dir"
  (cd "$dir" && seq -f 's%.0f.example' 0 $((n - 1)) | xargs mkdir)
  for ((i = 0; i < n; i++)); do
    printf 'site %d\n' "$i" >"$dir/s$i.example/index.html"
  done
  [ "$n" -lt 2 ] || printf '%s' "$file_txt" >"$dir/s1.example/file.txt"
  chmod -R a+rX "$dir"
}
declare -A dir_of
for c in "${counts[@]}"; do
  t=$SECONDS
  dir_of[$c]=$work/sites-$c
  make_sites "$c" "${dir_of[$c]}"
  note "made $c site directories in $((SECONDS - t)) s"
done
largest=${counts[-1]}
for c in "${counts[@]}"; do [ "$c" -gt "$largest" ] && largest=$c; done

# wrk's Lua: a random Host of COUNT sites, GET /
random_lua() { # COUNT FILE
  cat >"$2" <<EOF
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/", { Host = "s" .. math.random(0, $1 - 1) .. ".example" })
end
EOF
}

nginx_conf() { # ROOT PORT FILE: one worker, root ROOT ('\$host' allowed)
  cat >"$3" <<EOF
worker_processes 1;
daemon off;
pid $run/nginx-$2.pid;
error_log $run/nginx-$2-error.log warn;
events { worker_connections 4096; }
http {
  default_type text/html;
  access_log off;
  sendfile on;
  keepalive_requests 1000000000;
$(nginx_temps)
  server {
    listen 127.0.0.1:$2;
    root $1;
  }
}
EOF
}

# A pipe nobody writes: read -t on it sleeps without a fork.
exec {nap}<> <(:)
nap() { read -r -t "$1" -u "$nap" _ || true; }

# first_answer PORT HOST: connect as soon as the port accepts, send one
# GET /, wait for the status line; prints the status (000: none in 20 s)
first_answer() {
  local port=$1 host=$2 status="" i
  for ((i = 0; i < 20000; i++)); do
    if { exec {c}<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null; then
      printf 'GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$host" >&"$c"
      read -r -t 20 _ status _ <&"$c" || status=000
      exec {c}>&-
      break
    fi
    nap 0.001
  done
  echo "${status:-000}"
}

mem_of() { # PID: "RSS_KIB PSS_KIB"
  local rss pss
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0)
  pss=$(awk '/^Pss:/ { print $2 }' "/proc/$1/smaps_rollup" 2>/dev/null || echo 0)
  echo "${rss:-0} ${pss:-0}"
}

declare -A st_ms st_rss st_pss use_rss use_pss
# start_one KIND COUNT: start, time, measure, stop one server
start_one() {
  local kind=$1 c=$2 port t0 t1 status pid main lua
  port=$(free_port) || die "no free port"
  t0=$EPOCHREALTIME
  if [ "$kind" = beneath ]; then
    setsid "${pin_server[@]}" "$beneath_bin" --sites "${dir_of[$c]}" \
      --listen "127.0.0.1:$port" --threads 1 --access-log off \
      </dev/null >"$out/server-beneath-$c.log" 2>&1 &
  else
    nginx_conf "${dir_of[$c]}/\$host" "$port" "$run/nginx-$port.conf"
    setsid "${pin_server[@]}" nginx -c "$run/nginx-$port.conf" -p "$run/" \
      -e "$run/nginx-$port-error.log" </dev/null >"$out/server-nginx-$c.log" 2>&1 &
  fi
  pid=$!
  bench_pids+=("$pid")
  status=$(first_answer "$port" s0.example)
  t1=$EPOCHREALTIME
  [ "$status" = 200 ] || die "$kind with $c sites answered $status"
  main=$(ps -o pid= --ppid "$pid" | head -n 1 | tr -d ' ')
  main=${main:-$pid}
  st_ms[$kind:$c]+="$(((${t1/./} - ${t0/./}) / 1000)) "
  read -r rss pss < <(mem_of "$main")
  st_rss[$kind:$c]+="$rss " st_pss[$kind:$c]+="$pss "
  lua=$run/random-$c.lua
  random_lua "$c" "$lua"
  "${pin_client[@]}" wrk -t1 -c8 -d"${duration}s" -s "$lua" "http://127.0.0.1:$port/" >/dev/null
  read -r rss pss < <(mem_of "$main")
  use_rss[$kind:$c]+="$rss " use_pss[$kind:$c]+="$pss "
  kill -TERM -- "-$pid" 2>/dev/null || true
  stop_pid "$pid"
}

files=(start)
start_round() { # ROUND POS FILE KIND:COUNT
  local kind=${4%%:*} c=${4#*:}
  start_one "$kind" "$c"
}
items=()
for c in "${counts[@]}"; do items+=("beneath:$c" "nginx:$c"); done
t0=$SECONDS
[ "$startup_rounds" = 0 ] || bench_rounds "$startup_rounds" start_round "${items[@]}"

# --- CPU per request -------------------------------------------------------------
big=${dir_of[$largest]}
random_lua "$largest" "$run/random.lua"
ln -s s1.example "$big/link.example"
names=()
for n in root sites sites-files sites-link nginx-root nginx-sites random nginx-random; do
  [ "$n" = root ] || [[ $n =~ $only ]] && names+=("$n")
done
want() { [[ " ${names[*]} " == *" $1 "* ]]; }
declare -A pid_of port_of host_of path_of lua_of res rps
for n in "${names[@]}"; do
  host_of[$n]=s1.example path_of[$n]=/file.txt lua_of[$n]=""
done
for n in random nginx-random; do path_of[$n]=/ lua_of[$n]=$run/random.lua; done
host_of[sites-link]=link.example
start_cpu() { # NAME ARGS...: beneath with ARGS
  local n=$1
  shift
  start_beneath "$out/server-$n.log" --threads 1 "$@"
  pid_of[$n]=$bench_pid port_of[$n]=$bench_port
}
start_cpu root --root "$big/s1.example"
! want sites || start_cpu sites --sites "$big"
! want sites-files || start_cpu sites-files --sites "$big" --site-files on
! want sites-link || start_cpu sites-link --sites "$big"
! want random || start_cpu random --sites "$big"
for n in nginx-root nginx-sites nginx-random; do
  want "$n" || continue
  port_of[$n]=$(free_port) || die "no free port"
  r="$big/\$host"
  [ "$n" = nginx-root ] && r="$big/s1.example"
  nginx_conf "$r" "${port_of[$n]}" "$run/$n.conf"
  setsid "${pin_server[@]}" nginx -c "$run/$n.conf" -p "$run/" -e "$run/$n-error.log" \
    </dev/null >"$out/server-$n.log" 2>&1 &
  pid_of[$n]=$!
  bench_pids+=("${pid_of[$n]}")
  for _ in $(seq 100); do
    [ "$(first_answer "${port_of[$n]}" s1.example)" = 200 ] && break
    nap 0.05
  done
done

# the check before anything is timed: 200 and the whole body
for n in "${names[@]}"; do
  read -r code size < <(curl -s -o /dev/null -w '%{http_code} %{size_download}\n' \
    -H "Host: ${host_of[$n]}" "http://127.0.0.1:${port_of[$n]}${path_of[$n]}")
  want=1024
  [ "${path_of[$n]}" = / ] && want=$(stat -c %s "$big/s1.example/index.html")
  [ "$code" = 200 ] && [ "$size" = "$want" ] || die "$n: $code, $size bytes (want 200, $want)"
done

measure() { # NAME: one wrk run; prints "NS_PER_REQUEST RPS"
  local n=$1 before after reqs secs
  local -a lua=()
  [ -z "${lua_of[$n]}" ] || lua=(-s "${lua_of[$n]}")
  before=$(server_cpu_ns "${pid_of[$n]}")
  read -r reqs secs < <("${pin_client[@]}" wrk -t1 -c8 -d"${duration}s" \
    -H "Host: ${host_of[$n]}" "${lua[@]}" "http://127.0.0.1:${port_of[$n]}${path_of[$n]}" |
    awk '/requests in/ { sub(/s,$/, "", $4); print $1, $4 }')
  after=$(server_cpu_ns "${pid_of[$n]}")
  [ "${reqs:-0}" -gt 0 ] || die "$n: wrk completed no request"
  echo "$(((after - before) / reqs)) $(awk -v r="$reqs" -v s="$secs" 'BEGIN { printf "%d", r / s }')"
}
files=(cpu)
record() { # ROUND POS FILE NAME
  local ns r
  read -r ns r < <(measure "$4")
  res[$4]+="$ns " rps[$4]+="$r "
}
bench_rounds "$rounds" record "${names[@]}"

# --- the report ----------------------------------------------------------------------
{
  echo "# bench/sites.sh: --sites beside --root and nginx root DIR/\$host"
  echo
  echo "$rounds rounds, wrk ${duration}s each, $pinning; $(nproc) CPUs;" \
    "load average at the end $(cut -d' ' -f1-3 /proc/loadavg); $(uname -r)"
  echo
  [ "$startup_rounds" = 0 ] || {
  echo "## Start-up (exec to the first 200) and serving memory, $startup_rounds rounds"
  echo
  echo "| server | sites | start-up ms | RSS idle KiB | Pss idle KiB | RSS in use KiB | Pss in use KiB |"
  echo "|---|---|---|---|---|---|---|"
  for c in "${counts[@]}"; do
    for kind in beneath nginx; do
      k=$kind:$c
      row="| $kind | $c"
      for v in "${st_ms[$k]}" "${st_rss[$k]}" "${st_pss[$k]}" "${use_rss[$k]}" "${use_pss[$k]}"; do
        read -r med min max < <(med_min_max "$v")
        row+=" | $med ($min .. $max)"
      done
      echo "$row |"
    done
  done
  echo
  }
  echo "## Server CPU per request ($largest site directories)"
  echo
  echo "| configuration | ns/request median (min .. max) | vs root | requests/s median |"
  echo "|---|---|---|---|"
  read -r root_med _ <<<"$(med_min_max "${res[root]}")"
  for n in "${names[@]}"; do
    read -r med min max < <(med_min_max "${res[$n]}")
    read -r rmed _ < <(med_min_max "${rps[$n]}")
    ratio=$(awk -v a="$med" -v b="$root_med" 'BEGIN { printf "%.2f", a / b }')
    echo "| $n | $med ($min .. $max) | ${ratio}x | $rmed |"
  done
  echo
  read -r -a b <<<"${res[root]}"
  for n in "${names[@]}"; do
    [ "$n" != root ] || continue
    read -r -a a <<<"${res[$n]}"
    ratios=""
    for i in "${!a[@]}"; do
      ratios+="$(awk -v x="${a[i]}" -v y="${b[i]}" 'BEGIN { printf "%d", 1000 * x / y }') "
    done
    read -r med min max < <(med_min_max "$ratios")
    echo "- $n / root, each round's pair: median $(awk -v m="$med" -v a="$min" -v b="$max" \
      'BEGIN { printf "%.3f (%.3f .. %.3f)", m / 1000, a / 1000, b / 1000 }'): $ratios(x1000)"
  done
} | tee "$out/sites.md"
