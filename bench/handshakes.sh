#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/handshakes.sh: what a TLS handshake costs the server, full and
# resumed, beside another build (the keys kept in the keeper, which signs
# each full handshake, against a build that signs in the serving process).
#
#   bench/handshakes.sh [--beneath BIN] [--also NAME=BIN] [--rounds N]
#                       [--seconds S] [--key ec|rsa]
#
# Each build serves https:// with one certificate (--key ec: P-256, made
# by --tls-self-signed; rsa: a 2048-bit key from files) and --threads 1.
# Every round, in an order rotated each round, `openssl s_time` makes full
# handshakes (-new) and then resumed ones (-reuse, a session ticket) for
# --seconds each against each build, fetching /index.html. The server CPU
# is the on-CPU time (schedstat) of every thread of the PID started and of
# its children (the keeper and its serving process: the keeper signs) over
# the run, divided by the handshakes made. Prints a markdown table: per
# build and kind, the median and min .. max over the rounds of handshakes
# per second (s_time's count over its wall time) and of server CPU µs per
# handshake, and each build's CPU over the first's.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

rounds=5 seconds=4 key=ec also="" beneath=""
bench_args beneath:path rounds:count seconds:count key:word also:word -- "$@"
bench_need openssl
bench_work handshakes
bench_beneath "$beneath" "$work"
case $key in ec | rsa) ;; *) die "--key ec or rsa" ;; esac

names=(beneath)
bins=("$beneath_bin")
if [ -n "$also" ]; then
  names+=("${also%%=*}")
  bins+=("${also#*=}")
fi
echo index >"$work/index.html"
if [ "$key" = rsa ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/k.pem" -out "$work/c.pem" \
    -days 30 -subj /CN=localhost 2>/dev/null || die "openssl req failed"
fi

ports=() pids=()
for i in "${!bins[@]}"; do
  port=$(free_port)
  args=(--listen "https://127.0.0.1:$port" --threads 1 --access-log off
    --state-dir "$work/state-$i")
  if [ "$key" = rsa ]; then
    args+=(--tls-cert "$work/c.pem" --tls-key "$work/k.pem")
  else
    args+=(--tls-self-signed)
  fi
  "${bins[$i]}" "${args[@]}" "$work" 2>"$work/err-$i" &
  pids+=($!)
  ports+=("$port")
done
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; bench_cleanup' EXIT
for i in "${!bins[@]}"; do
  for _ in $(seq 100); do grep -q 'listening on https' "$work/err-$i" && break; sleep 0.05; done
  out=$(openssl s_time -connect "127.0.0.1:${ports[$i]}" -new -time 1 -www /index.html 2>&1) ||
    die "${names[$i]} does not answer: $(tail -3 "$work/err-$i")"
  grep -q 'connections in' <<<"$out" || die "${names[$i]}: s_time: $out"
done

# the on-CPU ns of every thread of PID and its children
cpu_ns() {
  local p t total=0
  for p in "$1" $(cat "/proc/$1/task/$1/children" 2>/dev/null); do
    for t in /proc/"$p"/task/*/schedstat; do
      total=$((total + $(cut -d' ' -f1 "$t" 2>/dev/null || echo 0)))
    done
  done
  echo "$total"
}

results=$work/results.txt
: >"$results"
for round in $(seq "$rounds"); do
  order=("${!bins[@]}")
  [ $((round % 2)) = 1 ] || order=($(printf '%s\n' "${order[@]}" | tac))
  for i in "${order[@]}"; do
    for kind in new reuse; do
      before=$(cpu_ns "${pids[$i]}")
      out=$(openssl s_time -connect "127.0.0.1:${ports[$i]}" "-$kind" -time "$seconds" \
        -www /index.html 2>&1)
      after=$(cpu_ns "${pids[$i]}")
      line=$(grep 'connections in [0-9]* real seconds' <<<"$out" | tail -1)
      n=$(awk '{ print $1 }' <<<"$line")
      secs=$(awk '{ print $4 }' <<<"$line")
      [ "${n:-0}" -gt 0 ] || die "${names[$i]} $kind: s_time: $out"
      echo "round=$round name=${names[$i]} kind=$kind n=$n secs=$secs cpu_ns=$((after - before))" >>"$results"
      note "round $round ${names[$i]} $kind: $n handshakes"
    done
  done
done

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(openssl version | cut -d' ' -f1-2)," \
  "key $key, $rounds rounds of $seconds s per build and kind, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
awk "$median_awk"'
  function val(key,   i, w) {
    for (i = 1; i <= NF; i++) { split($i, w, "="); if (w[1] == key) return w[2] }
    return ""
  }
  {
    r = val("round"); nm = val("name"); k = val("kind")
    hs[r, nm, k] = val("n") / val("secs"); cpu[r, nm, k] = val("cpu_ns") / 1000 / val("n")
    if (!(r in seen)) { seen[r] = 1; rounds[++nr] = r }
    if (!(nm in known)) { known[nm] = 1; names[++nn] = nm }
  }
  END {
    print "| build | handshakes | per second | server CPU µs each | CPU ÷ " names[1] " |"
    print "|---|---|---|---|---|"
    split("new reuse", kinds, " ")
    for (ki = 1; ki <= 2; ki++)
      for (ni = 1; ni <= nn; ni++) {
        nm = names[ni]; k = kinds[ki]; n = 0; split("", a); split("", b); split("", c)
        for (j = 1; j <= nr; j++) {
          r = rounds[j]; a[++n] = hs[r, nm, k]; b[n] = cpu[r, nm, k]
          c[n] = cpu[r, nm, k] / cpu[r, names[1], k]
        }
        printf "| %s | %s | %s | %s | %s |\n", nm, k == "new" ? "full" : "resumed",
          mmm(a, n, "%.0f"), mmm(b, n, "%.0f"), mmm(c, n, "%.2f")
      }
  }' "$results"
