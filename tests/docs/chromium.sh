#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A real browser against beneath: serve a copy of www-sample/ with
# precompressed sidecars and load it in headless Chromium (Debian's
# `chromium`). Checks: the DOM after scripts ran (site.js, served as a
# precompressed variant, un-hid the theme button), the access log shows the
# variants' byte counts for the stylesheet and the script (the browser
# decoded what it got), and a screenshot is not blank (much larger than a
# screenshot of an empty page of the same size).
#   chromium.sh BENEATH_BIN SITE_DIR
# SITE_DIR is the assembled www-sample/ of the build tree.
# Exit 77 (skipped) when chromium, gzip or brotli is missing.
set -euo pipefail
bin=$1
site=$2
# shellcheck source=tests/lib/chromium.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/chromium.sh"
chromium_setup beneath-chromium gzip brotli zstd

# The site, without the generated 4 MiB download, with sidecars next to
# every compressible file (what a docs build step would produce).
mkdir "$tmp/www"
cp -a "$site/." "$tmp/www/"
rm -f "$tmp/www/downloads/"*.bin
find "$tmp/www" -type f \( -name '*.html' -o -name '*.css' -o -name '*.js' -o -name '*.svg' \) |
  while read -r f; do
    gzip -9 -k -f "$f"
    brotli -k -f "$f"
    zstd -q -k -f "$f"
  done

serve --precompressed br,zst,gz --access-log "$tmp/access" --security-headers "$tmp/www"
# The pages at desktop size.
desktop() { chrome --window-size=1024,768 "$@"; }

# 1. The DOM after scripts ran.
desktop --dump-dom "$url/" >"$tmp/dom.html" || fail "chromium --dump-dom failed: $(tail -5 "$tmp/chromium.log")"
grep -q '<title>beneath' "$tmp/dom.html" || fail "no title in the DOM"
grep -q '<button id="theme-toggle" type="button">' "$tmp/dom.html" ||
  fail "site.js did not run (theme button still hidden): $(grep -o '<button[^>]*>' "$tmp/dom.html")"

# 2. The browser got the variants: bytes logged == a sidecar's size.
for asset in assets/style.css assets/site.js; do
  line=$(grep "\"GET /$asset HTTP/1.1\" 200 " "$tmp/access" | head -1) ||
    fail "no 200 for /$asset in the access log"
  bytes=$(echo "$line" | sed -E 's/.*" 200 ([0-9]+) .*/\1/')
  ok=no
  for ext in gz br zst; do
    [ "$bytes" = "$(stat -c %s "$tmp/www/$asset.$ext")" ] && ok=$ext
  done
  [ "$ok" != no ] || fail "/$asset: $bytes bytes sent, not a sidecar's size: $line"
  echo "ok: /$asset served as .$ok ($bytes bytes, plain $(stat -c %s "$tmp/www/$asset"))"
done

# 3. A screenshot that is not blank.
(cd "$tmp" && desktop --screenshot="$tmp/page.png" "$url/") || fail "screenshot failed"
(cd "$tmp" && desktop --screenshot="$tmp/blank.png" "data:text/html,<title>x</title>") ||
  fail "blank screenshot failed"
page=$(stat -c %s "$tmp/page.png")
blank=$(stat -c %s "$tmp/blank.png")
[ "$(head -c 8 "$tmp/page.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  fail "page.png is not a PNG"
[ "$page" -gt $((blank * 3)) ] || fail "screenshot looks blank: $page bytes vs $blank for an empty page"
echo "ok: screenshot $page bytes (empty page: $blank)"
echo "ok: www-sample rendered in headless Chromium"
