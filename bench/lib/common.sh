# bench/lib/common.sh: what the bench scripts share; sourced, not run.
# Before sourcing, set prog (optional): the name messages start with
# (default bench/SCRIPT). It sets here (the bench/ directory: templates,
# lib/wrk-report.lua), top (the source tree) and release_bin (the release
# preset's beneath). Then: bench_args (options), whole (checks counts);
# bench_pinning; bench_work PREFIX (temp dir, tree, cleanup trap);
# bench_build OUT (release preset) or bench_beneath PATH; start_beneath for
# a single beneath, or fill the per-
# configuration arrays c_name c_server c_backend c_flags c_threads c_pinned
# c_opts (and c_bin, optional: another beneath binary for that row) and call
# start_all; measure with precheck (precheck_all), wrk_row, server_cpu_ns
# and syscalls_row, in rotated rounds (bench_rounds); stop_all. med_min_max
# sums a series up.
# Helpers touch these globals: root, run, work, beneath_bin, srv_pid,
# srv_main, srv_port, pin_server, pin_client, pinning.
# shellcheck shell=bash
# Globals set here are read by the sourcing script and the other way round:
# shellcheck disable=SC2034,SC2154

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# sort_n, median and mmm ("median (min .. max)"), to put in front of an
# inline awk program
median_awk=$(<"$here/lib/median.awk")
top=$(dirname "$here")
release_bin=$top/build/release/server/beneath
bench_script=${BASH_SOURCE[1]}
prog=${prog:-bench/${bench_script##*/}}

# bench_usage [STATUS]: print the sourcing script's header comment (line 2 up
# to the first line that is not a comment, but the SPDX line) without its
# '# ', exit STATUS
bench_usage() {
  sed -n '2,/^[^#]/{/^# SPDX-License-Identifier:/d;/^#/s/^# \{0,1\}//p}' "$bench_script"
  exit "${1:-0}"
}

# bench_bad_arg ARG: say ARG is not an option, show the usage, exit 2
bench_bad_arg() {
  echo "$prog: unknown argument '$1'" >&2
  bench_usage 2 >&2
}

# bench_args NAME[:KIND]... -- ARG...: the script's options, each --NAME
# VALUE: VALUE goes to the variable NAME (a dash in NAME an underscore; the
# script sets its default before). KIND count: VALUE must be a whole number
# > 0; list: VALUE is added to the array NAME (the option may come again);
# flag: the option takes no value and sets NAME to 1. -h/--help prints the
# usage, anything else ends in bench_bad_arg.
bench_args() {
  local -a specs=()
  local spec name var kind
  while [ "$1" != -- ]; do
    specs+=("$1")
    shift
  done
  shift
  while [ $# -gt 0 ]; do
    case $1 in -h | --help) bench_usage ;; esac
    kind=none
    for spec in "${specs[@]}"; do
      name=${spec%%:*}
      [ "$1" = "--$name" ] || continue
      var=${name//-/_} kind=${spec#"$name"}
      break
    done
    case $kind in
    none) bench_bad_arg "$1" ;;
    :flag)
      printf -v "$var" 1
      shift
      continue
      ;;
    esac
    [ $# -ge 2 ] || die "$1 needs a value"
    case $kind in
    :count) whole "$1" "$2" && printf -v "$var" '%s' "$2" ;;
    :list)
      local -n bench_list=$var
      bench_list+=("$2")
      unset -n bench_list
      ;;
    *) printf -v "$var" '%s' "$2" ;;
    esac
    shift 2
  done
}

die() {
  echo "$prog: $*" >&2
  exit 1
}
note() { echo "$prog: $*" >&2; }

bench_need() { # TOOL...: each must be installed
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || die "$tool is missing (scripts/deps.sh test installs it)"
  done
}

whole() { # NAME VALUE...: each VALUE must be a whole number > 0
  while [ $# -gt 0 ]; do
    case "$2" in '' | *[!0-9]*) die "$1 must be a whole number, not '$2'" ;; esac
    [ "$2" != 0 ] || die "$1 must be > 0"
    shift 2
  done
}

# --- CPU pinning: server on CPU 0, wrk on CPU 1 ---------------------------------
pin_server=() pin_client=() pinning="not pinned" # until bench_pinning
bench_pinning() {
  if [ "$(nproc)" -ge 2 ]; then
    pin_server=(taskset -c 0)
    pin_client=(taskset -c 1)
    pinning="server on CPU 0, wrk on CPU 1 (taskset)"
  else
    pin_server=()
    pin_client=()
    pinning="NOT pinned: only $(nproc) CPU"
    note "warning: fewer than 2 CPUs, nothing pinned; figures are not comparable"
  fi
}

# bench_beneath PATH [OUT]: use the beneath binary PATH (beneath_bin); with
# PATH "", build the release preset first (bench_build OUT)
bench_beneath() {
  if [ -z "$1" ]; then
    bench_build "$2"
    set -- "$beneath_bin"
  fi
  [ -x "$1" ] || die "no beneath at $1 (cmake --build --preset release)"
  beneath_bin=$1
}

# bench_out NAME: the output directory out (default build/bench/NAME, with
# quick=1 build/bench-quick/NAME), made, absolute, and without an earlier
# run's NAME.csv, NAME.md, summary.csv and server logs
bench_out() {
  local suffix=""
  [ "${quick:-0}" = 0 ] || suffix=-quick
  out=${out:-$top/build/bench$suffix/$1}
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  rm -f "$out/$1.csv" "$out/$1.md" "$out"/summary.csv "$out"/server-*.log
}

# bench_build OUT: build the release preset (log OUT/build.log), set beneath_bin
bench_build() {
  note "building the release preset (log: $1/build.log)"
  if ! (cd "$here/.." && cmake --preset release && cmake --build --preset release -j"$(nproc)") \
    >"$1/build.log" 2>&1; then
    tail -n 30 "$1/build.log" >&2
    die "release build failed (see $1/build.log)"
  fi
  beneath_bin=$(cd "$here/.." && pwd)/build/release/server/beneath
}

# --- servers ------------------------------------------------------------------------
srv_pid=""  # the process group leader we started (setsid), "" when none
srv_main="" # the process that serves (nginx: the worker; beneath: serving_pid)
srv_port=""
srv_bin="" # start_server: the beneath binary when not $beneath_bin
c_bin=()   # per configuration, optional: see start_all
hold_pid=""
strace_pid=""
child_pid="" # a child script (bench/run: overhead.sh), TERMed on exit
work=""
c_pid=()     # per configuration: see start_all
bench_pids=() # the servers start_beneath started
t0=0          # bench_rounds notes the seconds since

# listen_port LOG TRIES: wait up to TRIES x 50 ms for beneath's 'listening on'
# line in LOG; print its port (nothing if it did not come)
listen_port() {
  for _ in $(seq "$2"); do
    grep -q 'listening on' "$1" && break
    sleep 0.05
  done
  sed -n 's|.*listening on https\{0,1\}://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$1" | head -n 1
}

# serving_pid PID: the process of the beneath started as PID that serves.
# With the sandbox on (--sandbox on|strict, the default) PID is the keeper,
# which only holds the configuration and keys and forwards signals, and the
# serving process (every worker thread, listener and request) is its only
# child, forked before "listening on" is printed; with --sandbox off, PID
# itself. strace, perf, VmRSS/VmHWM and /proc/PID/fd must look at this one.
# Call it once the listening line came. Not for nginx (srv_main: the worker).
serving_pid() {
  local kid
  kid=$(ps -o pid= --ppid "$1" 2>/dev/null | head -n 1 | tr -d ' ')
  echo "${kid:-$1}"
}

stop_pid() { # PID: TERM, bounded wait, KILL
  local pid=$1
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

stop_server() {
  [ -n "$srv_pid" ] || return 0
  kill -TERM -- "-$srv_pid" 2>/dev/null || true
  for _ in $(seq 50); do
    kill -0 -- "-$srv_pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL -- "-$srv_pid" 2>/dev/null || true
  wait "$srv_pid" 2>/dev/null || true
  srv_pid="" srv_main="" srv_port=""
}

use_server() { srv_pid=${c_pid[$1]} srv_main=${c_main[$1]} srv_port=${c_port[$1]}; }
stop_all() {
  local ci
  for ci in "${!c_pid[@]}"; do
    [ -n "${c_pid[$ci]}" ] || continue
    use_server "$ci"
    stop_server
    c_pid[ci]=""
  done
}

bench_cleanup() {
  local p
  for p in "${bench_pids[@]}"; do stop_pid "$p"; done
  [ -z "$child_pid" ] || stop_pid "$child_pid"
  [ -z "$strace_pid" ] || stop_pid "$strace_pid"
  [ -z "$hold_pid" ] || stop_pid "$hold_pid"
  stop_server
  stop_all
  [ -z "$work" ] || rm -rf "$work"
}

# --- the tree -------------------------------------------------------------------
# 1 KiB text at depth 1 and depth 8, 100 KiB and 10 MiB binaries, and the same
# 1 KiB file through 1 and through 4 relative symlinks (a chain with a "..").
declare -A file_path=(
  [1k-d1]=/1k.html
  [1k-d8]=/a/b/c/d/e/f/g/1k.html
  [100k]=/100k.bin
  [10m]=/10m.bin
  [sym1]=/links/l1/1k.html
  [sym4]=/links/l4/1k.html
)
declare -A file_bytes=(
  [1k-d1]=1024 [1k-d8]=1024 [100k]=102400 [10m]=10485760 [sym1]=1024 [sym4]=1024
)
text_file() { head -c $((($2 * 3 + 3) / 4)) /dev/urandom | base64 -w 76 | head -c "$2" >"$1"; }
make_tree() { # small|all: small = the 1 KiB files at depth 1 and 8 only
  mkdir -p "$root/a/b/c/d/e/f/g"
  text_file "$root/1k.html" 1024
  text_file "$root/a/b/c/d/e/f/g/1k.html" 1024
  if [ "$1" = all ]; then
    mkdir -p "$root/real" "$root/links"
    text_file "$root/real/1k.html" 1024
    head -c 102400 /dev/urandom >"$root/100k.bin"
    head -c 10485760 /dev/urandom >"$root/10m.bin"
    ln -s ../real "$root/links/l1"
    ln -s l1 "$root/links/l2"
    ln -s l2 "$root/links/l3"
    ln -s l3 "$root/links/l4"
  fi
  chmod -R a+rX "$root"
}

# bench_work PREFIX [small|all]: a fresh temp dir (removed on exit, also on
# Ctrl-C, with every server killed) holding the tree (root; made when small or
# all is given) and run files (run)
bench_work() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  chmod 755 "$work" # nginx workers run as nobody
  root=$work/www
  run=$work/run
  mkdir -p "$root" "$run"
  trap bench_cleanup EXIT
  trap 'exit 130' INT TERM HUP
  [ -z "${2:-}" ] || make_tree "$2"
}

free_port() { # a port nobody listens on (checked, not reserved)
  # Below the ephemeral range, so a client socket of a test running beside us
  # (ctest -j) cannot take it between this check and the server's bind.
  local p lo=32768
  read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
  [ "$lo" -gt 12000 ] || lo=32768
  for _ in $(seq 200); do
    p=$((10000 + (RANDOM * 32768 + RANDOM) % (lo - 10000)))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

wait_http() { # PORT: until something answers HTTP, 10 s at most
  local code
  for _ in $(seq 100); do
    kill -0 "$srv_pid" 2>/dev/null || return 1
    code=$(curl -s -o /dev/null --max-time 1 -w '%{http_code}' "http://127.0.0.1:$1/" || true)
    [ "$code" != 000 ] && return 0
    sleep 0.1
  done
  return 1
}

fill_template() { # TEMPLATE OUT SYMLINKS
  sed -e "s|@RUN@|$run|g" -e "s|@ROOT@|$root|g" -e "s|@PORT@|$srv_port|g" \
    -e "s|@SYMLINKS@|$3|g" "$1" >"$2"
}

# start_server SERVER BACKEND FLAGS THREADS PINNED LOG [OPTION...]: sets
# srv_pid, srv_main, srv_port; returns 1 (with the log kept) when the server
# does not come up. OPTIONs are extra beneath command-line words; FLAGS
# "default" passes no --confine. beneath runs $srv_bin if set, else
# $beneath_bin.
start_server() {
  local server=$1 backend=$2 flags=$3 threads=$4 pinned=$5 log=$6 line=""
  shift 6
  local -a pin=() confine=(--confine "$flags")
  [ "$pinned" = yes ] && pin=("${pin_server[@]}")
  [ "$flags" != default ] || confine=()
  case "$server" in
  beneath)
    setsid "${pin[@]}" "${srv_bin:-$beneath_bin}" --root "$root" --listen 127.0.0.1:0 \
      --resolver "$backend" "${confine[@]}" --threads "$threads" \
      --access-log off --max-connections 2048 --max-connections-per-ip 0 "$@" \
      </dev/null >"$log" 2>&1 &
    srv_pid=$!
    for _ in $(seq 100); do
      line=$(grep -o 'listening on http://127\.0\.0\.1:[0-9]*' "$log" 2>/dev/null | head -n 1 || true)
      [ -n "$line" ] && break
      kill -0 "$srv_pid" 2>/dev/null || break
      sleep 0.1
    done
    [ -n "$line" ] || return 1
    srv_port=${line##*:}
    srv_main=$(serving_pid "$srv_pid") # the keeper's child (sandbox on)
    ;;
  nginx)
    srv_port=$(free_port) || return 1
    fill_template "$here/nginx.conf.in" "$run/nginx.conf" "$flags"
    setsid "${pin[@]}" nginx -c "$run/nginx.conf" -p "$run/" -e "$run/nginx-error.log" \
      </dev/null >"$log" 2>&1 &
    srv_pid=$!
    wait_http "$srv_port" || return 1
    srv_main=$(ps -o pid= --ppid "$srv_pid" | head -n 1 | tr -d ' ')
    [ -n "$srv_main" ] || return 1
    ;;
  lighttpd)
    srv_port=$(free_port) || return 1
    fill_template "$here/lighttpd.conf.in" "$run/lighttpd.conf" "$flags"
    setsid "${pin[@]}" lighttpd -D -f "$run/lighttpd.conf" </dev/null >"$log" 2>&1 &
    srv_pid=$!
    srv_main=$srv_pid
    ;;
  esac
  wait_http "$srv_port"
}

# start_beneath LOG OPTION...: $beneath_bin --listen 127.0.0.1:0 --access-log
# off OPTION..., on the server's CPU (bench_pinning), stderr to LOG; waits for
# its listening line. Sets bench_pid (the PID started: to stop it, and for
# server_cpu_ns), bench_main (its serving process, serving_pid: for VmRSS,
# VmHWM, fds) and bench_port; the server is stopped on exit (bench_work's
# trap).
start_beneath() {
  local log=$1
  shift
  # emptied here, not in the child: listen_port must not read the line of
  # an earlier server that wrote LOG
  : >"$log"
  "${pin_server[@]}" "$beneath_bin" --listen 127.0.0.1:0 --access-log off "$@" 2>"$log" &
  bench_pid=$!
  bench_pids+=("$bench_pid")
  bench_port=$(listen_port "$log" 200)
  [ -n "$bench_port" ] || die "beneath did not start (${log##*/}): $(cat "$log")"
  bench_main=$(serving_pid "$bench_pid")
}

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo ""; }

# start_all LOGDIR: start the server of every configuration c_name[ci] (arrays
# c_server c_backend c_flags c_threads c_pinned c_opts; c_opts = extra beneath
# options, split on spaces); all stay up (an idle server costs no CPU). Sets
# c_pid c_main c_port c_rss and c_skip (not-built, not-installed, no-server or
# "" when it runs). Logs: LOGDIR/server-NAME.log, kept for a post-mortem.
start_all() {
  local ci cfg server skip log ok
  local -a opts
  for ci in "${!c_name[@]}"; do
    cfg=${c_name[ci]} server=${c_server[ci]}
    skip="" c_pid[ci]="" c_main[ci]="" c_port[ci]="" c_rss[ci]=""
    srv_bin=${c_bin[ci]:-}
    read -r -a opts <<<"${c_opts[ci]:-}"
    if [ "$server" = beneath ] && [ -z "${srv_bin:-$beneath_bin}" ]; then
      skip=not-built
    elif [ "$server" != beneath ] && ! command -v "$server" >/dev/null; then
      skip=not-installed
    else
      log="$1/server-${cfg//[^A-Za-z0-9=.-]/_}.log"
      srv_pid="" ok=no
      # A port picked free can still be taken before the bind: try 3 ports.
      for _ in 1 2 3; do
        if start_server "$server" "${c_backend[ci]}" "${c_flags[ci]}" "${c_threads[ci]}" \
          "${c_pinned[ci]}" "$log" "${opts[@]}"; then
          ok=yes
          break
        fi
        grep -q "Address already in use" "$log" 2>/dev/null || break
        stop_server
      done
      if [ "$ok" = yes ]; then
        c_pid[ci]=$srv_pid c_main[ci]=$srv_main c_port[ci]=$srv_port
        c_rss[ci]=$(rss_kib "$srv_main")
        note "$cfg: port $srv_port, pid $srv_main"
      else
        note "$cfg: server did not start (log: $log)"
        tail -n 5 "$log" >&2 || true
        stop_server
        skip=no-server
      fi
    fi
    c_skip[ci]=$skip
  done
  srv_bin=""
}

# --- measuring ----------------------------------------------------------------------
# precheck_all CI...: every configuration CI must serve every file of files
# (200, the whole body, keep-alive) before anything is measured: a refusal
# must never pass for speed. Dies otherwise.
precheck_all() {
  local ci key st ka
  for ci in "$@"; do
    for key in "${files[@]}"; do
      read -r st ka < <(precheck "http://127.0.0.1:${c_port[ci]}${file_path[$key]}" "${file_bytes[$key]}")
      if [ "$st" != ok ] || [ "$ka" != yes ]; then
        die "${c_name[ci]}: ${file_path[$key]}: status $st, keep-alive $ka (log: $out/server-*.log)"
      fi
    done
  done
}

# bench_rounds ROUNDS FN ITEM...: ROUNDS rounds; in each, for every file of
# files, FN ROUND POS FILE ITEM for every ITEM (POS counts from 1), the order
# rotated by one per round: round r starts with the r-th ITEM, wrapping.
# Notes each round's start with the seconds since t0.
bench_rounds() {
  local rounds=$1 fn=$2 round key pos
  shift 2
  for round in $(seq "$rounds"); do
    note "round $round/$rounds ($((SECONDS - t0)) s)"
    for key in "${files[@]}"; do
      for pos in $(seq $#); do
        "$fn" "$round" "$pos" "$key" "${@:$(((pos + round - 2) % $# + 1)):1}"
      done
    done
  done
}

# med_min_max "VALUE...": "MEDIAN MIN MAX" of whole numbers separated by
# spaces (of an even count, the lower of the two middle ones is the median)
med_min_max() {
  tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }'
}

# precheck URL BYTES: two GETs on one curl; prints "STATUS KEEPALIVE" where
# STATUS is ok, http-NNN or short-body and KEEPALIVE yes/no (did the second
# request reuse the connection).
precheck() {
  local url=$1 bytes=$2 a b r
  mapfile -t r < <(curl -s --max-time 30 -w '%{http_code} %{size_download} %{num_connects}\n' \
    -o /dev/null "$url" -o /dev/null "$url" || true)
  read -r -a a <<<"${r[0]:-000 0 0}"
  read -r -a b <<<"${r[1]:-000 0 0}"
  local status=ok
  if [ "${a[0]}" != 200 ]; then
    status=http-${a[0]}
  elif [ "${a[1]}" != "$bytes" ] || [ "${b[1]}" != "$bytes" ]; then
    status=short-body
  elif [ "${b[0]}" != 200 ]; then
    status=http-${b[0]}
  fi
  echo "$status $([ "${b[2]}" = 0 ] && echo yes || echo no)"
}

# run_wrk URL CONNS PINNED SECONDS: prints the BENCH line of lib/wrk-report.lua
run_wrk() {
  local -a pin=()
  [ "$3" = yes ] && pin=("${pin_client[@]}")
  timeout $(($4 + 30)) "${pin[@]}" wrk -t1 -c"$2" -d"${4}s" --timeout 5s \
    --latency -s "$here/lib/wrk-report.lua" "$1" 2>&1 | grep '^BENCH ' || true
}

kv() { # KEY LINE: the value of KEY=value in LINE
  local w
  for w in $2; do
    [ "${w%%=*}" = "$1" ] && echo "${w#*=}" && return
  done
  echo 0
}

# wrk_row URL CONNS PINNED SECONDS: one wrk run as CSV fields
#   status,duration_s,requests,rps,p50_us,p99_us,mbps,err_status,err_socket
# status: ok, http-errors (responses above 399), no-requests; or the single
# field wrk-failed when wrk printed nothing.
# warm_up PATH CONNS CI...: one unrecorded second of wrk per configuration
warm_up() {
  local path=$1 conns=$2 ci
  shift 2
  for ci in "$@"; do
    run_wrk "http://127.0.0.1:${c_port[ci]}$path" "$conns" yes 1 >/dev/null
  done
}

wrk_row() {
  local line status=ok err_status err_sock
  line=$(run_wrk "$@")
  if [ -z "$line" ]; then
    echo wrk-failed
    return
  fi
  err_status=$(kv err_status "$line")
  err_sock=$(($(kv err_connect "$line") + $(kv err_read "$line") + $(kv err_write "$line") + $(kv err_timeout "$line")))
  [ "$err_status" -gt 0 ] && status=http-errors
  [ "$(kv requests "$line")" -gt 0 ] || status=no-requests
  awk -v st="$status" -v d="$(kv duration_us "$line")" -v r="$(kv requests "$line")" \
    -v b="$(kv bytes "$line")" -v p50="$(kv p50_us "$line")" -v p99="$(kv p99_us "$line")" \
    -v es="$err_status" -v ek="$err_sock" 'BEGIN {
      s = d / 1e6
      if (s <= 0) { st = "no-requests"; s = 1 }
      printf "%s,%.2f,%d,%.0f,%d,%d,%.1f,%d,%d\n", st, s, r, r / s, p50, p99, b / s / 1e6, es, ek
    }'
}

# server_cpu_ns PID: on-CPU nanoseconds so far of every thread of PID and of
# its child processes (nginx: master and worker; beneath with the sandbox
# on: the keeper and its serving process), from the first field of
# /proc/*/task/*/schedstat. Pass the PID started (srv_pid, c_pid,
# bench_pid), not the serving process: for beneath this sums keeper + serving
# process on purpose (the keeper is idle while requests are served, so the
# sum is the serving process's CPU plus ~0, and whatever the keeper did spend
# would be a cost of the sandbox too). A thread that exits takes its count
# with it: measure servers whose threads live as long as the process.
server_cpu_ns() {
  local p t v sum=0
  for p in "$1" $(ps -o pid= --ppid "$1" 2>/dev/null); do
    for t in /proc/"$p"/task/*/schedstat; do
      read -r v _ <"$t" 2>/dev/null || continue
      sum=$((sum + v))
    done
  done
  echo "$sum"
}

# syscalls_row CONFIG FILEKEY N: attach strace -f -c to the serving process
# ($srv_main; beneath: not the keeper, see serving_pid) while one curl
# makes N keep-alive requests on one connection to $srv_port; prints the
# CSV row
#   config,file,requests,syscalls,per_request,top_per_request
# (the top: each call made at least 0.05 times per request, most first).
# Uses $run for its files; sets strace_pid while strace runs.
syscalls_row() {
  local cfg=$1 key=$2 n=$3 url _
  url="http://127.0.0.1:$srv_port${file_path[$key]}"
  : >"$run/curl.cfg"
  for _ in $(seq "$n"); do
    printf 'url = "%s"\noutput = "/dev/null"\n' "$url" >>"$run/curl.cfg"
  done
  rm -f "$run/strace.txt" "$run/strace.err"
  timeout 120 strace -f -c -o "$run/strace.txt" -p "$srv_main" 2>"$run/strace.err" &
  strace_pid=$!
  for _ in $(seq 50); do
    grep -q attached "$run/strace.err" 2>/dev/null && break
    kill -0 "$strace_pid" 2>/dev/null || break
    sleep 0.1
  done
  sleep 0.3
  timeout 60 curl -s --max-time 60 -K "$run/curl.cfg" || true
  sleep 0.2
  kill -INT "$strace_pid" 2>/dev/null || true
  wait "$strace_pid" 2>/dev/null || true
  strace_pid=""
  awk -v cfg="$cfg" -v key="$key" -v n="$n" '
    /^-----/ { dashes++; next }
    dashes == 1 && NF >= 5 { calls[$NF] = $4; order[++k] = $NF }
    dashes == 2 && $NF == "total" { total = $4 }
    END {
      if (total == "") { printf "%s,%s,%d,,,strace failed\n", cfg, key, n; exit }
      # top system calls by count, as calls per request
      top = ""
      for (j = 1; j <= k && j <= 40; j++) {
        best = 0
        for (i = 1; i <= k; i++)
          if (!(order[i] in used) && (best == 0 || calls[order[i]] + 0 > calls[order[best]] + 0))
            best = i
        if (best == 0 || calls[order[best]] / n < 0.05) break
        used[order[best]] = 1
        top = top sprintf("%s%s %.2f", top == "" ? "" : " ", order[best], calls[order[best]] / n)
      }
      printf "%s,%s,%d,%d,%.2f,%s\n", cfg, key, n, total, total / n, top
    }' "$run/strace.txt"
}

# nginx_temps: nginx's temp paths, under $run (http block lines)
nginx_temps() {
  local t
  for t in client_body proxy fastcgi uwsgi scgi; do
    echo "  ${t}_temp_path $run/nginx-${t/client_/};"
  done
}

# nginx_tls_conf FILE PORT LISTEN_EXTRA: an nginx configuration in FILE
# serving $root on https://127.0.0.1:PORT ("listen ... ssl LISTEN_EXTRA")
# with $run/cert.pem and $run/key.pem: 1 worker, sendfile, no access log,
# its temp and pid files under $run (a 0700 temp dir nginx's worker cannot
# read would answer 403s, timed as if they were files)
nginx_tls_conf() {
  cat >"$1" <<EOF
worker_processes 1;
daemon off;
pid $run/nginx.pid;
error_log $run/nginx-error.log warn;
events { worker_connections 4096; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  sendfile on;
  keepalive_requests 1000000000;
  http2_max_requests 1000000000;
$(nginx_temps)
  server {
    listen 127.0.0.1:$2 ssl $3;
    ssl_certificate $run/cert.pem;
    ssl_certificate_key $run/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    root $root;
  }
}
EOF
}

# rounds_table CSV "NAME..." "FILE..." STATUS_COL CPU_COL MB_COL CPU_REF
# MB_REF: the markdown rows (server, file, CPU µs/request, ÷ CPU_REF, MB/s,
# ÷ MB_REF) of a rotated-rounds CSV whose column 1 is the round, 3 the file
# (1k or 10m) and 4 the server; CPU_COL holds ns per request. Medians and
# min .. max over the rounds whose STATUS_COL is "ok"; ratios within a round.
# Then a line counting the rows that are not ok, if any.
rounds_table() {
  awk -F, -v names="$2" -v files="$3" -v stc="$4" -v cc="$5" -v mc="$6"     -v cref="$7" -v mref="$8" "$median_awk"'
    NR > 1 && $stc != "ok" { bad++ }
    NR > 1 && $stc == "ok" {
      ok[$1, $3, $4] = 1; cpu[$1, $3, $4] = $cc / 1000; mb[$1, $3, $4] = $mc
      if (!($1 in seen)) { seen[$1] = 1; rounds[++nr] = $1 }
    }
    END {
      ns = split(names, s, " "); nf = split(files, f, " ")
      for (fi = 1; fi <= nf; fi++) for (si = 1; si <= ns; si++) {
        n1 = n2 = n3 = n4 = 0; split("", a1); split("", a2); split("", a3); split("", a4)
        for (k = 1; k <= nr; k++) {
          r = rounds[k]
          if (!ok[r, f[fi], s[si]]) continue
          a1[++n1] = cpu[r, f[fi], s[si]]; a3[++n3] = mb[r, f[fi], s[si]]
          if (ok[r, f[fi], cref] && cpu[r, f[fi], cref] > 0) a2[++n2] = cpu[r, f[fi], s[si]] / cpu[r, f[fi], cref]
          if (ok[r, f[fi], mref] && mb[r, f[fi], mref] > 0) a4[++n4] = mb[r, f[fi], s[si]] / mb[r, f[fi], mref]
        }
        printf "| %s | %s | %s | %s | %s | %s |\n", s[si], f[fi] == "1k" ? "1 KiB" : "10 MiB",
          mmm(a1, n1, "%.1f"), mmm(a2, n2, "%.2f"), mmm(a3, n3, "%.1f"), mmm(a4, n4, "%.2f")
      }
      if (bad) printf "\n**%d row(s) not ok** (the status column of the CSV): they do not count.\n", bad
    }' "$1"
}

# tls_files: the HTTPS benches' files: $root/1k.html (text) and
# $root/10m.bin, readable by any server's worker; the arrays path, bytes
# (keyed 1k and 10m) and files; one EC P-256 certificate for 127.0.0.1 and
# localhost in $run/cert.pem and $run/key.pem
tls_files() {
  mkdir -p "$root"
  text_file "$root/1k.html" 1024
  head -c 10485760 /dev/urandom >"$root/10m.bin"
  chmod -R a+rX "$root"
  declare -gA path=([1k]=/1k.html [10m]=/10m.bin) bytes=([1k]=1024 [10m]=10485760)
  files=(1k 10m)
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
    -keyout "$run/key.pem" -out "$run/cert.pem" 2>/dev/null
  chmod a+r "$run/key.pem" "$run/cert.pem"
}
