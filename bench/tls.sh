#!/usr/bin/env bash
# HTTP vs HTTPS, and the cost of content ETags.
#
# 1. wrk against one beneath serving both a plain and an https:// listener
#    (--tls-self-signed): requests/s and MB/s for a 1 KiB and a 10 MB file.
#    Plain HTTP sends the body with sendfile; HTTPS reads it with pread in
#    64 KiB blocks and encrypts it with OpenSSL (the TLS front's byte tap).
# 2. A large file (LARGE_MB, default 200) on a fresh server: time to first
#    byte and total of the first GET (whose content hash is queued to the
#    background thread, so it is answered with the mtime ETag), how long
#    until the content ETag is ready, and the same GET afterwards.
#
# The server is pinned to CPU 0 and wrk to CPU 1. Bounded: DURATION seconds
# per wrk run (default 5), CONNS connections (default 20), THREADS server
# threads (default 1).
# Usage: bench/tls.sh [path/to/beneath]   (default build/release)
# Figures from a busy machine are noise: rerun on a quiet one.
set -euo pipefail
cd "$(dirname "$0")/.."

conns=${CONNS:-20}
large_mb=${LARGE_MB:-200}
name=tls.sh quick_tools="wrk curl"
# shellcheck source=bench/lib/quick.sh
. bench/lib/quick.sh

mkdir -p "$tmp/www"
head -c 1024 /dev/zero | tr '\0' 'x' >"$tmp/www/1k.txt"
head -c $((10 * 1000 * 1000)) /dev/urandom >"$tmp/www/10m.bin"
head -c $((large_mb * 1024 * 1024)) /dev/urandom >"$tmp/www/large.bin"

# start ARGS...: run beneath on an http and an https listener; sets $pid,
# $http and $https (base URLs).
start() {
    : >"$tmp/err"
    taskset -c "$cpu_srv" "$bin" --root "$tmp/www" --listen 127.0.0.1:0 \
        --listen https://127.0.0.1:0 --tls-self-signed --state-dir "$tmp/state" \
        --threads "$threads" \
        --access-log off --max-connections-per-ip 0 "$@" 2>"$tmp/err" &
    pid=$!
    wait_listening 'listening on https://' 200
    http=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/err" | head -1)
    https=$(grep -o 'https://127\.0\.0\.1:[0-9]*' "$tmp/err" | head -1)
    [ -n "$http" ] && [ -n "$https" ] || { cat "$tmp/err" >&2; exit 1; }
}

echo "== throughput ($conns connections, ${duration}s each, $threads server thread(s))"
start
printf '%-6s %-8s %12s %12s %12s %s\n' proto file requests/s MB/s latency errors
for file in 1k.txt 10m.bin; do
    for base in "$http" "$https"; do
        proto=${base%%:*}
        curl -skf -o /dev/null "$base/$file" || { echo "tls.sh: GET $base/$file failed" >&2; exit 1; }
        out=$(taskset -c "$cpu_wrk" wrk -t1 -c"$conns" -d"${duration}s" "$base/$file")
        rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
        tps=$(awk '/^Transfer\/sec/ {print $2}' <<<"$out")
        lat=$(awk '/^ +Latency/ {print $2}' <<<"$out")
        errs=$(awk '/Non-2xx|Socket errors/ {e = e $0 "; "} END {print e ? e : "0"}' <<<"$out")
        # wrk prints Transfer/sec as 12.34MB or 567.89KB or 1.23GB
        mbs=$(awk -v t="$tps" 'BEGIN {
            v = t + 0; u = substr(t, length(t) - 1);
            if (u == "GB") v *= 1024; else if (u == "KB") v /= 1024;
            else if (u !~ /MB/) v /= 1048576;
            printf "%.1f", v }')
        printf '%-6s %-8s %12s %12s %12s %s\n' "$proto" "$file" "$rps" "$mbs" "$lat" "$errs"
    done
done
stop

# ttfb URL [headers...]: "time-to-first-byte total" in ms, and the ETag.
ttfb() {
    local url=$1
    shift
    curl -sk -o /dev/null -D "$tmp/h" -w '%{time_starttransfer} %{time_total}\n' \
        "$@" "$url" | awk '{printf "%.1f %.1f", $1 * 1000, $2 * 1000}'
    printf ' %s\n' "$(tr -d '\r' <"$tmp/h" | awk -F': ' 'tolower($1) == "etag" {print $2}')"
}

echo
echo "== first request of a ${large_mb} MiB file vs later ones (ms)"
printf '%-6s %-24s %10s %10s %s\n' proto request ttfb total etag
for base_kind in http https; do
    for mode in content mtime; do
        start --etag "$mode"
        base=$([ "$base_kind" = http ] && echo "$http" || echo "$https")
        # drop the file from the page cache, so "first" includes the disk
        # (root only; harmless otherwise)
        sync
        echo 1 >/proc/sys/vm/drop_caches 2>/dev/null || true
        t0=$(date +%s%N)
        read -r a b e <<<"$(ttfb "$base/large.bin")"
        printf '%-6s %-24s %10s %10s %s\n' "$base_kind" "first, etag $mode" "$a" "$b" "$e"
        if [ "$mode" = content ]; then
            # wait (bounded) until the background hash gives the content ETag
            ready=
            for _ in $(seq 600); do
                e=$(curl -sk -I "$base/large.bin" | tr -d '\r' | awk -F': ' 'tolower($1) == "etag" {print $2}')
                if [ "${#e}" -eq 24 ]; then ready=$((($(date +%s%N) - t0) / 1000000)); break; fi
                sleep 0.1
            done
            printf '%-6s %-24s %10s %10s %s\n' "$base_kind" "content ETag ready after" "${ready:-timeout}" "" "$e"
        fi
        for i in 1 2 3; do
            read -r a b e <<<"$(ttfb "$base/large.bin")"
            printf '%-6s %-24s %10s %10s %s\n' "$base_kind" "later #$i, etag $mode" "$a" "$b" "$e"
        done
        stop
    done
done
