#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# debian-root.sh [PACKAGE...] - print the path of a tarball holding a
# minimal Debian 12 root with systemd as its init, curl, and PACKAGE...
# (Depends only, no Recommends: no procps, so no /bin/kill), made by
# debootstrap --variant=minbase. The tarball is a cache: its name carries a
# hash of this script and the package list, so a run reuses the one it finds
# and builds it when the recipe changed or none is there (a few minutes,
# from the Debian mirror). Two runs at once build it once (flock).
#   BENEATH_TEST_CACHE  cache directory (default /var/cache/beneath-test)
#   BENEATH_DEBIAN_MIRROR  (default http://deb.debian.org/debian)
# Progress goes to stderr, the path to stdout. Needs root and debootstrap.
set -euo pipefail
cache=${BENEATH_TEST_CACHE:-/var/cache/beneath-test}
mirror=${BENEATH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm

mapfile -t pkgs < <(printf '%s\n' systemd systemd-sysv curl "$@" | sort -u)
key=$({ cat "$0"; printf '%s\n' "$suite" "${pkgs[@]}"; } | sha256sum | cut -c1-16)
tarball=$cache/debian12-systemd-$key.tar
if [ -s "$tarball" ]; then
  echo "$tarball"
  exit 0
fi
command -v debootstrap >/dev/null ||
  { echo "debian-root.sh: debootstrap is not installed" >&2; exit 1; }
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
echo "debian-root.sh: debootstrap $suite (${pkgs[*]}) into $root" >&2
start=$(date +%s)
include=$(IFS=,; echo "${pkgs[*]}")
debootstrap --variant=minbase --include="$include" "$suite" "$root" "$mirror" \
  >"$work/debootstrap.log" 2>&1 ||
  { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }

# A container's root: no console getty, a fixed host name, no apt lists
# (the tarball stays small; nothing is installed from the network later).
echo beneath-test >"$root/etc/hostname"
ln -sf /dev/null "$root/etc/systemd/system/console-getty.service"
ln -sf /dev/null "$root/etc/systemd/system/getty@.service"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb
tar --numeric-owner -C "$root" -cf "$work/root.tar" .
mv "$work/root.tar" "$tarball"
echo "debian-root.sh: $tarball in $(($(date +%s) - start)) s" >&2
echo "$tarball"
