#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# testssl.sh against an https:// listener of the real binary on 127.0.0.1:
# protocols, server defaults (session resumption) and the vulnerability
# checks. Fails on TLS 1.0/1.1 offered, no ALPN http/1.1, no ticket
# resumption, or any VULNERABLE line. The full output is kept in $OUT
# (default testssl.txt).
# Ticket resumption is checked with openssl s_client (-sess_out, then
# -sess_in must say "Reused") for TLS 1.2 and 1.3: testssl's own resumption
# probe gives up with "Connect problem" when the machine is loaded.
#   tests/testssl.sh BENEATH_BINARY
set -euo pipefail
bin=$1
out=${OUT:-testssl.txt}
command -v testssl >/dev/null || { echo "testssl (Debian testssl.sh) missing"; exit 1; }
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
mkdir "$dir/www"
echo hello >"$dir/www/index.html"
"$bin" "$dir/www" --listen https://127.0.0.1:0 --tls-self-signed \
  --access-log off 2>"$dir/err" &
pid=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's|.*listening on https://127.0.0.1:\([0-9]*\).*|\1|p' "$dir/err")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$dir/err"; echo "no listening line"; exit 1; }
timeout 540 testssl --quiet --color 0 --warnings off --ip one \
  --protocols --server-defaults --vulnerable "127.0.0.1:$port" >"$out" 2>&1 || true
fail=0
# a failed handshake ends with an alert (here: protocol_version)
alert=$(echo | timeout 10 openssl s_client -connect "127.0.0.1:$port" -tls1_1 2>&1 || true)
echo "$alert" | grep -q 'alert protocol version' ||
  { echo "FAIL: no protocol_version alert for a TLS 1.1 hello"; fail=1; }
check() { # check REGEX MESSAGE: the output must match
  grep -Eq "$1" "$out" || { echo "FAIL: $2"; fail=1; }
}
check '^ TLS 1 +not offered' 'TLS 1.0 offered'
check '^ TLS 1\.1 +not offered' 'TLS 1.1 offered'
check '^ TLS 1\.2 +offered' 'TLS 1.2 not offered'
check '^ TLS 1\.3 +offered' 'TLS 1.3 not offered'
check '^ ALPN/HTTP2 .*http/1\.1' 'ALPN http/1.1 not offered'
resumed() { # resumed -tls1_2|-tls1_3: a ticket from one connection resumes the next
  rm -f "$dir/sess"
  printf 'GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n' |
    timeout 10 openssl s_client -quiet -connect "127.0.0.1:$port" "$1" \
      -sess_out "$dir/sess" >/dev/null 2>&1 || true
  [ -s "$dir/sess" ] || return 1
  echo | timeout 10 openssl s_client -connect "127.0.0.1:$port" "$1" \
    -sess_in "$dir/sess" 2>&1 | grep -q '^Reused,'
}
for v in -tls1_2 -tls1_3; do
  ok=0
  for _ in 1 2 3; do resumed "$v" && { ok=1; break; }; sleep 1; done
  [ $ok -eq 1 ] && echo "session resumption by ticket ($v): yes" ||
    { echo "FAIL: no session resumption by ticket ($v)"; fail=1; }
done
check 'Done ' 'testssl did not finish'
if grep -q 'VULNERABLE' "$out"; then
  grep 'VULNERABLE' "$out"
  echo "FAIL: a VULNERABLE line"
  fail=1
fi
grep -E '^ (SSLv|TLS 1)|ALPN|Session Resumption|Session Ticket' "$out"
[ $fail -eq 0 ] && echo "testssl: 1 passed, 0 failed" || echo "testssl: 0 passed, 1 failed"
exit $fail
