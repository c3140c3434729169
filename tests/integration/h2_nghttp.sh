#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# HTTP/2 with nghttp (nghttp2-client): several files of
# several sizes (7 B to 3 MiB) fetched at once on one connection to beneath
# over https:// (--tls-self-signed, ALPN h2): one TLS connection, one
# SETTINGS from the server, each stream 200 with its file's length in
# DATA frames; then the same files fetched one by one match byte for byte.
#   h2_nghttp.sh BENEATH_BIN
# Exit 77 (skipped) when nghttp is missing.
set -euo pipefail
bin=$1
command -v nghttp >/dev/null || { echo "skip: nghttp not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-h2-nghttp-XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; echo "--- server stderr" >&2; cat "$tmp/err" >&2 || true; exit 1; }

mkdir "$tmp/www"
echo 'body{}' >"$tmp/www/a.css"
head -c 20000 /dev/urandom >"$tmp/www/b.js"
head -c 65535 /dev/urandom >"$tmp/www/c.bin" # one byte under the window
head -c 300000 /dev/urandom >"$tmp/www/d.bin"
head -c 3145728 /dev/urandom >"$tmp/www/e.bin"
printf '<!DOCTYPE html><title>x</title>\n' >"$tmp/www/index.html"
files="a.css b.js c.bin d.bin e.bin index.html"

"$bin" --listen https://127.0.0.1:0 --tls-self-signed --access-log "$tmp/access" \
  "$tmp/www" 2>"$tmp/err" &
pid=$!
for _ in $(seq 200); do
  grep -q 'listening on https://' "$tmp/err" && break
  kill -0 "$pid" 2>/dev/null || fail "beneath exited"
  sleep 0.05
done
url=$(grep -o 'https://127\.0\.0\.1:[0-9]*' "$tmp/err" | head -1)
[ -n "$url" ] || fail "no listening line"

urls=
for f in $files; do urls="$urls $url/$f"; done
# shellcheck disable=SC2086 # one argument per URL
timeout 60 nghttp -nv $urls >"$tmp/frames" 2>&1 || fail "nghttp: $(tail -5 "$tmp/frames")"

connected=$(grep -c '] Connected' "$tmp/frames" || true)
[ "$connected" = 1 ] || fail "$connected connections, want 1"
settings=$(grep -c 'recv SETTINGS frame <length=[0-9]*, flags=0x00, stream_id=0>' "$tmp/frames" || true)
[ "$settings" = 1 ] || fail "$settings SETTINGS frames from the server, want 1"
grep -q 'negotiated protocol: h2' "$tmp/frames" || fail "no ALPN h2: $(head -5 "$tmp/frames")"

# each request's stream: its :path, then its status and DATA lengths
for f in $files; do
  sid=$(awk -v p="/$f" '/send HEADERS frame/ { match($0, /stream_id=[0-9]+/); s = substr($0, RSTART + 10, RLENGTH - 10) }
                        $0 ~ ":path: " p "$" { print s; exit }' "$tmp/frames")
  [ -n "$sid" ] || fail "no stream for /$f"
  status=$(grep -o "recv (stream_id=$sid) :status: [0-9]*" "$tmp/frames" | awk '{ print $NF }')
  [ "$status" = 200 ] || fail "/$f: status '$status'"
  bytes=$(grep -o "recv DATA frame <length=[0-9]*, flags=0x0[01], stream_id=$sid>" "$tmp/frames" |
          sed 's/.*length=\([0-9]*\).*/\1/' | awk '{ n += $1 } END { print n + 0 }')
  want=$(stat -c %s "$tmp/www/$f")
  [ "$bytes" = "$want" ] || fail "/$f: $bytes bytes in DATA frames, want $want"
  echo "ok: /$f on stream $sid: 200, $bytes bytes"
done

# the bodies themselves, one stream a run
for f in $files; do
  timeout 60 nghttp "$url/$f" >"$tmp/got" 2>"$tmp/nghttp.err" || fail "nghttp /$f: $(cat "$tmp/nghttp.err")"
  cmp -s "$tmp/got" "$tmp/www/$f" || fail "/$f: the body differs"
done
echo "ok: bodies match"
# a line is written once its stream is over, and the log writes its batch
# within about 10 ms: wait for them (bounded)
want=$(( $(echo "$files" | wc -w) * 2 ))
for _ in $(seq 100); do
  n=$(grep -c " HTTP/2.0\" 200 " "$tmp/access" || true)
  [ "$n" -lt "$want" ] || break
  sleep 0.05
done
[ "$n" -ge "$want" ] || fail "$n access log lines say HTTP/2.0 200, want $want: $(head -3 "$tmp/access")"
echo "ok: nghttp fetched $(echo "$files" | wc -w) files at once on one h2 connection"
