#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Reloads under load: a SIGHUP starts a new serving process and the old one
# drains, so a reload must cost no request. While wrk (HTTP/1.1 keep-alive),
# h2_reload_load.py over h2 with TLS and over h2c (prior knowledge) and one
# slow 100 MiB download run, RELOADS SIGHUPs (50) go to the keeper:
#   - wrk: no socket error, no non-2xx;
#   - HTTP/2 (h2_reload_load.py: 8 connections a URL, 8 streams in flight
#     on each, a new connection after each GOAWAY; h2load's clients stop at
#     their first): for both, no stream refused (the draining generation's
#     two-step GOAWAY answers every stream begun before the client read its
#     notice), reset, lost with its connection or stalled, every status 2xx
#     with its whole body, every connection made and answered; each of the
#     16 connection slots saw at least RELOADS - H2_SLACK (5) connections
#     drained (a client that stopped early shows), and answers came after
#     the last reload;
#   - the download completes with the file's bytes, though it began on the
#     first generation and outlived all the others;
#   - every generation served in turn (RELOADS "serving" lines) and every
#     old one is gone once drained;
#   - the keeper's descriptors and memory, and the serving process's
#     descriptors, are what they were after the first reload (RSS within
#     RSS_SLACK_KB).
#   reload_load.sh BENEATH_BIN
# Exit 77 (skipped) when wrk, curl, /usr/bin/python3 or python3-h2 is
# missing.
set -euo pipefail
bin=$1
reloads=${RELOADS:-50}
h2_slack=${H2_SLACK:-5}
here=$(cd "$(dirname "$0")" && pwd)
rss_slack_kb=${RSS_SLACK_KB:-4096}
# Under AddressSanitizer freed memory waits in its quarantine (256 MB by
# default) before it is used again: growth that is no leak. Bounded here,
# and allowed for (an ASan build's leak check still runs at exit).
if ldd "$bin" 2>/dev/null | grep -q libasan; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
  rss_slack_kb=$((rss_slack_kb + 32768))
fi
for tool in wrk curl /usr/bin/python3; do
  command -v "$tool" >/dev/null || { echo "skip: $tool not installed"; exit 77; }
done
/usr/bin/python3 -c 'import h2' 2>/dev/null || { echo "skip: python3-h2 not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-reload-load-XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  jobs -p | xargs -r kill 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
# shellcheck source-path=SCRIPTDIR source=beneath_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/beneath_lib.sh"
serving_pid() { awk '{ print $NF }' "/proc/$pid/task/$pid/children"; }
fds() { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 | wc -l; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

mkdir "$tmp/www"
head -c 1024 /dev/urandom >"$tmp/www/a.bin"
head -c $((100 << 20)) /dev/urandom >"$tmp/www/big.bin"
echo index >"$tmp/www/index.html"

"$bin" --listen 127.0.0.1:0 --listen https://127.0.0.1:0 --tls-self-signed \
  --access-log off "$tmp/www" 2>"$tmp/err" &
pid=$!
wait_for 2 'listening on' 20
http=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/err" | head -1)
https=$(grep -o 'https://127\.0\.0\.1:[0-9]*' "$tmp/err" | head -1)

# one reload first: what the keeper and a serving process hold then is
# what they must hold after the others
kill -HUP "$pid"
wait_for 1 'SIGHUP: generation [0-9]* (pid [0-9]*) serving' 30
sleep 0.5
keeper_fds=$(fds "$pid")
keeper_rss=$(rss_kb "$pid")
serving_fds=$(fds "$(serving_pid)")

# the slow download: about 25 s at 4 MB/s, begun before the first reload
timeout 120 curl -sS --limit-rate 4M -o "$tmp/big.out" "$http/big.bin" \
  2>"$tmp/curl.err" &
curl_pid=$!
secs=$((reloads / 2 + 6))
timeout $((secs + 60)) wrk -t2 -c16 -d"${secs}s" "$http/a.bin" >"$tmp/wrk" 2>&1 &
wrk_pid=$!
# HTTP/2 until 2 s after the last reload (SIGUSR1 marks it), bounded by
# its --duration; not under timeout(1), which SIGUSR1 would end
/usr/bin/python3 "$here/h2_reload_load.py" --conns 8 --streams 8 \
  --duration $((secs + 60)) --after 2 "$https/a.bin" "$http/a.bin" \
  >"$tmp/h2" 2>&1 &
h2_pid=$!
sleep 2
for ((i = 2; i <= reloads + 1; i++)); do
  kill -HUP "$pid"
  wait_for "$i" 'SIGHUP: generation [0-9]* (pid [0-9]*) serving' 30
  sleep 0.3
done
kill -USR1 "$h2_pid" 2>/dev/null || true # gone: its after_mark says so
wait "$wrk_pid" || fail "wrk: $(cat "$tmp/wrk")"
wait "$h2_pid" || fail "h2_reload_load.py: $(cat "$tmp/h2")"
wait "$curl_pid" || fail "the slow download failed: $(cat "$tmp/curl.err")"

cmp -s "$tmp/big.out" "$tmp/www/big.bin" || fail "the slow download's bytes differ"
if grep -q 'Socket errors' "$tmp/wrk"; then fail "wrk: $(grep 'Socket errors' "$tmp/wrk")"; fi
if grep -q 'Non-2xx' "$tmp/wrk"; then fail "wrk: $(grep 'Non-2xx' "$tmp/wrk")"; fi
# h2_count URL NAME: a count of h2_reload_load.py's line for URL
h2_count() {
  awk -v u="$1/a.bin" -v k="$2" '$1 == u {
    for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$tmp/h2"
}
for u in "$https" "$http"; do
  bad=
  for k in refused reset lost stalled short non2xx connect_errors \
    goaway_errors unanswered protocol_errors; do
    [ "$(h2_count "$u" "$k")" = 0 ] || bad="$bad $k"
  done
  [ "$(h2_count "$u" answered)" -gt 0 ] 2>/dev/null || bad="$bad answered"
  [ "$(h2_count "$u" after_mark)" -gt 0 ] 2>/dev/null || bad="$bad after_mark"
  [ "$(h2_count "$u" min_drained)" -ge $((reloads - h2_slack)) ] 2>/dev/null ||
    bad="$bad min_drained(<$((reloads - h2_slack)))"
  [ -z "$bad" ] || fail "HTTP/2 over $u:$bad
--- h2_reload_load.py's whole output
$(cat "$tmp/h2")"
done

# the old generations are gone once drained (the download's was the last)
for _ in $(seq 200); do
  [ "$(wc -w <"/proc/$pid/task/$pid/children")" = 1 ] && break
  sleep 0.05
done
[ "$(wc -w <"/proc/$pid/task/$pid/children")" = 1 ] ||
  fail "serving processes left: $(cat "/proc/$pid/task/$pid/children")"
sleep 0.5
now_keeper_fds=$(fds "$pid")
now_keeper_rss=$(rss_kb "$pid")
now_serving_fds=$(fds "$(serving_pid)")
[ "$now_keeper_fds" = "$keeper_fds" ] ||
  fail "keeper fds $keeper_fds after the first reload, $now_keeper_fds after $reloads more"
[ "$now_serving_fds" = "$serving_fds" ] ||
  fail "serving process fds $serving_fds after the first reload, $now_serving_fds after $reloads more"
[ "$now_keeper_rss" -le $((keeper_rss + rss_slack_kb)) ] ||
  fail "keeper RSS $keeper_rss kB after the first reload, $now_keeper_rss kB after $reloads more"

echo "ok: $reloads reloads under load; wrk $(grep -o '[0-9]* requests in' "$tmp/wrk")," \
  "h2 TLS $(h2_count "$https" answered) answered on $(h2_count "$https" connections) connections" \
  "($(h2_count "$https" goaways) GOAWAYs, each slot drained at least $(h2_count "$https" min_drained) times)," \
  "h2c $(h2_count "$http" answered) on $(h2_count "$http" connections)" \
  "($(h2_count "$http" goaways) GOAWAYs, at least $(h2_count "$http" min_drained))," \
  "100 MiB download intact; keeper fds $keeper_fds, RSS $keeper_rss -> $now_keeper_rss kB;" \
  "serving process fds $serving_fds"
