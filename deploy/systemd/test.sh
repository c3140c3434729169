#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test.sh - the package as users run it: a minimal Debian 12 with systemd as
# PID 1 (a debootstrapped root, cached: ../debian-root.sh; imported into podman
# under a name of this run's own), the .deb that cpack makes installed with
# apt-get (its postinst creates the user beneath and starts the service), and
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
#    first connection, which serves with the kernel backend and both walls;
#  - ACME under the shipped unit, with Pebble and its mock DNS run from the
#    host's packages inside the container's network namespace (nsenter: all
#    of it on the container's 127.0.0.1, Pebble validating on its ports 80
#    and 443): with a drop-in that takes StateDirectory= away, --acme-dir is
#    read-only and the start fails at once with a line naming the setting,
#    and is not restarted; with the shipped unit, "acme = a.test" and
#    listeners on 80 and https:// 443 in the file, "systemctl start" gets a
#    certificate that openssl s_client verifies against Pebble's root on
#    port 443, both processes run without any capability, both walls are
#    up, and "systemctl restart" serves the same certificate from
#    /var/lib/beneath/acme without ordering again.
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
pebble_pids=()
cleanup() {
  [ ${#pebble_pids[@]} -eq 0 ] || pebble_stop
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
# shellcheck source=deploy/pebble-netns.sh
. "$src/deploy/pebble-netns.sh"
podman_env "$tmp" >"$tmp/why" || skip "$(cat "$tmp/why")"
for tool in pebble pebble-challtestsrv nsenter openssl; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/deps.sh test installs it)"
done

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
# CAP_SYS_ADMIN for the container's systemd: without it, it cannot make the
# unit's mount namespace and drops ProtectSystem=, ReadOnlyPaths= and the
# rest without a word (best effort), so what the unit makes read-only or
# writable would go untested
podman run -d --name "$id" --systemd=always --cap-add SYS_ADMIN "$tag" /sbin/init \
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
# apt, as users install it (the dependencies are in the root already:
# nothing is fetched)
ct env DEBIAN_FRONTEND=noninteractive apt-get install -y -q /tmp/beneath.deb \
  </dev/null >"$tmp/dpkg.log" 2>&1 ||
  fail "apt-get install: $(tail -n 20 "$tmp/dpkg.log")"
ct getent passwd beneath >/dev/null || fail "the package made no user beneath"
startup "apt-get install, the service the postinst started"

# the planted symlink: refused by the kernel's RESOLVE_BENEATH, logged
ct sh -c 'echo served >/var/www/html/index.html && ln -s /etc/passwd /var/www/html/leak'
[ "$(ct curl -s http://127.0.0.1:8080/)" = served ] || fail "GET / did not serve index.html"
mark
[ "$(get http://127.0.0.1:8080/leak)" = 403 ] || fail "GET /leak (-> /etc/passwd) was not 403"
wait_line '"GET /leak HTTP/1.1" 403 .* resolver=kernel errno=EXDEV( symlink=.*)?$' ||
  fail "no access-log line with errno=EXDEV for /leak: $(since_mark)"
echo "ok: a planted symlink to /etc/passwd: 403, logged with errno=EXDEV"

# reload: /bin/sh's kill, after --check of the file
mark
ct systemctl reload beneath || fail "systemctl reload failed"
wait_line '^beneath: SIGHUP: ' || fail "reload: no SIGHUP line"
echo "ok: systemctl reload without procps: $(since_mark | grep -m1 '^beneath: SIGHUP')"
# a deploy by rename: a new tree moved over the root, then reload: the new
# serving process serves it, with both walls (made for the new tree)
ct sh -c 'mkdir /var/www/html.new && cp -a /var/www/html/. /var/www/html.new/ && echo v2 >/var/www/html.new/v2.txt && mv -T /var/www/html /var/www/html.old && mv -T /var/www/html.new /var/www/html'
mark
ct systemctl reload beneath || fail "systemctl reload after a rename deploy failed"
wait_line '^beneath: SIGHUP: generation [0-9]+ \(pid [0-9]+\) serving' ||
  fail "rename deploy: no new generation serving: $(since_mark)"
[ "$(ct curl -s http://127.0.0.1:8080/v2.txt)" = v2 ] ||
  fail "rename deploy: the new tree is not served after the reload"
since_mark | grep -qE '^beneath: SIGHUP: sandbox: landlock ABI [0-9]+ \(.*\), seccomp allow-list \([0-9]+ calls, EPERM for the rest\)$' ||
  fail "rename deploy: the new generation has not both walls: $(since_mark | grep sandbox)"
echo "ok: a deploy by rename, then systemctl reload: the new tree served, both walls: $(since_mark | grep -m1 'serving;')"
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

# --- ACME under the shipped unit --------------------------------------------
ct systemctl stop beneath.socket beneath.service
cpid=$(podman inspect -f '{{.State.Pid}}' "$id")
[ "${cpid:-0}" != 0 ] || fail "no PID for the container"
# innet CMD...: CMD run from the host in the container's network namespace
innet() { nsenter -t "$cpid" -n "$@"; }
pebble_api_cert
pebble_netns "$cpid" 80 443
for _ in $(seq 200); do
  innet curl -sf --cacert "$tmp/api.pem" -o "$tmp/root.pem" \
    https://127.0.0.1:15000/roots/0 && break
  sleep 0.1
done
[ -s "$tmp/root.pem" ] || fail "Pebble did not start: $(tail -n 5 "$tmp/pebble.log")"
echo "ok: Pebble and its DNS in the container's network namespace"
podman cp "$tmp/api.pem" "$id:/etc/beneath/pebble-api.pem"
ct chmod 644 /etc/beneath/pebble-api.pem
ct sh -c 'sed -i "/^listen *=/d" /etc/beneath/beneath.conf && cat >>/etc/beneath/beneath.conf <<EOF
listen = 0.0.0.0:80
listen = https://0.0.0.0:443
acme = a.test
acme-ca = https://127.0.0.1:14000/dir
acme-ca-root = /etc/beneath/pebble-api.pem
EOF'
# verified [LABEL]: the certificate port 443 serves for a.test verifies
# against Pebble's root; its SHA-256 fingerprint into $tmp/LABEL.fp
verified() {
  innet openssl s_client -connect 127.0.0.1:443 -servername a.test \
    -verify_hostname a.test -CAfile "$tmp/root.pem" -verify_return_error \
    </dev/null >"$tmp/s_client.out" 2>&1 || return 1
  openssl x509 -noout -fingerprint -sha256 <"$tmp/s_client.out" >"$tmp/$1.fp"
}

# a drop-in without StateDirectory= (as the unit was): a clear line, no loop
ct sh -c 'mkdir -p /etc/systemd/system/beneath.service.d && printf "[Service]\nStateDirectory=\n" >/etc/systemd/system/beneath.service.d/nostate.conf && systemctl daemon-reload'
mark
ct systemctl start beneath >/dev/null 2>&1 && fail "--acme with a read-only /var/lib: the start succeeded"
wait_line 'acme-dir /var/lib/beneath/acme: .* read-only file system.*StateDirectory=beneath' ||
  fail "no line saying --acme-dir is read-only and what to change: $(since_mark)"
since_mark | grep -q 'listening on' && fail "it listened before saying --acme-dir is read-only"
sleep 1
[ "$(ct systemctl show -p NRestarts --value beneath)" = 0 ] ||
  fail "restarted $(ct systemctl show -p NRestarts --value beneath) times after a configuration error"
[ "$(ct systemctl show -p ExecMainStatus --value beneath)" = 2 ] ||
  fail "exit status $(ct systemctl show -p ExecMainStatus --value beneath), not 2"
echo "ok: no StateDirectory=: exit 2, not restarted: $(since_mark | grep -m1 'acme-dir' | cut -c1-120)..."
ct sh -c 'rm -r /etc/systemd/system/beneath.service.d && systemctl daemon-reload && systemctl reset-failed beneath'

# the shipped unit: a certificate from Pebble on 443
mark
ct systemctl start beneath || fail "systemctl start with --acme"
startup "--acme, ports 80 and 443"
wait_line '^beneath: acme: a.test: certificate issued ' ||
  fail "no certificate issued: $(since_mark | grep acme)"
ok=
for _ in $(seq 50); do
  verified first && ok=1 && break
  sleep 0.2
done
[ -n "$ok" ] || fail "port 443 does not serve a certificate Pebble's root verifies: $(tail -n 5 "$tmp/s_client.out")"
since_mark | grep -q '^beneath: listening on https://0.0.0.0:443$' ||
  fail "not listening on 443: $(since_mark | grep listening)"
pid=$(ct systemctl show -p MainPID --value beneath.service)
child=$(ct sh -c "grep -l '^PPid:[[:space:]]*$pid\$' /proc/[0-9]*/status 2>/dev/null; true" | head -n 1)
[ -n "$child" ] || fail "no serving process under the keeper $pid"
for st in "/proc/$pid/status" "$child"; do
  caps=$(ct awk '/^Cap(Inh|Prm|Eff|Amb):/ { printf "%s ", $2 }' "$st")
  [ "$caps" = "0000000000000000 0000000000000000 0000000000000000 0000000000000000 " ] ||
    fail "$st: capabilities kept after binding (CapInh CapPrm CapEff CapAmb): $caps"
done
[ "$(ct stat -c %U:%a /var/lib/beneath/acme/certs/a.test/cert.pem)" = beneath:644 ] ||
  fail "the certificate is not in /var/lib/beneath/acme: $(ct ls -lR /var/lib/beneath 2>&1 | head)"
[ "$(ct systemctl show -p NRestarts --value beneath)" = 0 ] || fail "the service restarted"
echo "ok: --acme under the shipped unit: $(since_mark | grep -m1 'acme: a.test: certificate obtained'); 443 verifies ($(cut -c1-40 "$tmp/first.fp")...), keeper and serving process without capabilities"

# a restart serves the stored certificate, and orders nothing
mark
ct systemctl restart beneath || fail "systemctl restart with --acme"
startup "--acme, after systemctl restart"
wait_line '^beneath: acme: a.test: certificate from --acme-dir ' ||
  fail "the restart did not take the stored certificate: $(since_mark | grep acme)"
verified again || fail "after the restart, 443 does not verify: $(tail -n 5 "$tmp/s_client.out")"
cmp -s "$tmp/first.fp" "$tmp/again.fp" ||
  fail "another certificate after the restart: $(cat "$tmp/first.fp" "$tmp/again.fp")"
since_mark | grep -q 'acme: a.test: ordering' && fail "the restart ordered again"
echo "ok: systemctl restart: $(since_mark | grep -m1 'certificate from --acme-dir'), the same certificate"
echo "systemd: all passed in $(($(date +%s) - t0)) s"
