# shellcheck shell=bash
# tests/lib/serve.sh: what the scripts that test beneath with real clients
# over http:// and https:// share (tests/integration/slashes.sh,
# cold_compress.sh, h2_post.sh, h2_nghttp.sh); sourced, not run. The
# sourcing script sets bin (the beneath binary) and calls
#   serve_setup NAME TOOL...  exit 77 (skipped) unless every TOOL is
#                             installed; then a temp dir, tmp
#                             (NAME-XXXXXX), removed on exit with the server
#   serve_both OPTION...      beneath on http://127.0.0.1:0 and
#                             https://127.0.0.1:0 (--tls-self-signed, its
#                             state in $tmp/state) with OPTION...; its
#                             stderr in $tmp/err; sets pid, http and https
#                             (base URLs) once every listening line is out
#   serve_stop                stop it (SIGTERM), wait
#   fail MESSAGE...           say FAIL with the server's stderr, exit 1
# Globals set here are read by the sourcing script and the other way round:
# shellcheck disable=SC2034,SC2154

serve_setup() {
  local name=$1 tool
  shift
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "skip: $tool not installed"; exit 77; }
  done
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/$name-XXXXXX")
  pid=
  trap serve_cleanup EXIT
}

serve_cleanup() {
  serve_stop
  rm -rf "$tmp"
}

fail() { echo "FAIL: $*" >&2; echo "--- server stderr" >&2; cat "$tmp/err" >&2 || true; exit 1; }

serve_both() {
  : >"$tmp/err" # here, not in the child: an earlier server's lines are gone
  "$bin" --listen 127.0.0.1:0 --listen https://127.0.0.1:0 --tls-self-signed \
    --state-dir "$tmp/state" "$@" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 200); do
    # the root's line comes after every listening line, whole
    grep -q '^beneath: root ' "$tmp/err" && break
    kill -0 "$pid" 2>/dev/null || fail "beneath exited"
    sleep 0.05
  done
  http=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/err" | head -1) || true
  https=$(grep -o 'https://127\.0\.0\.1:[0-9]*' "$tmp/err" | head -1) || true
  [ -n "$http" ] && [ -n "$https" ] || fail "no listening lines"
}

serve_stop() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  pid=
}
