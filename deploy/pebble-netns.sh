# shellcheck shell=bash
# deploy/pebble-netns.sh: sourced by the deploy tests that run Pebble and
# pebble-challtestsrv inside a container's network namespace
# (deploy/systemd/test.sh, deploy/container/test-sites.sh), not run. The
# caller has $tmp, a pebble_pids array its cleanup ends (pebble_stop), and
# fail MESSAGE.
# shellcheck disable=SC2154 # $tmp is the caller's

# pebble_api_cert: Pebble's HTTPS certificate and key, $tmp/api.pem and
# $tmp/api.key (for 127.0.0.1; clients trust api.pem)
pebble_api_cert() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1,DNS:localhost \
    -keyout "$tmp/api.key" -out "$tmp/api.pem" 2>/dev/null || fail "Pebble's HTTPS certificate"
}

# pebble_netns PID HTTP_PORT TLS_PORT: Pebble (API 127.0.0.1:14000,
# management 15000) and its DNS (every name 127.0.0.1) started in the
# network namespace of PID, validating HTTP-01 on HTTP_PORT and
# TLS-ALPN-01 on TLS_PORT there, without Pebble's random wait; logs in
# $tmp/pebble.log and $tmp/challtestsrv.log. nsenter itself runs each, so
# the PID in pebble_pids is the program's. PEBBLE_* variables set by the
# caller pass through.
pebble_netns() {
  cat >"$tmp/pebble.json" <<JSON
{"pebble": {"listenAddress": "127.0.0.1:14000",
 "managementListenAddress": "127.0.0.1:15000",
 "certificate": "$tmp/api.pem", "privateKey": "$tmp/api.key",
 "httpPort": $2, "tlsPort": $3,
 "ocspResponderURL": "", "externalAccountBindingRequired": false}}
JSON
  nsenter -t "$1" -n pebble-challtestsrv -defaultIPv4 127.0.0.1 -defaultIPv6 "" \
    -dns01 127.0.0.1:8053 -http01 "" -https01 "" -tlsalpn01 "" \
    -management 127.0.0.1:8055 >"$tmp/challtestsrv.log" 2>&1 &
  pebble_pids+=($!)
  PEBBLE_VA_NOSLEEP=1 nsenter -t "$1" -n pebble -config "$tmp/pebble.json" \
    -dnsserver 127.0.0.1:8053 >"$tmp/pebble.log" 2>&1 &
  pebble_pids+=($!)
}

# pebble_stop: every program pebble_netns started, ended (the caller's
# cleanup; nothing when none was started)
pebble_stop() {
  local p
  for p in "${pebble_pids[@]}"; do
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  pebble_pids=()
}
