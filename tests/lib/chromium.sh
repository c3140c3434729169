# shellcheck shell=bash
# tests/lib/chromium.sh: what the headless Chromium tests share
# (tests/docs/chromium.sh, tests/integration/listing_chromium.sh); sourced,
# not run. The sourcing script sets bin (the beneath binary) and calls
#   chromium_setup NAME TOOL...  exit 77 (skipped) unless chromium and every
#                                TOOL are installed; then a temp dir, tmp
#                                (NAME-XXXXXX), removed on exit with the server
#   serve OPTION...              beneath --listen 127.0.0.1:0 OPTION..., its
#                                stderr in $tmp/err; sets pid and url
#   serve_https OPTION...        the same on https://127.0.0.1:0 with
#                                --tls-self-signed; url is https://...
#   chrome FLAG...               headless Chromium, a profile in tmp, its
#                                stderr added to $tmp/chromium.log
#   fail MESSAGE...              say FAIL with the server's stderr, exit 1
# Globals set here are read by the sourcing script and the other way round:
# shellcheck disable=SC2034,SC2154

# shellcheck source=tests/lib/serve.sh
. "$(dirname "${BASH_SOURCE[0]}")/serve.sh"

chromium_setup() {
  local name=$1
  shift
  serve_setup "$name" chromium "$@"
}

serve() { serve_on http 127.0.0.1:0 "$@"; }
serve_https() { serve_on https https://127.0.0.1:0 --tls-self-signed --state-dir "$tmp/state" "$@"; }

# serve_on SCHEME LISTEN OPTION...
serve_on() {
  local scheme=$1 listen=$2
  shift 2
  # emptied here, not by the background job's redirection: that one may
  # come after the loop below has read the last server's listening line
  : >"$tmp/err"
  "$bin" --listen "$listen" "$@" 2>>"$tmp/err" &
  pid=$!
  for _ in $(seq 200); do
    grep -q "listening on $scheme://" "$tmp/err" && break
    kill -0 "$pid" 2>/dev/null || fail "beneath exited"
    sleep 0.05
  done
  url=$(grep -o "$scheme://127\.0\.0\.1:[0-9]*" "$tmp/err" | head -1) || true
  [ -n "$url" ] || fail "no listening line"
}

chrome() {
  timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-dev-shm-usage --user-data-dir="$tmp/profile" "$@" 2>>"$tmp/chromium.log"
}
