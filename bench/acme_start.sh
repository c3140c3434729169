#!/usr/bin/env bash
# bench/acme_start.sh: how long beneath takes from its start to serving an
# ACME certificate a client verifies, against a local Pebble.
#
#   bench/acme_start.sh [--rounds N] [--challenge http-01|tls-alpn-01]
#                       [--out DIR] [--beneath PATH] [--also NAME=PATH]...
#
# Pebble (PEBBLE_VA_NOSLEEP=1: no random wait before it validates) and
# pebble-challtestsrv (its DNS: 127.0.0.1 for every name) run on 127.0.0.1
# ports of their own. In each of --rounds rounds (default 5), every beneath
# binary (--beneath PATH, default the release preset's, built unless given;
# --also NAME=PATH adds another, e.g. the parent commit's build), in an
# order rotated by one per round, starts with an empty --acme-dir (a new
# account, so no authorization is reused), --acme a.test, --acme-challenge
# --challenge (default http-01), a plain listener on Pebble's HTTP port and
# an https:// one on its TLS port. Caddy (Debian's caddy package), when
# installed, runs in the same rotation with a Caddyfile that does the same
# (site a.test, Pebble as its only CA, empty storage, its HTTP and HTTPS
# ports Pebble's; it picks the challenge itself). The time runs from just
# before the server is started until `openssl s_client -servername a.test
# -verify_hostname a.test -verify_return_error` with the root Pebble gives
# out succeeds (tried every 20 ms; at most 60 s); then the server is
# stopped. Reports per binary the median (min .. max) in seconds over the
# rounds, and the server's ACME lines of the last round. Writes
# acme_start.csv (every round) and acme_start.md in --out (default
# build/bench/acme_start). bench/README.md ("ACME: start to a verified
# certificate") has figures.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

rounds=5 challenge=http-01 out="" beneath="" also=()
bench_args rounds:count challenge out beneath also:list -- "$@"
case $challenge in http-01 | tls-alpn-01) ;; *) die "--challenge: http-01 or tls-alpn-01, not '$challenge'" ;; esac
bench_need pebble pebble-challtestsrv openssl curl

bench_out acme_start
bench_beneath "$beneath" "$out"
names=(beneath) bins=("$beneath_bin")
for a in "${also[@]}"; do
  [ "${a#*=}" != "$a" ] && [ -x "${a#*=}" ] || die "--also NAME=PATH, PATH a beneath binary: '$a'"
  names+=("${a%%=*}")
  bins+=("$(cd "$(dirname "${a#*=}")" && pwd)/$(basename "${a#*=}")")
done
if command -v caddy >/dev/null; then
  names+=(caddy)
  bins+=("$(command -v caddy)")
else
  note "caddy is not installed (scripts/deps.sh test installs it): beneath only"
fi
bench_work acme_start

# --- Pebble ---------------------------------------------------------------------
dns_port=$(free_port) api_port=$(free_port) mgmt_port=$(free_port)
cts_port=$(free_port) http_port=$(free_port) tls_port=$(free_port)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1,DNS:localhost \
  -keyout "$run/api.key" -out "$run/api.pem" 2>/dev/null
cat >"$run/pebble.json" <<EOF
{"pebble": {"listenAddress": "127.0.0.1:$api_port",
 "managementListenAddress": "127.0.0.1:$mgmt_port",
 "certificate": "$run/api.pem", "privateKey": "$run/api.key",
 "httpPort": $http_port, "tlsPort": $tls_port,
 "ocspResponderURL": "", "externalAccountBindingRequired": false}}
EOF
pebble-challtestsrv -defaultIPv4 127.0.0.1 -defaultIPv6 "" \
  -dns01 "127.0.0.1:$dns_port" -http01 "" -https01 "" -tlsalpn01 "" \
  -management "127.0.0.1:$cts_port" >"$run/challtestsrv.log" 2>&1 &
bench_pids+=($!)
PEBBLE_VA_NOSLEEP=1 pebble -config "$run/pebble.json" \
  -dnsserver "127.0.0.1:$dns_port" >"$run/pebble.log" 2>&1 &
bench_pids+=($!)
for _ in $(seq 200); do
  curl -sf --cacert "$run/api.pem" -o "$run/root.pem" \
    "https://127.0.0.1:$mgmt_port/roots/0" && break
  sleep 0.05
done
[ -s "$run/root.pem" ] || die "Pebble did not start: $(tail -n 5 "$run/pebble.log")"

verifies() {
  openssl s_client -connect "127.0.0.1:$tls_port" -servername a.test \
    -verify_hostname a.test -CAfile "$run/root.pem" -verify_return_error \
    </dev/null >/dev/null 2>&1
}

# Caddy's configuration: a.test from Pebble alone, its ports Pebble's
cat >"$run/Caddyfile" <<EOF
{
	admin off
	skip_install_trust
	ocsp_stapling off
	http_port $http_port
	https_port $tls_port
	acme_ca https://127.0.0.1:$api_port/dir
	acme_ca_root $run/api.pem
	storage file_system $run/acme
}
a.test {
	bind 127.0.0.1
	root * $root
	file_server
}
EOF

# one NAME BIN LOG: start the server NAME (BIN), print the seconds until a
# verified certificate (nothing after 60 s), stop it
one() {
  local name=$1 bin=$2 log=$3 pid t0 t1 ok=""
  rm -rf "$run/acme"
  t0=$(date +%s%N)
  if [ "$name" = caddy ]; then
    HOME=$run XDG_DATA_HOME=$run/acme XDG_CONFIG_HOME=$run/acme \
      "$bin" run --adapter caddyfile --config "$run/Caddyfile" 2>"$log" &
  else
    "$bin" --listen "127.0.0.1:$http_port" --listen "https://127.0.0.1:$tls_port" \
      --acme a.test --acme-challenge "$challenge" \
      --acme-ca "https://127.0.0.1:$api_port/dir" --acme-ca-root "$run/api.pem" \
      --acme-dir "$run/acme" --access-log off "$root" 2>"$log" &
  fi
  pid=$!
  bench_pids+=("$pid")
  while [ $((($(date +%s%N) - t0) / 1000000)) -lt 60000 ]; do
    if verifies; then
      ok=1
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.02
  done
  t1=$(date +%s%N)
  stop_pid "$pid"
  [ -z "$ok" ] || awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.3f\n", ns / 1e9 }'
}

csv=$out/acme_start.csv
echo "round,binary,seconds" >"$csv"
n=${#bins[@]}
for r in $(seq "$rounds"); do
  for k in $(seq 0 $((n - 1))); do
    i=$(((k + r - 1) % n))
    s=$(one "${names[i]}" "${bins[i]}" "$out/server-${names[i]}.log")
    [ -n "$s" ] || die "${names[i]}: no verified certificate within 60 s: $(tail -n 20 "$out/server-${names[i]}.log")"
    echo "$r,${names[i]},$s" >>"$csv"
    note "round $r: ${names[i]} $s s"
  done
done

{
  echo "ACME start to a verified certificate (Pebble 2.4, PEBBLE_VA_NOSLEEP=1, beneath's challenge $challenge, $rounds rounds), seconds"
  echo
  echo "| binary | median (min .. max) |"
  echo "|---|---|"
  for i in "${!names[@]}"; do
    awk -F, -v b="${names[i]}" "$median_awk"'
      $2 == b { v[++n] = $3 }
      END { printf "| %s | %s |\n", b, mmm(v, n, "%.2f") }' "$csv"
  done
  for i in "${!names[@]}"; do
    echo
    echo "${names[i]} (${bins[i]}), its ACME lines in the last round:"
    echo
    grep -E 'acme|certificate' "$out/server-${names[i]}.log" | cut -c1-200 | sed 's/^/    /' || true
  done
} >"$out/acme_start.md"
cat "$out/acme_start.md"
