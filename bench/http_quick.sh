#!/usr/bin/env bash
# A short wrk run against beneath serving a 1 KiB file, once per resolver
# backend (kernel, emulated; add lexical with BACKENDS). The server is pinned
# to CPU 0, wrk to CPU 1. Bounded: DURATION seconds per backend (default 5),
# CONNS connections (default 50), THREADS server threads (default 1).
# Usage: bench/http_quick.sh [path/to/beneath]   (default build/release)
# Figures from a busy machine are noise: rerun on a quiet one.
set -euo pipefail
cd "$(dirname "$0")/.."

conns=${CONNS:-50}
backends=${BACKENDS:-"kernel emulated"}
name=http_quick quick_tools=wrk
# shellcheck source=bench/lib/quick.sh
. bench/lib/quick.sh

# A docroot with the file three directories down, so the walk has work.
mkdir -p "$tmp/www/a/b/c"
head -c 1024 /dev/zero | tr '\0' 'x' >"$tmp/www/a/b/c/1k.txt"

printf '%-10s %12s %12s %10s\n' backend requests/s latency-avg errors
for backend in $backends; do
    : >"$tmp/err"
    taskset -c "$cpu_srv" "$bin" --root "$tmp/www" --listen 127.0.0.1:0 \
        --resolver "$backend" --threads "$threads" --access-log off \
        --max-connections-per-ip 0 2>"$tmp/err" &
    pid=$!
    wait_listening 'listening on http://' 100
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/err" | head -1)
    [ -n "$url" ] || { cat "$tmp/err" >&2; exit 1; }
    curl -sf -o /dev/null "$url/a/b/c/1k.txt" || { echo "http_quick: $backend: GET failed" >&2; exit 1; }
    out=$(taskset -c "$cpu_wrk" wrk -t1 -c"$conns" -d"${duration}s" "$url/a/b/c/1k.txt")
    rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
    lat=$(awk '/^ +Latency/ {print $2}' <<<"$out")
    errs=$(awk '/Non-2xx|Socket errors/ {e = e $0 "; "} END {print e ? e : "0"}' <<<"$out")
    printf '%-10s %12s %12s %10s\n' "$backend" "$rps" "$lat" "$errs"
    kill -TERM "$pid"
    wait "$pid" || true
    pid=
done
