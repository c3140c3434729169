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

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

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
  *) bench_usage 2 >&2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || bench_usage 2 >&2
bench_need curl wrk taskset setsid timeout

bench_pinning
bench_work beneath-modes all
beneath_bin=""

mode_bin() { # MODE: a beneath built with that threading mode
  local dir=$top/build/mode-$1
  if [ ! -x "$dir/server/beneath" ]; then
    echo "modes.sh: building $dir" >&2
    if ! cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DENABLE_HARDENING=ON \
      -DBUILD_TESTING=OFF -DBENEATH_MHD_MODE="$1" >"$work/build-$1.log" 2>&1 ||
      ! cmake --build "$dir" --target beneath -j2 >>"$work/build-$1.log" 2>&1; then
      tail -n 20 "$work/build-$1.log" >&2
      return 1
    fi
  fi
  echo "$dir/server/beneath"
}

# One configuration per SERVER argument, started by lib/common.sh's
# start_all; labels[i] names configuration i.
c_name=() c_server=() c_backend=() c_flags=() c_threads=() c_pinned=() c_opts=()
c_bin=() c_skip=() c_pid=() c_main=() c_port=()
add() { # LABEL SERVER FLAGS BINARY OPTIONS
  c_name+=("$1") c_server+=("$2") c_backend+=(auto) c_flags+=("$3") c_threads+=(1)
  c_pinned+=(yes) c_bin+=("$4") c_opts+=("${5//,,/ }")
}
for spec in "$@"; do
  IFS=: read -r kind a b c <<<"$spec"
  case "$kind" in
  beneath) add "$a" beneath default "$b" "${c:-}" ;;
  mode) add "mode-$a${b:+:$b}" beneath default "$(mode_bin "$a")" "${b:-}" ;;
  nginx) add "nginx:$a" nginx "$a" "" "" ;;
  lighttpd) add lighttpd lighttpd enable "" "" ;;
  *) die "unknown server '$spec'" ;;
  esac
done
start_all "$work"
labels=("${c_name[@]}") ports=("${c_port[@]}")
for i in "${!labels[@]}"; do
  [ -z "${c_skip[i]}" ] || die "${labels[i]}: ${c_skip[i]} (log: $work/server-*.log)"
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
