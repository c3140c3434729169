#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/access_cpu.sh: server CPU time per request of the access rules, each
# beside the same server without them, in rotated rounds.
#
#   bench/access_cpu.sh [--rounds N] [--duration S] [--bin PATH]
#
# Configurations (one beneath each, --threads 1, pinned to CPU 0; wrk -t1
# -c8 on CPU 1, GET of a 1 KiB file over keep-alive):
#   base       no access options
#   allow      --allow with three networks (checked at accept)
#   auth       --auth "/**=FILE" (bcrypt cost 5) with the right credentials:
#              after the first request every check is a cache hit
#   redirects  --redirects with 100 rules that do not match the file
#   vhost      --vhost for the Host wrk sends, --root beside it
#   all        allow + auth + redirects + vhost + a _headers rule
# The CPU time is the sum of the first field of /proc/PID/task/*/schedstat
# (on-CPU ns of every server thread; server_cpu_ns: the keeper, idle, and its
# serving process) around each wrk run, divided by the
# requests wrk completed. Each round runs the configurations in a rotated
# order; the report gives the median and the range over the rounds. On a
# shared machine the range is the honest part of the figure.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

rounds=5 duration=3 bin=$release_bin
bench_args rounds:count duration:count bin -- "$@"
bench_beneath "$bin"
bench_need wrk htpasswd
bench_pinning
bench_work beneath-access-cpu

head -c 1024 /dev/urandom | base64 -w 76 | head -c 1024 >"$root/file.txt"
htpasswd -cbB -C 5 "$work/users" bench secret 2>/dev/null
for i in $(seq 100); do
  if [ $((i % 2)) -eq 0 ]; then
    echo "/old/page-$i.html /new/page-$i.html 301"
  else
    echo "/section-$i/* /moved-$i/:splat 302"
  fi
done >"$work/redirects"
printf '/*\n  X-Frame-Options: DENY\n' >"$work/headers"
auth_header="Authorization: Basic $(printf bench:secret | base64)"

names=(base allow auth redirects vhost all)
declare -A opts hdr port pid_of
opts[base]=""
opts[allow]="--allow 10.0.0.0/8,127.0.0.0/8,192.168.0.0/16"
opts[auth]="--auth /**=$work/users"
opts[redirects]="--redirects $work/redirects"
opts[vhost]="--vhost bench.example=$root"
opts[all]="${opts[allow]} ${opts[auth]} ${opts[redirects]} ${opts[vhost]} --headers-file $work/headers"
for n in "${names[@]}"; do hdr[$n]=""; done
hdr[auth]=$auth_header
hdr[all]=$auth_header
for n in "${names[@]}"; do
  # shellcheck disable=SC2086 # the options are words
  start_beneath "$work/$n.err" --threads 1 --root "$root" ${opts[$n]}
  pid_of[$n]=$bench_pid port[$n]=$bench_port
done

measure() { # NAME PATH: one wrk run; prints ns per request
  local n=$1 before after reqs
  local -a h=()
  [ -n "${hdr[$n]}" ] && h=(-H "${hdr[$n]}")
  before=$(server_cpu_ns "${pid_of[$n]}")
  reqs=$("${pin_client[@]}" wrk -t1 -c8 -d"${duration}s" -H "Host: bench.example" \
    "${h[@]}" "http://127.0.0.1:${port[$n]}$2" |
    awk '/requests in/ {print $1}')
  after=$(server_cpu_ns "${pid_of[$n]}")
  [ "${reqs:-0}" -gt 0 ] || die "$n: wrk completed no request"
  echo $(((after - before) / reqs))
}

# warm-up: fills the auth cache and the page cache
files=(/file.txt) # what every round serves (bench_rounds)
for n in "${names[@]}"; do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: bench.example" \
    ${hdr[$n]:+-H "${hdr[$n]}"} "http://127.0.0.1:${port[$n]}${files[0]}")
  [ "$code" = 200 ] || die "$n answers $code"
done

declare -A res # NAME: its ns per request of every round
record() { res[$4]+="$(measure "$4" "$3") "; } # ROUND POS PATH NAME: NAME's ns/request
bench_rounds "$rounds" record "${names[@]}"

echo "# server CPU per request (ns), $rounds rounds of ${duration}s, $pinning"
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %8s %8s %8s %10s\n' config median min max vs-base
base_med=0
for n in "${names[@]}"; do
  read -r med min max < <(med_min_max "${res[$n]}")
  [ "$n" = base ] && base_med=$med
  printf '%-10s %8d %8d %8d %+10d\n' "$n" "$med" "$min" "$max" $((med - base_med))
done
