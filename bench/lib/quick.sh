# bench/lib/quick.sh: the set-up bench/http_quick.sh and bench/tls.sh share;
# sourced from the source tree's top, not run. Before sourcing, set
#   name         the name messages start with
#   quick_tools  the programs it needs (checked in this order)
# It reads the script's $1 (the beneath binary, default build/release) and
# DURATION and THREADS, and sets bin, duration, threads, cpu_srv (0),
# cpu_wrk (1 when there is a second CPU), tmp (removed on exit) and pid (the
# server, stopped on exit: see stop).
# shellcheck shell=bash
# Globals set here are read by the sourcing script:
# shellcheck disable=SC2034,SC2154

bin=${1:-build/release/server/beneath}
duration=${DURATION:-5}
threads=${THREADS:-1}

for tool in $quick_tools; do
    command -v "$tool" >/dev/null || { echo "$name: $tool not installed" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "$name: no $bin (build the release preset)" >&2; exit 1; }
ncpu=$(nproc)
cpu_srv=0
cpu_wrk=$((ncpu > 1 ? 1 : 0))

tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-bench-XXXXXX")
pid=
# stop: TERM the server started last and wait for it
stop() {
    if [ -n "$pid" ]; then
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    pid=
}
cleanup() {
    stop
    rm -rf "$tmp"
}
trap cleanup EXIT

# wait_listening PATTERN TRIES: wait up to TRIES x 50 ms for PATTERN (a
# listening line) in the server's stderr, $tmp/err
wait_listening() {
    for _ in $(seq "$2"); do
        grep -q "$1" "$tmp/err" && break
        sleep 0.05
    done
}
