#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test-install.sh - "cmake --install" into a scratch prefix installs exactly
# the expected files; both man pages render without warnings and describe
# every option the programs know; the systemd units pass systemd-analyze
# verify and name the installed binary and configuration; the installed
# example configuration is valid, and the installed binary serves with it;
# docs/security.md gives the unit's exposure score as systemd-analyze does.
#   test-install.sh BUILD_DIR
set -euo pipefail
build=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-install-XXXXXX")
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=deploy/listen-url.sh
. "$(dirname "${BASH_SOURCE[0]}")/listen-url.sh"

p=$tmp/prefix
cmake --install "$build" --prefix "$p" >/dev/null
got=$(cd "$p" && find . -type f | sort)
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
want=$( (printf '%s\n' ./bin/beneath ./bin/beneath-precompress ./bin/beneath-resolve \
  ./etc/beneath/beneath.conf ./lib/systemd/system/beneath.service \
  ./lib/sysusers.d/beneath.conf \
  ./lib/systemd/system/beneath.socket ./share/doc/beneath/LICENSE \
  ./share/doc/beneath/README.md ./share/man/man1/beneath-precompress.1 \
  ./share/man/man1/beneath-resolve.1 ./share/man/man1/beneath.1
  for d in "$src"/docs/*.md; do echo "./share/doc/beneath/docs/${d##*/}"; done) | sort)
[ "$got" = "$want" ] || fail "installed files differ:
$(diff <(echo "$want") <(echo "$got"))"
echo "ok: installed files"

# man pages: no groff warnings; every --option of the usage is described
for page in beneath beneath-resolve beneath-precompress; do
  warn=$(MANWIDTH=80 man --warnings -l "$p/share/man/man1/$page.1" 2>&1 >/dev/null)
  [ -z "$warn" ] || fail "$page.1: $warn"
  text=$(MANWIDTH=200 man -l "$p/share/man/man1/$page.1" 2>/dev/null)
  opts=$("$p/bin/$page" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
  [ -n "$opts" ] || fail "$page --help lists no options"
  for o in $opts; do
    grep -qF -- "$o" <<<"$text" || fail "$page.1 does not describe $o"
  done
done
echo "ok: man pages render and describe every option"

# beneath.1 points at the documentation where it is installed: every path
# under the prefix's doc directory that it names exists, and no source-tree
# "docs/NAME" is left
text=$(MANWIDTH=400 man -l "$p/share/man/man1/beneath.1" 2>/dev/null)
named=$(grep -oE "$p/share/doc/beneath/[A-Za-z0-9./_-]*[A-Za-z0-9/_-]" <<<"$text" | sort -u)
[ "$(grep -c . <<<"$named")" -ge 5 ] || fail "beneath.1 names few documentation files: $named"
while read -r f; do
  [ -e "$f" ] || fail "beneath.1 names $f, which is not installed"
done <<<"$named"
if grep -oE '(^|[ (])docs/[a-z0-9-]+\.md' <<<"$text" | grep -q .; then
  fail "beneath.1 names a source-tree path: $(grep -oE '(^|[ (])docs/[a-z0-9-]+\.md' <<<"$text" | head -3)"
fi
echo "ok: beneath.1 names the installed documentation ($(wc -l <<<"$named") paths)"

# beneath.1 says what --help says: its SYNOPSIS is the usage line, each short
# option is there with its long one, and SIGHUP's sentence is the same
help=$("$p/bin/beneath" --help)
text=$(MANWIDTH=400 man -l "$p/share/man/man1/beneath.1" 2>/dev/null | tr -s ' \n' ' ')
usage=$(sed -n '1s/^Usage: //p' <<<"$help")
grep -qF " SYNOPSIS $usage beneath --probe URL " <<<"$text" ||
  fail "beneath.1's SYNOPSIS is not '$usage'"
shorts=$(grep -oE '^  -[a-zA-Z], --[a-z-]+' <<<"$help" | sed 's/^  //')
[ -n "$shorts" ] || fail "--help lists no short option"
while read -r o; do
  grep -qF " $o " <<<"$text" || fail "beneath.1 does not give '$o'"
done <<<"$shorts"
sighup=$(sed -n '/^SIGHUP /,$p' <<<"$help" | tr -s ' \n' ' ')
grep -qF " ${sighup% }" <<<"$text" || fail "beneath.1's SIGHUP is not --help's: $sighup"
echo "ok: beneath.1's SYNOPSIS, $(grep -c . <<<"$shorts") short options and SIGHUP are --help's"

# units: the installed paths, and systemd's own check
unit=$p/lib/systemd/system/beneath.service
grep -qx "ExecStart=$p/bin/beneath --config $p/etc/beneath/beneath.conf" "$unit" ||
  fail "ExecStart does not name the installed files: $(grep ExecStart "$unit")"
if command -v systemd-analyze >/dev/null; then
  out=$(MANPATH=$p/share/man: systemd-analyze verify "$unit" \
    "$p/lib/systemd/system/beneath.socket" 2>&1) ||
    fail "systemd-analyze verify: $out"
  [ -z "$out" ] || fail "systemd-analyze verify: $out"
  echo "ok: systemd-analyze verify"
  # systemd's own exposure score of the unit stays at most 2.0 ("OK")
  sec=$(systemd-analyze security --offline=yes "$unit" 2>&1 | tail -n 1) || true
  score=$(sed -n 's/.*exposure level for beneath.service: \([0-9.]*\) .*/\1/p' <<<"$sec")
  [ -n "$score" ] || fail "systemd-analyze security: $sec"
  awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' ||
    fail "beneath.service exposure $score, above 2.0: $sec"
  echo "ok: systemd-analyze security: exposure $score (at most 2.0)"
  # docs/security.md's before/after table gives the score the unit has
  doc=$(dirname "${BASH_SOURCE[0]}")/../docs/security.md
  after=$(sed -n 's/^| overall exposure | [0-9.]* | \([0-9.]*\) |.*/\1/p' "$doc")
  [ "$after" = "$score" ] ||
    fail "docs/security.md's table gives exposure '$after' after, systemd-analyze $score"
  echo "ok: docs/security.md's exposure table says $score"
else
  echo "note: no systemd-analyze here; units not verified"
fi

# the example configuration: every file setting is listed, and it is valid
conf=$p/etc/beneath/beneath.conf
mkdir "$tmp/www"
echo "installed beneath" >"$tmp/www/index.html"
keys=$("$p/bin/beneath" --check --root "$tmp/www" --listen 127.0.0.1:0 |
  sed -n 's/^#* *\([a-z-]*\) = .*/\1/p' | sort -u)
for k in $keys; do
  grep -qE "^(# )?$k = " "$conf" || fail "beneath.conf does not list $k"
done
"$p/bin/beneath" --config "$conf" --root "$tmp/www" --listen 127.0.0.1:0 \
  --check >/dev/null || fail "the example configuration is not valid"
echo "ok: example configuration lists every setting and is valid"

# the installed binary serves with it (root and port overridden for the test)
"$p/bin/beneath" --config "$conf" --root "$tmp/www" --listen 127.0.0.1:0 \
  2>"$tmp/err" >/dev/null &
pid=$!
url=$(listen_url "$tmp/err")
[ -n "$url" ] || fail "no listening line: $(cat "$tmp/err")"
"$p/bin/beneath" --probe "$url/" >/dev/null || fail "installed binary: probe failed"
[ "$(curl -fsS "$url/")" = "installed beneath" ] || fail "wrong body"
echo "ok: the installed binary serves with the installed configuration"
