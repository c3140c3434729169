#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test-build.sh - a packager's build: the README's "From source" commands,
# run as written in a scratch copy of the source tree, with the packages
# that only "scripts/deps.sh test" installs made absent to the build (their
# pkg-config files hidden: pkg-config is how the build finds a library), so
# it sees what "scripts/deps.sh build" alone gives. The build must configure,
# build and install (under DESTDIR) without them, and build no test. Then
# the Debian package of that build ("cpack -G DEB") must pass lintian with
# no error and no warning, its programs built with the hardening flags
# (lintian's hardening-* tags: _FORTIFY_SOURCE, -z now).
#   test-build.sh SOURCE_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-build-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The commands: the first sh block after "**From source**" in README.md.
cmds=$(awk '/^\*\*From source\*\*/ { f = 1 } f && /^```sh$/ { b = 1; next }
  b && /^```$/ { exit } b' "$src/README.md")
[ -n "$cmds" ] || fail "README.md has no \"From source\" commands"
grep -q '^cmake --build' <<<"$cmds" || fail "no cmake --build in: $cmds"

# The test-only packages' pkg-config files are left out of a search path
# that holds every other one.
hidden=()
while read -r pkg; do
  while read -r f; do
    hidden+=("$(basename "$f")")
  done < <(dpkg -L "$pkg" 2>/dev/null | grep '\.pc$' || true)
done < <("$src/scripts/deps.sh" list test-only)
for must in check.pc libcurl.pc; do
  [[ " ${hidden[*]} " == *" $must "* ]] ||
    fail "$must is not among the test packages' files (scripts/deps.sh test first)"
done
mkdir "$tmp/pc"
IFS=: read -r -a pcdirs <<<"$(pkg-config --variable pc_path pkg-config)"
for d in "${pcdirs[@]}"; do
  for f in "$d"/*.pc; do
    [ -e "$f" ] || continue
    [[ " ${hidden[*]} " == *" $(basename "$f") "* ]] && continue
    [ -e "$tmp/pc/$(basename "$f")" ] || ln -s "$f" "$tmp/pc/"
  done
done
export PKG_CONFIG_LIBDIR=$tmp/pc PKG_CONFIG_PATH=
pkg-config --exists check && fail "check is still visible to pkg-config"
echo "ok: hidden from the build: ${hidden[*]}"

# A copy of the tree without build directories; the commands run in it as
# the README gives them, the install under DESTDIR.
mkdir "$tmp/src"
tar -C "$src" --exclude=./build --exclude=./.git -cf - . | tar -C "$tmp/src" -xf -
export DESTDIR=$tmp/dest
while read -r line; do
  line=${line%%#*}
  [ -n "${line// /}" ] || continue
  echo "+ $line"
  (cd "$tmp/src" && bash -euo pipefail -c "$line") >"$tmp/log" 2>&1 ||
    fail "$line: $(tail -n 30 "$tmp/log")"
done <<<"$cmds"

b=$tmp/src/build
grep -qx 'BUILD_TESTING:BOOL=OFF' "$b/CMakeCache.txt" ||
  fail "BUILD_TESTING is not OFF by default: $(grep '^BUILD_TESTING' "$b/CMakeCache.txt")"
[ ! -e "$b/tests" ] || fail "the plain build configured the tests"
"$b/server/beneath" --version >/dev/null || fail "the built beneath does not run"
[ -x "$DESTDIR/usr/local/bin/beneath" ] || fail "nothing installed under DESTDIR/usr/local"
echo "ok: the README's build-from-source commands work with the build packages alone"

# The package of this build, as a packager makes it, under lintian.
command -v lintian >/dev/null || fail "lintian is not installed (scripts/deps.sh test)"
(cd "$b" && cpack -G DEB -B "$tmp/deb") >"$tmp/log" 2>&1 || fail "cpack: $(tail -n 20 "$tmp/log")"
deb=$(echo "$tmp"/deb/beneath_*.deb)
[ -f "$deb" ] || fail "cpack made no package: $(ls "$tmp/deb")"
out=$(lintian --display-info --fail-on error,warning "$deb" 2>&1 |
  grep -v '^running with root privileges') || fail "lintian: $out"
! grep -q 'hardening-' <<<"$out" || fail "lintian: hardening flags missing: $out"
echo "ok: lintian $(basename "$deb"): no error, no warning, hardened${out:+ (notes: $(grep -c '^[IP]:' <<<"$out"))}"
