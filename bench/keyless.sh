#!/usr/bin/env bash
# bench/keyless.sh: what keeping the TLS private key out of the serving
# process would cost, per new TLS 1.3 handshake.
#
#   bench/keyless.sh [--rounds N] [--seconds S] [--clients N]
#
# Compiles bench/keyless.c (standalone, not part of the CMake build) into a
# temp dir and runs it --rounds times (default 5) in each mode, local then
# keeper, the order swapped every round, --seconds seconds each (default
# 5), with --clients client threads (default 4). local: one server thread
# signs each CertificateVerify with the ECDSA P-256 key it holds. keeper:
# the server holds only the public key; a forked signer process holds the
# key and signs each handshake's digest, sent over a SOCK_SEQPACKET
# socketpair. The server thread and the signer run on CPU 0, the clients
# on CPU 1 (2 CPUs or more). Every run must complete as many handshakes on
# the server as on the clients and, in keeper mode, as many signatures in
# the signer: otherwise the script stops. Prints a markdown table: per mode
# the median and min .. max over the rounds of handshakes/s and of server
# CPU µs per handshake (schedstat of the server thread, plus the signer's
# in keeper mode; the signer's share in its own column), and keeper ÷
# local within a round.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

rounds=5 seconds=5 clients=4
bench_args rounds:count seconds:count clients:count -- "$@"
bench_need cc
bench_work keyless

bin=$work/keyless
cc -O2 -Wall -Wextra -Werror -o "$bin" "$here/keyless.c" -lssl -lcrypto -lpthread ||
  die "compiling bench/keyless.c failed"

results=$work/results.txt
: >"$results"
t0=$SECONDS
for round in $(seq "$rounds"); do
  order=(local keeper)
  [ $((round % 2)) = 1 ] || order=(keeper local)
  note "round $round/$rounds ($((SECONDS - t0)) s)"
  for mode in "${order[@]}"; do
    line=$("$bin" "$mode" --seconds "$seconds" --clients "$clients") ||
      die "$mode: the counts differ or the run failed: $line"
    note "$line"
    echo "round=$round $line" >>"$results"
  done
done

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(openssl version | cut -d' ' -f1-2)," \
  "$rounds rounds of $seconds s per mode, $clients client threads," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
awk "$median_awk"'
  function val(key,   i, w) {
    for (i = 1; i <= NF; i++) { split($i, w, "="); if (w[1] == key) return w[2] }
    return ""
  }
  {
    r = val("round"); m = val("mode")
    hs[r, m] = val("hs_per_s"); cpu[r, m] = val("cpu_us_per_hs")
    if (val("handshakes") > 0) sig[r, m] = val("signer_cpu_ns") / 1000 / val("handshakes")
    if (!(r in seen)) { seen[r] = 1; rounds[++nr] = r }
    if (m == "keeper") { sigs += val("signatures"); n_hs += val("handshakes") }
  }
  END {
    print "| mode | handshakes/s | server CPU µs/handshake | of which the signer |"
    print "|---|---|---|---|"
    split("local keeper", modes, " ")
    for (mi = 1; mi <= 2; mi++) {
      m = modes[mi]; n = 0; split("", a); split("", b); split("", c)
      for (k = 1; k <= nr; k++) {
        r = rounds[k]; a[++n] = hs[r, m]; b[n] = cpu[r, m]; c[n] = sig[r, m]
      }
      printf "| %s | %s | %s | %s |\n", m, mmm(a, n, "%.0f"), mmm(b, n, "%.1f"),
        m == "keeper" ? mmm(c, n, "%.1f") : "-"
    }
    n = 0; split("", a); split("", b)
    for (k = 1; k <= nr; k++) {
      r = rounds[k]
      a[++n] = hs[r, "keeper"] / hs[r, "local"]; b[n] = cpu[r, "keeper"] / cpu[r, "local"]
    }
    printf "| keeper ÷ local | %s | %s | |\n", mmm(a, n, "%.2f"), mmm(b, n, "%.2f")
    printf "\nkeeper runs: %d signatures by the signer for %d handshakes (equal in every run, else the script stops)\n", sigs, n_hs
  }' "$results"
