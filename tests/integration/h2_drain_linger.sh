#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An HTTP/2 download that a reload's drain ends arrives whole. A slow
# reader (h2_slow_reader.py: large windows, a MiB of WINDOW_UPDATE at a
# time) fetches 32 MiB at 4 MiB/s over h2c and over h2 with TLS (8 s: the
# new generation serves well before the end, even under ASan on a busy
# machine); a SIGHUP after 0.5 s makes the old generation drain: the
# shutdown notice, the final GOAWAY, and once the stream is written the
# session ends while the socket still holds megabytes to send. Closing
# then, with the client's next WINDOW_UPDATE arriving, would reset the
# connection and drop them (it did: 29 of 32 MiB arrived); the front shuts down for writing and reads to the
# client's end instead (front.c, finish). Checks: every byte, the stream's
# end, at least one GOAWAY seen, no error; the old generation exits.
#   h2_drain_linger.sh BENEATH_BIN
set -euo pipefail
bin=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-h2-linger-XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
# shellcheck source-path=SCRIPTDIR source=beneath_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/beneath_lib.sh"

mkdir "$tmp/www"
size=$((32 << 20))
head -c "$size" /dev/urandom >"$tmp/www/f.bin"
"$bin" --listen 127.0.0.1:0 --listen https://127.0.0.1:0 --tls-self-signed \
  --http2 on --access-log off "$tmp/www" 2>"$tmp/err" &
pid=$!
wait_for 2 'listening on' 20
reloads=1
for scheme in http https; do
  port=$(grep -o "$scheme://127\.0\.0\.1:[0-9]*" "$tmp/err" | head -1)
  port=${port##*:}
  tls=
  [ "$scheme" = https ] && tls=--tls
  timeout 60 /usr/bin/python3 "$(dirname "$0")/h2_slow_reader.py" \
    127.0.0.1 "$port" /f.bin $((4 << 20)) $tls >"$tmp/out" 2>&1 &
  reader=$!
  sleep 0.5
  kill -HUP "$pid"
  wait_for "$reloads" 'SIGHUP: generation [0-9]* (pid [0-9]*) serving' 60
  wait "$reader" || fail "$scheme: the reader failed: $(cat "$tmp/out")"
  out=$(cat "$tmp/out")
  [[ "$out" =~ ^got\ $size\ done\ True\ goaways\ [1-9][0-9]*\ err\ None$ ]] ||
    fail "$scheme: the download cut by the drain: '$out' (want $size bytes, the stream's end, a GOAWAY, no error)"
  # the drained generation exits once its connection ended
  wait_for "$reloads" 'generation [0-9]* (pid [0-9]*) drained in' 30
  echo "ok $scheme: $out"
  reloads=$((reloads + 1))
done
