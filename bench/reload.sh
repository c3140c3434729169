#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How long a reload takes, and what the processes hold: a SIGHUP starts a
# new serving process (a generation); the time measured is from the SIGHUP
# to the keeper's line that the new generation serves and the old one
# accepts no more. Then the memory (PSS and RSS, /proc/PID/smaps_rollup)
# of the keeper and of the serving process, idle.
#   bench/reload.sh [--beneath BIN] [--reloads N] [--sandbox on|strict|off]
# Prints "reload: median (min .. max) ms over N" and the memory lines.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../build/release/server/beneath
reloads=20
sandbox=on
while [ $# -gt 0 ]; do
  case $1 in
  --beneath) bin=$2; shift 2 ;;
  --reloads) reloads=$2; shift 2 ;;
  --sandbox) sandbox=$2; shift 2 ;;
  *) echo "usage: $0 [--beneath BIN] [--reloads N] [--sandbox MODE]" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-reload-XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

mkdir "$tmp/www"
echo index >"$tmp/www/index.html"
"$bin" --listen 127.0.0.1:0 --listen https://127.0.0.1:0 --tls-self-signed \
  --sandbox "$sandbox" --access-log off "$tmp/www" 2>"$tmp/err" &
pid=$!
for _ in $(seq 400); do
  [ "$(grep -c 'listening on' "$tmp/err" || true)" -ge 2 ] && break
  sleep 0.05
done
url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/err" | head -1)
[ -n "$url" ] || { echo "beneath did not start:"; cat "$tmp/err"; exit 1; } >&2

served() { grep -c 'SIGHUP: generation [0-9]* (pid [0-9]*) serving' "$tmp/err" || true; }
: >"$tmp/ms"
for ((i = 1; i <= reloads; i++)); do
  before=$(served)
  t0=$(date +%s%N)
  kill -HUP "$pid"
  while [ "$(served)" -le "$before" ]; do sleep 0.001; done
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000)) >>"$tmp/ms"
  curl -sf -o /dev/null "$url/" || { echo "GET / failed after reload $i" >&2; exit 1; }
  sleep 0.2
done
cat >"$tmp/report.awk" <<'EOF2'
{ a[++n] = $1 / 1000 }
END { printf "reload: %s ms over %d (SIGHUP to the new generation serving alone)\n", mmm(a, n, "%.1f"), n }
EOF2
awk -f "$here/lib/median.awk" -f "$tmp/report.awk" "$tmp/ms"
sleep 1
serving=$(awk '{ print $NF }' "/proc/$pid/task/$pid/children")
mem() { awk '/^(Pss|Rss):/ { printf "%s %.1f MB  ", $1, $2 / 1024 }' "/proc/$1/smaps_rollup"; }
echo "keeper (pid $pid): $(mem "$pid")"
echo "serving process (pid $serving): $(mem "$serving")"
