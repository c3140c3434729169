#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test-deb.sh - "cpack -G DEB" makes beneath_VERSION_ARCH.deb with the
# shared-library dependencies, the configuration as a conffile and the
# expected files; then, as root on a Debian system, apt installs it, the
# installed binary serves with the installed example configuration (systemd
# need not run: the binary is started by hand), and apt removes and purges it
# leaving nothing behind. Without root (or apt) only the package is checked,
# and the test is reported as skipped.
#   test-deb.sh BUILD_DIR VERSION
set -euo pipefail
build=$1 version=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-deb-XXXXXX")
pid= installed=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  [ -n "$installed" ] && rm -f "/var/www/html/$installed"
  if [ -n "$installed" ] && dpkg-query -W beneath >/dev/null 2>&1; then
    apt-get purge -y -q beneath >/dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=deploy/listen-url.sh
. "$(dirname "${BASH_SOURCE[0]}")/listen-url.sh"

(cd "$build" && cpack -G DEB -B "$tmp/out" >"$tmp/cpack.log" 2>&1) ||
  fail "cpack: $(cat "$tmp/cpack.log")"
arch=$(dpkg --print-architecture)
deb=$tmp/out/beneath_${version}_${arch}.deb
[ -f "$deb" ] || fail "no $deb: $(ls "$tmp/out")"
info=$(dpkg-deb -I "$deb")
# (libmicrohttpd is linked in from its static archive, its socket calls
# through the byte tap; GnuTLS is its HTTPS code's: beneath itself speaks
# TLS with OpenSSL)
for dep in libc6 libgnutls30 libssl3; do
  grep -q "^ Depends:.*\b$dep\b" <<<"$info" || fail "Depends lacks $dep: $info"
done
! grep -q "^ Depends:.*\blibmicrohttpd" <<<"$info" ||
  fail "Depends names libmicrohttpd, whose shared library would bypass the tap: $info"
[ "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles)" = /etc/beneath/beneath.conf ] ||
  fail "conffiles is not /etc/beneath/beneath.conf"
files=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/beneath ./usr/bin/beneath-precompress ./usr/bin/beneath-resolve ./etc/beneath/beneath.conf \
  ./usr/lib/systemd/system/beneath.service ./usr/lib/systemd/system/beneath.socket \
  ./usr/lib/sysusers.d/beneath.conf \
  ./usr/share/man/man1/beneath.1.gz ./usr/share/man/man1/beneath-resolve.1.gz \
  ./usr/share/man/man1/beneath-precompress.1.gz ./usr/share/doc/beneath/copyright \
  ./usr/share/doc/beneath/changelog.gz ./usr/share/doc/beneath/README.md \
  ./usr/share/doc/beneath/docs/acme.md ./usr/share/doc/beneath/docs/tls.md; do
  grep -qx -- "$f" <<<"$files" || fail "$f is not in the package"
done
dpkg-deb -x "$deb" "$tmp/x"
# the man page names the documentation where the package puts it
named=$(MANWIDTH=400 man -l "$tmp/x/usr/share/man/man1/beneath.1.gz" 2>/dev/null |
  grep -oE '/usr/share/doc/beneath/[A-Za-z0-9./_-]*[A-Za-z0-9/_-]' | sort -u)
grep -qx /usr/share/doc/beneath/docs/acme.md <<<"$named" ||
  fail "beneath.1 does not name /usr/share/doc/beneath/docs/acme.md: $named"
while read -r f; do
  [ -e "$tmp/x$f" ] || fail "beneath.1 names $f, which the package does not hold"
done <<<"$named"
# the changelog's newest entry is this version; the copyright is LICENSE's
gunzip -c "$tmp/x/usr/share/doc/beneath/changelog.gz" >"$tmp/changelog"
[ "$(dpkg-parsechangelog -l "$tmp/changelog" -S Version)" = "$version" ] ||
  fail "changelog.gz's newest entry is not $version: $(head -n 1 "$tmp/changelog")"
grep -q '^License: Expat$' "$tmp/x/usr/share/doc/beneath/copyright" ||
  fail "copyright has no License: Expat"
grep -qx 'ExecStart=/usr/bin/beneath --config /etc/beneath/beneath.conf' \
  "$tmp/x/usr/lib/systemd/system/beneath.service" || fail "ExecStart paths"
echo "ok: $(basename "$deb"): $(grep '^ Depends:' <<<"$info")"

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "SKIP: apt install/remove needs root and apt; the package itself passed"
  exit 77
fi
if dpkg-query -W -f='${Status}' beneath 2>/dev/null | grep -q installed; then
  echo "SKIP: a beneath package is installed already; not replacing it"
  exit 77
fi

export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q -o DPkg::Lock::Timeout=120 "$deb" </dev/null \
  >"$tmp/install.log" 2>&1 || fail "apt install: $(tail -n 20 "$tmp/install.log")"
installed=beneath-deb-test-$$.html
echo "served from the package" >"/var/www/html/$installed"
[ -x /usr/bin/beneath ] || fail "no /usr/bin/beneath after install"
getent passwd beneath >/dev/null || fail "no system user beneath after install"
echo "ok: apt install ./$(basename "$deb"), user $(getent passwd beneath)"

/usr/bin/beneath --config /etc/beneath/beneath.conf --listen 127.0.0.1:0 \
  2>"$tmp/err" >/dev/null </dev/null &
pid=$!
url=$(listen_url "$tmp/err")
[ -n "$url" ] || fail "installed server: $(cat "$tmp/err")"
grep -q "^beneath: root /var/www/html" "$tmp/err" || fail "root: $(cat "$tmp/err")"
[ "$(curl -fsS "$url/$installed")" = "served from the package" ] ||
  fail "the installed server did not serve /var/www/html/$installed"
/usr/bin/beneath --probe "$url/$installed" >/dev/null || fail "probe"
kill "$pid"
wait "$pid" || fail "the installed server did not stop cleanly"
pid=
echo "ok: /usr/bin/beneath serves /var/www/html with /etc/beneath/beneath.conf"

apt-get remove -y -q -o DPkg::Lock::Timeout=120 beneath </dev/null \
  >"$tmp/remove.log" 2>&1 || fail "apt remove: $(tail -n 20 "$tmp/remove.log")"
[ ! -e /usr/bin/beneath ] && [ ! -e /usr/lib/systemd/system/beneath.service ] ||
  fail "files left after apt remove"
[ -f /etc/beneath/beneath.conf ] || fail "apt remove dropped the conffile"
getent passwd beneath >/dev/null || fail "apt remove dropped the user"
apt-get purge -y -q -o DPkg::Lock::Timeout=120 beneath </dev/null \
  >"$tmp/purge.log" 2>&1 || fail "apt purge: $(tail -n 20 "$tmp/purge.log")"
[ ! -e /etc/beneath ] || fail "/etc/beneath left after purge"
! getent passwd beneath >/dev/null || fail "the user beneath left after purge"
! dpkg-query -W -f='${Status}' beneath 2>/dev/null | grep -q ' installed' ||
  fail "still installed"
echo "ok: apt remove keeps the configuration, apt purge removes everything"
