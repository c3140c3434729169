#!/usr/bin/env bash
# bench/syscalls.sh: system calls per request, beneath beside nginx and
# lighttpd. Each server (pinned to CPU 0) serves a 1 KiB file at depth 1 and
# depth 8; `strace -f -c` is attached to the serving process while one curl
# makes N keep-alive requests on one connection; the counts are divided by N.
# Unlike requests/s, these counts do not depend on the load of the machine.
# bench/cpu.sh prints the same table after its CPU figures; this is the
# quick way to get only the counts.
#
#   bench/syscalls.sh [-n N] [-b path/to/beneath] [-s "beneath nginx lighttpd"]
#                     [-- extra beneath options]
#
# Needs strace and curl; nginx and lighttpd rows are skipped when missing.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

n=1000
beneath_bin=$top/build/release/server/beneath
servers="beneath nginx lighttpd"
while [ $# -gt 0 ]; do
  case "$1" in
  -n) n=$2 && shift ;;
  -b) beneath_bin=$2 && shift ;;
  -s) servers=$2 && shift ;;
  --) shift && break ;;
  *) echo "usage: $0 [-n N] [-b BIN] [-s SERVERS] [-- beneath options]" >&2 && exit 2 ;;
  esac
  shift
done
case "$n" in '' | *[!0-9]* | 0) die "-n must be a whole number > 0" ;; esac
bench_need strace curl taskset setsid timeout
[ -x "$beneath_bin" ] || beneath_bin=""
bench_pinning
bench_work beneath-syscalls small
made=$SECONDS # the tree's files were just written

# name|server|flags (beneath: its default options plus the words after --)
c_name=() c_server=() c_backend=() c_flags=() c_threads=() c_pinned=() c_opts=()
c_skip=() c_pid=() c_main=() c_port=()
for s in $servers; do
  case "$s" in
  beneath) flags=default ;;
  nginx) flags=${SYMLINKS:-off} ;;
  lighttpd) flags=enable ;;
  *) die "unknown server '$s' (beneath, nginx, lighttpd)" ;;
  esac
  c_name+=("$s") c_server+=("$s") c_backend+=(auto) c_flags+=("$flags")
  c_threads+=(1) c_pinned+=(yes) c_opts+=("$*")
done
start_all "$run"
# beneath keeps a small file's whole reply in memory only once the file's
# ctime is 2 s old (REPLY_CACHE_SETTLE_S, server/respond/reply_cache.h);
# until then every request preads it. Count the steady state, as cpu.sh and
# run do after their wrk rounds: let the tree age past that first.
while [ $((SECONDS - made)) -lt 3 ]; do sleep 0.2; done

printf '%-10s %-24s %7s  %s\n' server path per_req "calls per request"
for ci in "${!c_name[@]}"; do
  if [ -n "${c_skip[ci]}" ]; then
    note "${c_name[ci]}: ${c_skip[ci]}: skipped"
    continue
  fi
  use_server "$ci"
  for key in 1k-d1 1k-d8; do
    syscalls_row "${c_name[ci]}" "$key" "$n" |
      awk -F, -v path="${file_path[$key]}" '{ printf "%-10s %-24s %7s  %s\n", $1, path, $5, $6 }'
  done
done
