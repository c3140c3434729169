#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# debian-root.sh systemd|minbase [PACKAGE...] - print the path of a tarball
# holding a Debian 12 root made by debootstrap --variant=minbase (Depends
# only, no Recommends), with PACKAGE...:
#   systemd  also systemd as its init and curl, set up as a container's
#            root (no console getty, a fixed host name; no procps, so no
#            /bin/kill): the systemd test's (deploy/systemd/test.sh);
#   minbase  nothing else: a new machine, as tests/fresh_machine.sh wants.
# The apt lists and downloaded packages are left out. The tarball is a
# cache: its name carries a hash of this script, the flavour and the
# package list, so a run reuses the one it finds and builds it when the
# recipe changed or none is there (a minute or a few, from the mirror of
# this machine's apt sources: deploy/host-apt.sh). Two runs at once build it
# once (flock). A new one removes the flavour's tarballs unused for a week.
#   BENEATH_TEST_CACHE  cache directory (default /var/cache/beneath-test)
#   BENEATH_DEBIAN_MIRROR  the mirror (default: this machine's)
#   DEBOOTSTRAP_SECONDS  bound on debootstrap (default 900)
# Progress goes to stderr, the path to stdout. Needs root and debootstrap.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=deploy/host-apt.sh
. "$here/host-apt.sh"
cache=${BENEATH_TEST_CACHE:-/var/cache/beneath-test}
suite=bookworm
flavour=${1:-}
shift || true
case "$flavour" in
systemd) extra=(systemd systemd-sysv curl) ;;
minbase) extra=() ;;
*)
  echo "usage: debian-root.sh systemd|minbase [PACKAGE...]" >&2
  exit 2
  ;;
esac

mapfile -t pkgs < <(printf '%s\n' "${extra[@]}" "$@" | grep . | sort -u)
key=$({ cat "$0"; printf '%s\n' "$suite" "$flavour" "${pkgs[@]}"; } | sha256sum | cut -c1-16)
tarball=$cache/debian12-$flavour-$key.tar
if [ -s "$tarball" ]; then
  touch "$tarball" # in use: not pruned below
  echo "$tarball"
  exit 0
fi
command -v debootstrap >/dev/null ||
  { echo "debian-root.sh: debootstrap is not installed" >&2; exit 1; }
mirror=$(host_apt_mirror)
mkdir -p "$cache"
exec 9>"$cache/.lock-$key"
flock 9
if [ -s "$tarball" ]; then # built by another run while this one waited
  echo "$tarball"
  exit 0
fi

work=$(mktemp -d "$cache/build-$key-XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
echo "debian-root.sh: debootstrap $suite $flavour (${pkgs[*]:-no more packages}) from $mirror into $root" >&2
start=$(date +%s)
include=()
[ ${#pkgs[@]} -eq 0 ] || include=(--include="$(IFS=,; echo "${pkgs[*]}")")
proxy=$(host_apt_proxy)
http_proxy=${proxy:-${http_proxy:-}} timeout "${DEBOOTSTRAP_SECONDS:-900}" \
  debootstrap --variant=minbase "${include[@]}" "$suite" "$root" "$mirror" \
  >"$work/debootstrap.log" 2>&1 ||
  { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }

if [ "$flavour" = systemd ]; then
  # a container's root: no console getty, a fixed host name (nothing is
  # installed from the network later)
  echo beneath-test >"$root/etc/hostname"
  ln -sf /dev/null "$root/etc/systemd/system/console-getty.service"
  ln -sf /dev/null "$root/etc/systemd/system/getty@.service"
fi
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb
tar --numeric-owner -C "$root" -cf "$work/root.tar" .
mv "$work/root.tar" "$tarball"
echo "debian-root.sh: $tarball in $(($(date +%s) - start)) s" >&2
# the roots of other recipes (other checkouts' or older) unused for a week
find "$cache" -maxdepth 1 -name "debian12-$flavour-*.tar" ! -name "${tarball##*/}" \
  -mtime +7 -delete 2>/dev/null || true
echo "$tarball"
