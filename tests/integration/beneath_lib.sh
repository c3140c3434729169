# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# beneath_lib.sh - for the shell tests that start beneath themselves
# (reload_load.sh, h2_drain_linger.sh), sourced after they set $tmp (their
# directory; beneath's stderr goes to $tmp/err) and $pid (beneath's).
# shellcheck disable=SC2154 # $tmp and $pid are the sourcing test's

# fail MESSAGE: says it, and beneath's last 40 lines of stderr; exit 1
fail() {
  echo "FAIL: $*" >&2
  echo "--- server stderr (last 40 lines)" >&2
  tail -40 "$tmp/err" >&2 || true
  exit 1
}

# wait_for COUNT PATTERN SECONDS: until beneath's stderr has COUNT lines
# matching PATTERN (grep), or fail; fails at once if beneath exited
wait_for() {
  local n=$1 pat=$2 s=$3 i
  for ((i = 0; i < s * 20; i++)); do
    [ "$(grep -c -- "$pat" "$tmp/err" || true)" -ge "$n" ] && return 0
    kill -0 "$pid" 2>/dev/null || fail "beneath exited"
    sleep 0.05
  done
  fail "no $n lines '$pat' within $s s"
}
