#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The HTTPS listener of the real binary on 127.0.0.1 against what
# docs/tls.md promises, as outcomes any TLS library must give:
#  1. with openssl s_client, a handful of handshakes (each bounded to 10 s):
#     TLS 1.2 and 1.3 offered, TLS 1.0 and 1.1 refused with a
#     protocol_version alert; TLS 1.2 only with forward secrecy and AEAD (a
#     hello offering only non-FS or only CBC suites is refused); resumption
#     by ticket in TLS 1.2 and 1.3; ALPN h2 preferred, http/1.1;
#  2. testssl.sh, as the independent scanner, with the sections that bear
#     on those promises (--protocols, --fs, --std, and the quick
#     vulnerability checks: Heartbleed, CCS, Ticketbleed, renegotiation,
#     CRIME, TLS_FALLBACK_SCSV), --fast, bounded by TESTSSL_SECONDS (default
#     240, well under ctest's 420). Every finding it made is checked (its
#     JSON, one finding at a time): protocols, cipher categories, forward
#     secrecy, no VULNERABLE, no finding of severity MEDIUM or worse. On a
#     machine too busy for it to finish in time, the findings it made are
#     still checked and the line says how far it got: part 1 has checked
#     the promises already, so a slow machine cannot turn this test red.
# Its text output is kept in $OUT (default testssl.txt), its JSON beside it.
#   tests/testssl.sh BENEATH_BINARY
set -euo pipefail
bin=$1
out=${OUT:-testssl.txt}
json=${out%.txt}.json
bound=${TESTSSL_SECONDS:-240}
command -v testssl >/dev/null || { echo "testssl (Debian testssl.sh) missing"; exit 1; }
dir=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
mkdir "$dir/www"
echo hello >"$dir/www/index.html"
# made here: the background job's redirection may come after the first
# read below
: >"$dir/err"
"$bin" "$dir/www" --listen https://127.0.0.1:0 --tls-self-signed --state-dir "$dir/state" \
  --access-log off 2>>"$dir/err" &
pid=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's|.*listening on https://127.0.0.1:\([0-9]*\).*|\1|p' "$dir/err")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$dir/err"; echo "no listening line"; exit 1; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
hello() { # hello ARGS...: one handshake, s_client's output
  echo | timeout 10 openssl s_client -connect "127.0.0.1:$port" "$@" 2>&1 || true
}

# 1. the promises, handshake by handshake
for v in -tls1 -tls1_1; do
  hello "$v" -cipher 'DEFAULT:@SECLEVEL=0' | grep -q 'alert protocol version' ||
    bad "no protocol_version alert for a $v hello"
done
for v in -tls1_2 -tls1_3; do
  line=$(hello "$v" | grep -m1 '^New, ' || true)
  [[ "$line" == "New, TLSv1."[23]", Cipher is "* && "$line" != *"(NONE)"* ]] ||
    bad "no $v handshake: '$line'"
  echo "$v: ${line#New, }"
done
[[ "$(hello -tls1_2 | grep -m1 '^New, ')" == *"Cipher is ECDHE-"*"-GCM-"* ||
  "$(hello -tls1_2 | grep -m1 '^New, ')" == *"Cipher is ECDHE-"*"-CHACHA20-POLY1305" ]] ||
  bad "TLS 1.2's default choice is not ECDHE with an AEAD"
refused=0
for offer in 'kRSA:kPSK:kECDH:kDH:!kEECDH:!kEDH:@SECLEVEL=0' \
  'ECDHE:DHE:!AESGCM:!CHACHA20:!AESCCM:!ARIAGCM:@SECLEVEL=0'; do
  line=$(hello -tls1_2 -cipher "$offer" | grep -m1 '^New, ' || true)
  if [[ "$line" == *"(NONE)"* || -z "$line" ]]; then
    refused=$((refused + 1))
  else
    bad "TLS 1.2 with only '$offer' offered: '$line' (not forward secret, or not AEAD)"
  fi
done
[ $refused -eq 2 ] && echo "TLS 1.2: a hello with only non-FS suites, or only non-AEAD ones, is refused"
resumed() { # resumed -tls1_2|-tls1_3: a ticket from one connection resumes the next
  rm -f "$dir/sess"
  printf 'GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n' |
    timeout 10 openssl s_client -quiet -connect "127.0.0.1:$port" "$1" \
      -sess_out "$dir/sess" >/dev/null 2>&1 || true
  [ -s "$dir/sess" ] || return 1
  hello "$1" -sess_in "$dir/sess" | grep -q '^Reused,'
}
for v in -tls1_2 -tls1_3; do
  ok=0
  for _ in 1 2 3; do resumed "$v" && { ok=1; break; }; sleep 1; done
  [ $ok -eq 1 ] && echo "session resumption by ticket ($v): yes" ||
    bad "no session resumption by ticket ($v)"
done
# ALPN: h2 preferred (--http2 on by default), http/1.1 when asked alone
alpn=$(hello -alpn h2,http/1.1 | sed -n 's/^ALPN protocol: //p')
[ "$alpn" = h2 ] && echo "ALPN h2,http/1.1: $alpn" || bad "ALPN h2,http/1.1 chose '$alpn', want h2"
alpn=$(hello -alpn http/1.1 | sed -n 's/^ALPN protocol: //p')
[ "$alpn" = http/1.1 ] && echo "ALPN http/1.1: $alpn" || bad "ALPN http/1.1 chose '$alpn'"

# 2. testssl.sh, bounded; what it found is checked, however far it got
rm -f "$json"
start=$(date +%s)
rc=0
timeout "$bound" testssl --quiet --color 0 --warnings off --ip one --fast \
  --connect-timeout 10 --openssl-timeout 10 --jsonfile "$json" \
  --protocols --fs --std --heartbleed --ccs --ticketbleed --renegotiation \
  --crime --tls-fallback "127.0.0.1:$port" >"$out" 2>&1 || rc=$?
took=$(($(date +%s) - start))
# Its JSON is an array written one finding at a time: read it as a stream
# of objects, so a run cut short still gives every finding it wrote.
findings=$( (sed -e '1s/^\[//' -e 's/^,//' -e '$s/^\]$//' "$json" 2>/dev/null || true) |
  jq -r '[.id, .severity, .finding] | @tsv' 2>/dev/null || true)
has() { grep -qP "^$1\t" <<<"$findings"; }
want() { # want ID REGEX: when testssl made finding ID, it matches REGEX
  if has "$1"; then
    grep -P "^$1\t" <<<"$findings" | cut -f3 | grep -qE "$2" ||
      bad "testssl $1: '$(grep -P "^$1\t" <<<"$findings" | cut -f3)', want /$2/"
  fi
}
want SSLv2 '^not offered'
want SSLv3 '^not offered'
want TLS1 '^not offered'
want TLS1_1 '^not offered'
want TLS1_2 '^offered'
want TLS1_3 '^offered'
want ALPN 'http/1\.1'
want ALPN_HTTP2 '(^|[ ,])h2([ ,]|$)'
for c in NULL aNULL EXPORT LOW 3DES_IDEA AVERAGE; do want "cipherlist_$c" '^not offered'; done
want PFS '^offered'
grep -P '\t(MEDIUM|HIGH|CRITICAL)\t' <<<"$findings" | grep -q . &&
  bad "testssl findings of severity MEDIUM or worse: $(grep -P '\t(MEDIUM|HIGH|CRITICAL)\t' <<<"$findings")"
grep -qi 'VULNERABLE' <<<"$(cut -f3 <<<"$findings" | grep -vi 'not vulnerable')" &&
  bad "testssl: a VULNERABLE finding: $(grep -i vulnerable <<<"$findings" | grep -vi 'not vulnerable')"
n=$(grep -c . <<<"$findings" || true)
if [ "$rc" -eq 124 ]; then
  echo "testssl: stopped at its bound of $bound s (a busy machine) after $n findings, each checked; part 1 checked the promises"
elif [ "$rc" -ne 0 ] || ! has scanTime; then
  bad "testssl did not finish (status $rc after $took s): $(tail -n 5 "$out")"
else
  echo "testssl: finished in $took s, $n findings checked"
fi
grep -E '^ (SSLv|TLS 1|ALPN|Forward Secrecy|PFS)' "$out" || true
[ $fail -eq 0 ] && echo "testssl: 1 passed, 0 failed" || echo "testssl: 0 passed, 1 failed"
exit $fail
