#!/bin/bash
# SPDX-License-Identifier: MIT
# tap_scoped.sh BINARY: the byte tap is libmicrohttpd's alone. BINARY (the
# beneath executable) must export no function that libc also defines: a
# recv, send, sendmsg, sendfile64 or shutdown of its own would be every
# library's (the access log's writer, libcurl), as the tap once was. And
# its libmicrohttpd must call the tap: wire_recv ... wire_shutdown are in
# it, and no libmicrohttpd is loaded beside it.
set -eu
bin=$1
libc=$(ldd "$bin" | awk '$1 ~ /^libc\.so/ { print $3 }')
[ -r "$libc" ] || { echo "tap_scoped: no libc in ldd $bin" >&2; exit 1; }
funcs() { nm -D --defined-only "$1" | awk '$2 ~ /^[TWi]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
funcs "$bin" >"$tmp/bin"
funcs "$libc" >"$tmp/libc"
both=$(comm -12 "$tmp/bin" "$tmp/libc")
if [ -n "$both" ]; then
  echo "tap_scoped: $bin defines libc's $(tr '\n' ' ' <<<"$both")for the whole process" >&2
  exit 1
fi
for f in recv send sendmsg sendfile64 shutdown; do
  nm "$bin" | grep -q " T wire_$f\$" || {
    echo "tap_scoped: $bin has no wire_$f: libmicrohttpd does not call the tap" >&2
    exit 1
  }
done
if ldd "$bin" | grep -q libmicrohttpd; then
  echo "tap_scoped: $bin loads a shared libmicrohttpd, whose calls bypass the tap" >&2
  exit 1
fi
echo "tap_scoped: $bin defines no libc function; libmicrohttpd calls wire_*"
