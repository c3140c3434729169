#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs_claims.sh - what the README and docs/ say of the program, checked
# against the program (what can be generated is: docs/configuration.md and
# beneath(1) from the option table, tests conf-readme and install):
#  - README's comparison row of compression on the fly, auth, virtual hosts
#    and redirects: beneath's cell names options --help has, not "not yet";
#  - README's Debian package paragraph: the root and listen address it names
#    are those of the example configuration the package installs;
#  - docs/http.md's start-up sample: the lines a start with a relative root
#    prints, in that order (numbers, ports and the absolute root aside);
#  - docs/docs-hosting.md's sidecar ETag forms: "TAG-br" (the content tag of
#    the sidecar's bytes) and "MTIME-SIZE-br" (--etag mtime) are what the
#    server sends for a .br sidecar.
#   docs_claims.sh BENEATH_BIN SOURCE_DIR BUILD_DIR
set -euo pipefail
bin=$(realpath "$1") src=$2 build=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-docs-XXXXXX")
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
failed=0
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
# said CHECKPOINT TEXT: TEXT, if nothing failed since CHECKPOINT ($failed)
said() { [ "$failed" -eq "$1" ] && echo "${*:2}" || true; }
help=$("$bin" --help)

# 1. README: the features row
at=$failed
row=$(grep -F '| compression on the fly, auth, virtual hosts, redirects |' "$src/README.md" || true)
cell=$(cut -d'|' -f3 <<<"$row")
[ -n "$row" ] || bad "README.md has no compression/auth/vhosts/redirects row"
grep -qi 'not yet' <<<"$cell" && bad "README.md says beneath has not yet: $cell"
opts=$(grep -oE -- '--[a-z-]+' <<<"$cell" || true)
[ -n "$opts" ] || bad "README.md's row names no option for them: $cell"
for o in $opts; do
  grep -qE -- "^  (-[a-zA-Z], )?$o( |$)" <<<"$help" || bad "README.md's row names $o, which --help lacks"
done
said "$at" "README: compression, auth, vhosts, redirects:$cell"

# 2. README: what the installed package serves
at=$failed
conf=$build/deploy/beneath.conf
para=$(awk '/^\*\*Debian package:\*\*/ { p = 1 } p && /^$/ { exit } p' "$src/README.md" | tr '\n' ' ')
root=$(sed -n 's/^root = //p' "$conf")
listen=$(sed -n 's/^listen = //p' "$conf")
[ -n "$root" ] && [ -n "$listen" ] || bad "$conf has no root or listen"
grep -qF "serves \`$root\` on \`$listen\`" <<<"$para" ||
  bad "README.md's Debian package paragraph does not say it serves \`$root\` on \`$listen\`: $para"
said "$at" "README: the package serves $root on $listen"

# 3. docs/http.md: the start-up sample, line by line
at=$failed
sample=$(awk '/^\*\*Start-up\.\*\*/ { s = 1 } s && /^```$/ { if (b) exit; b = 1; next } b' "$src/docs/http.md")
[ -n "$sample" ] || bad "docs/http.md has no start-up sample"
mkdir -p "$tmp/run/www-sample"
echo hi >"$tmp/run/www-sample/index.html"
(cd "$tmp/run" && exec "$bin" --listen 127.0.0.1:0 www-sample) 2>"$tmp/err" >/dev/null &
pid=$!
for _ in $(seq 100); do grep -q '^beneath: confine ' "$tmp/err" && break; sleep 0.05; done
kill "$pid"
wait "$pid" 2>/dev/null || true
pid=
got=$(grep -v '^beneath: SIGTERM' "$tmp/err")
[ "$(grep -c . <<<"$sample")" = "$(grep -c . <<<"$got")" ] ||
  bad "docs/http.md's sample has $(grep -c . <<<"$sample") lines, a start prints $(grep -c . <<<"$got"):
$got"
while IFS= read -r want <&3 && IFS= read -r line <&4; do
  case "$want" in
  "beneath: keeper: "*)
    # numbers aside, the same; as root it also names the capabilities it
    # keeps
    re=$(sed -e 's/[][\.*^$+?(){}|/]/\\&/g' -e 's/[0-9][0-9]*/[0-9]+/g' <<<"$want")
    grep -qxE "$re(; .*)?" <<<"$line" || bad "docs/http.md: '$want', a start prints '$line'"
    ;;
  "beneath: sandbox: "*)
    # what Landlock rights a kernel has varies: the walls are named
    [[ "$line" == "beneath: sandbox: landlock ABI "*", seccomp allow-list ("* ]] ||
      bad "docs/http.md: '$want', a start prints '$line'"
    ;;
  *)
    # numbers (a port) and the absolute root may differ, nothing else
    re=$(sed -e 's/[][\.*^$+?(){}|/]/\\&/g' -e 's/[0-9][0-9]*/[0-9]+/g' \
      -e 's|\\(\\/[^)]*\\)$|\\(/[^)]*\\)|' <<<"$want")
    grep -qxE "$re" <<<"$line" || bad "docs/http.md: '$want', a start prints '$line'"
    ;;
  esac
done 3<<<"$sample" 4<<<"$got"
said "$at" "docs/http.md: the start-up sample is what a start prints ($(grep -c . <<<"$got") lines)"

# 4. docs/docs-hosting.md: the ETag of a .br sidecar
at=$failed
grep -qF '`"TAG-br"`' "$src/docs/docs-hosting.md" &&
  grep -qF '`"MTIME-SIZE-br"`' "$src/docs/docs-hosting.md" ||
  bad "docs/docs-hosting.md does not give the sidecar ETag forms \"TAG-br\" and \"MTIME-SIZE-br\""
command -v brotli >/dev/null || bad "brotli is not installed (scripts/deps.sh test)"
site=$tmp/site
mkdir "$site"
head -c 6000 /dev/zero | tr '\0' 'a' >"$site/page.html"
brotli -k "$site/page.html"
tag=$(openssl dgst -sha256 -binary "$site/page.html.br" | head -c 16 | base64 | tr '+/' '-_' | tr -d '=')
size=$(printf '%x' "$(stat -c %s "$site/page.html.br")")
for mode in content mtime; do
  "$bin" --listen 127.0.0.1:0 --precompressed br --etag "$mode" --access-log off \
    "$site" 2>"$tmp/err.$mode" >/dev/null &
  pid=$!
  for _ in $(seq 100); do grep -q '^beneath: listening on' "$tmp/err.$mode" && break; sleep 0.05; done
  url=$(sed -n 's/^beneath: listening on \(http:[^ ]*\)$/\1/p' "$tmp/err.$mode")
  etag=$(curl -s -o /dev/null -D - -H 'Accept-Encoding: br' "$url/page.html" |
    sed -n 's/^[Ee][Tt][Aa][Gg]: *\(.*\)\r$/\1/p')
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
  if [ "$mode" = content ]; then
    [ "$etag" = "\"$tag-br\"" ] || bad "a .br sidecar's ETag is $etag, not \"TAG-br\" (\"$tag-br\")"
  else
    [[ "$etag" =~ ^\"[0-9a-f]+-$size-br\"$ ]] || bad "with --etag mtime a .br sidecar's ETag is $etag, not \"MTIME-SIZE-br\" (size $size)"
  fi
  said "$at" "docs/docs-hosting.md: --etag $mode, a .br sidecar: $etag"
done
[ $failed -eq 0 ] && echo "docs_claims: all hold"
exit $failed
