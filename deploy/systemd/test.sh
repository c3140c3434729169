#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test.sh - the package as users run it: a minimal Debian 12 with systemd as
# PID 1 (a debootstrapped root, cached: ../debian-root.sh; imported into podman
# under a name of this run's own), the .deb that cpack makes installed with
# dpkg (its postinst creates the user beneath and starts the service), and
# from the journal and curl inside the container:
#  - the shipped unit's start-up lines: "resolver kernel (auto: openat2
#    available)", Landlock and the seccomp allow-list both up, as the user
#    beneath;
#  - a planted symlink to /etc/passwd answers 403, and its access-log line
#    (the journal) names EXDEV;
#  - "systemctl reload" works on a system without procps (no /bin/kill), and
#    a reload of a broken configuration fails visibly (systemctl's status),
#    the server keeping the old one and serving on;
#  - a drop-in with DynamicUser=yes: the start-up line says that systemd's
#    RestrictSUIDSGID= refused openat2, not the kernel, and how to undo it;
#  - socket activation: beneath.socket on port 80 starts the service at the
#    first connection, which serves with the kernel backend and both walls.
# Everything made here is removed on exit (the cached root stays). Exits 77
# only where podman cannot run containers (not root, not installed).
#   test.sh BUILD_DIR VERSION
set -euo pipefail
build=$1 version=$2
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
id=beneath-systemd-$(basename "$src")-$$-$RANDOM
tag=localhost/$id:latest
tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-systemd-XXXXXX")
started=
cleanup() {
  if [ -n "$started" ]; then
    podman rm -f -t 2 "$id" >/dev/null 2>&1 || true
    podman rmi -f "$tag" >/dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  if [ -n "$started" ]; then
    echo "--- journalctl -u beneath (last 30 lines)" >&2
    podman exec "$id" journalctl -u beneath -o cat --no-pager 2>&1 |
      tail -n 30 >&2 || true
  fi
  exit 1
}
skip() { echo "SKIP: $*"; exit 77; }
t0=$(date +%s)
# shellcheck source=deploy/podman-env.sh
. "$src/deploy/podman-env.sh"
podman_env "$tmp" >"$tmp/why" || skip "$(cat "$tmp/why")"

(cd "$build" && cpack -G DEB -B "$tmp/out") >"$tmp/cpack.log" 2>&1 ||
  fail "cpack: $(tail -n 20 "$tmp/cpack.log")"
deb=$tmp/out/beneath_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || fail "no $deb"
# The package's own dependencies go into the root, so dpkg -i needs no
# network inside the container.
mapfile -t deps < <(dpkg-deb -f "$deb" Depends | tr ',' '\n' |
  sed 's/|.*//; s/(.*)//; s/ //g' | grep .)
root=$("$here/../debian-root.sh" systemd "${deps[@]}") || fail "no Debian root"
podman import "$root" "$tag" >"$tmp/import.log" 2>&1 ||
  fail "podman import: $(cat "$tmp/import.log")"
started=1
podman run -d --name "$id" --systemd=always "$tag" /sbin/init \
  >"$tmp/run.log" 2>&1 || fail "podman run: $(cat "$tmp/run.log")"
ct() { podman exec "$id" "$@"; }
# up to 180 s in all for systemd's bus, then for the boot to finish
deadline=$(($(date +%s) + 180))
state=
while [ "$(date +%s)" -lt "$deadline" ]; do
  state=$(timeout 60 podman exec "$id" systemctl is-system-running --wait 2>&1) || true
  case "$state" in
  *"Failed to connect to bus"* | "") sleep 0.2 ;;
  *) break ;;
  esac
done
case "$state" in
running | degraded) ;;
*) fail "systemd in the container: '$state'" ;;
esac
echo "ok: Debian 12 with systemd as PID 1 ($state) in $(($(date +%s) - t0)) s, root $(basename "$root")"
ct sh -c '[ ! -e /bin/kill ] && [ ! -e /usr/bin/kill ]' ||
  fail "the root has a kill program: not the minimal system this test is about"

# journal cursors: the lines of one step
mark() { cursor=$(ct journalctl -n 0 --show-cursor -q | sed -n 's/^-- cursor: //p'); }
since_mark() { ct journalctl -u beneath -o cat --no-pager --after-cursor "$cursor"; }
# wait_line REGEX: up to 20 s for a journal line of this step
wait_line() {
  for _ in $(seq 100); do
    since_mark | grep -qE "$1" && return 0
    sleep 0.2
  done
  return 1
}
get() { ct curl -s -o /dev/null -w '%{http_code}' "$1"; }

# startup WHAT: the start-up lines of this step: the kernel backend and
# both walls, run as the user beneath
startup() {
  wait_line '^beneath: confine ' || fail "$1: no start-up lines"
  local lines pid
  lines=$(since_mark)
  grep -qx 'beneath: resolver kernel (auto: openat2 available)' <<<"$lines" ||
    fail "$1: not the kernel backend: $(grep '^beneath: resolver' <<<"$lines")"
  grep -qE '^beneath: sandbox: landlock ABI [0-9]+ \(.*\), seccomp allow-list \([0-9]+ calls, EPERM for the rest\)$' <<<"$lines" ||
    fail "$1: not both walls: $(grep '^beneath: sandbox' <<<"$lines")"
  pid=$(ct systemctl show -p MainPID --value beneath.service)
  [ "$(ct awk '/^Uid:/ { print $2 }' "/proc/$pid/status")" = "$(ct id -u beneath)" ] ||
    fail "$1: the service does not run as the user beneath"
  echo "ok: $1: $(grep '^beneath: resolver' <<<"$lines"); $(grep '^beneath: sandbox' <<<"$lines" | cut -c1-60)..."
}

mark
podman cp "$deb" "$id:/tmp/beneath.deb"
ct dpkg -i /tmp/beneath.deb >"$tmp/dpkg.log" 2>&1 ||
  fail "dpkg -i: $(tail -n 20 "$tmp/dpkg.log")"
ct getent passwd beneath >/dev/null || fail "the package made no user beneath"
startup "dpkg -i, the service the postinst started"

# the planted symlink: refused by the kernel's RESOLVE_BENEATH, logged
ct sh -c 'echo served >/var/www/html/index.html && ln -s /etc/passwd /var/www/html/leak'
[ "$(ct curl -s http://127.0.0.1:8080/)" = served ] || fail "GET / did not serve index.html"
mark
[ "$(get http://127.0.0.1:8080/leak)" = 403 ] || fail "GET /leak (-> /etc/passwd) was not 403"
wait_line '"GET /leak HTTP/1.1" 403 .* resolver=kernel errno=EXDEV$' ||
  fail "no access-log line with errno=EXDEV for /leak: $(since_mark)"
echo "ok: a planted symlink to /etc/passwd: 403, logged with errno=EXDEV"

# reload: /bin/sh's kill, after --check of the file
mark
ct systemctl reload beneath || fail "systemctl reload failed"
wait_line '^beneath: SIGHUP: ' || fail "reload: no SIGHUP line"
echo "ok: systemctl reload without procps: $(since_mark | grep -m1 '^beneath: SIGHUP')"
ct sh -c 'cp /etc/beneath/beneath.conf /tmp/good.conf && echo "no-such-setting = 1" >>/etc/beneath/beneath.conf'
mark
if ct systemctl reload beneath >"$tmp/reload.log" 2>&1; then
  fail "systemctl reload of a broken configuration reported success"
fi
ct systemctl is-active --quiet beneath || fail "a failed reload stopped the service"
[ "$(ct curl -s http://127.0.0.1:8080/)" = served ] || fail "not serving after a failed reload"
wait_line 'beneath.conf:[0-9]+: .*no-such-setting' ||
  fail "the failed reload does not name the file and line: $(since_mark)"
echo "ok: a reload of a broken configuration fails ($(head -n 1 "$tmp/reload.log")), the server serves on: $(since_mark | grep -m1 'no-such-setting')"
ct cp /tmp/good.conf /etc/beneath/beneath.conf

# a drop-in with DynamicUser=yes: the line says who refused openat2
ct sh -c 'mkdir -p /etc/systemd/system/beneath.service.d && printf "[Service]\nDynamicUser=yes\n" >/etc/systemd/system/beneath.service.d/dynamic.conf && systemctl daemon-reload'
mark
ct systemctl restart beneath || fail "restart with DynamicUser=yes"
wait_line '^beneath: confine ' || fail "DynamicUser=yes: no start-up lines"
want="beneath: resolver emulated (auto: openat2 refused with ENOSYS by systemd's RestrictSUIDSGID= (which DynamicUser=yes implies), not by the kernel: DynamicUser=no, a system User= and RestrictSUIDSGID=no in a drop-in (systemctl edit) turn the kernel backend back on, as the packaged beneath.service has them)"
since_mark | grep -qF "$want" ||
  fail "DynamicUser=yes: the line does not say RestrictSUIDSGID= refused openat2: $(since_mark | grep '^beneath: resolver')"
echo "ok: DynamicUser=yes: $(since_mark | grep -m1 '^beneath: resolver' | cut -c1-110)..."
ct sh -c 'rm -r /etc/systemd/system/beneath.service.d && systemctl daemon-reload'

# socket activation: the first connection to port 80 starts the service
ct systemctl stop beneath.service
mark
ct systemctl start beneath.socket || fail "systemctl start beneath.socket"
[ "$(ct curl -s http://127.0.0.1:80/)" = served ] || fail "GET / on the socket (port 80)"
startup "socket activation (port 80)"
since_mark | grep -q '^beneath: listening on http://.*:80$' ||
  fail "socket activation: not listening on the passed socket: $(since_mark | grep listening)"
echo "ok: socket activation: $(since_mark | grep -m1 '^beneath: listening')"
echo "systemd: all passed in $(($(date +%s) - t0)) s"
