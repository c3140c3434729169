#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sandbox-syscalls.sh - measure the system calls beneath's serving threads
# make, the source of server/process/sandbox_seccomp.c's allow-list.
#
# Runs the end-to-end tests of a build (ctest -R REGEX, default every e2e
# test) with the server binary replaced by a wrapper that runs it under
# `strace -f -D` (the server keeps its pid, so the tests' signals reach it),
# then counts, per system call, the calls made after the lock-down phase's
# signalfd (where the sandbox is raised), or after the sandbox's filter is
# loaded when it is on, in every server that got that far, and how many
# servers made it. Calls answered EPERM or ENOSYS are
# listed apart: with the sandbox on they are the ones it refused.
#   tools/sandbox-syscalls.sh [BUILD_DIR [CTEST_REGEX]]
# Writes BUILD_DIR/sandbox-syscalls/{counts.txt,refused.txt}; the binary is
# restored on exit. Slow (strace): a few minutes for the e2e tests.
set -euo pipefail
build=$(cd "${1:-build/release}" && pwd)
regex=${2:-e2e|tls_e2e}
bin=$build/server/beneath
out=$build/sandbox-syscalls
command -v strace >/dev/null || { echo "strace is not installed" >&2; exit 1; }
if [ ! -x "$bin" ] || grep -q 'strace -D' "$bin" 2>/dev/null; then
  echo "$bin: missing, or a wrapper left by an earlier run" >&2
  exit 1
fi

rm -rf "$out"
mkdir -p "$out/traces"
mv "$bin" "$bin.real"
trap 'mv -f "$bin.real" "$bin"' EXIT
cat >"$bin" <<EOF
#!/bin/sh
exec strace -D -f -qq -s 0 -o "$out/traces/t.\$\$" "$bin.real" "\$@"
EOF
chmod +x "$bin"

(cd "$build" && ctest -R "$regex" -E bench -j"$(nproc)" >"$out/ctest.log" 2>&1) ||
  echo "sandbox-syscalls: some tests failed under strace (timing); see $out/ctest.log" >&2

# Per trace: count from the main thread's signalfd4 (lock-down done); when a
# seccomp filter is loaded after it, from that load on (the sandbox's own
# set-up is not what the serving threads need).
awk -v refused="$out/refused.txt" '
function flush(   k) {
  for (k in pend) { calls[k] += pend[k]; in_servers[k]++ }
  for (k in pbad) bad[k] += pbad[k]
  delete pend; delete pbad
}
FNR == 1 { if (NR > 1) flush(); main = ""; past = 0 }
{
  if (!match($0, /^[0-9]+ +[a-z_0-9]+\(/)) next
  split($0, f, / +/); pid = f[1]
  name = substr($0, RSTART, RLENGTH - 1); sub(/^[0-9]+ +/, "", name)
  if (main == "") main = pid
  if (!past) { if (pid == main && name == "signalfd4") { past = 1; servers++ } next }
  if (pid == main && name == "seccomp" && $0 ~ /SECCOMP_SET_MODE_FILTER/) {
    delete pend; delete pbad; next
  }
  pend[name]++
  if ($0 ~ /= -1 (EPERM|ENOSYS) /) pbad[name]++
}
END {
  flush()
  printf "%d servers past the sandbox point\n", servers
  printf "%-20s %10s %8s\n", "call", "calls", "servers"
  for (n in calls) printf "%-20s %10d %8d\n", n, calls[n], in_servers[n] | "sort -k2,2nr"
  close("sort -k2,2nr")
  for (n in bad) printf "%-20s %10d\n", n, bad[n] > refused
}' "$out"/traces/t.* >"$out/counts.txt"
touch "$out/refused.txt"
cat "$out/counts.txt"
echo "answered EPERM/ENOSYS (refused, or absent):"
cat "$out/refused.txt"
