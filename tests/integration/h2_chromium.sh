#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# HTTP/2 in a real browser: headless Chromium loads a page
# from beneath over https:// (--tls-self-signed, so Chromium runs with
# --ignore-certificate-errors) whose script reports
# performance.getEntriesByType('navigation')[0].nextHopProtocol, and that of
# the page's stylesheet, script and image: each must be "h2". With
# --http2 off the same page must say "http/1.1" (ALPN without h2).
#   h2_chromium.sh BENEATH_BIN
# Exit 77 (skipped) when chromium is missing.
set -euo pipefail
bin=$1
# shellcheck source=tests/lib/chromium.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/chromium.sh"
chromium_setup beneath-h2-chromium

mkdir -p "$tmp/www"
cat >"$tmp/www/index.html" <<'HTML'
<!DOCTYPE html><title>h2</title>
<link rel="stylesheet" href="style.css">
<div id="out">pending</div>
<img src="dot.svg" alt="">
<script src="app.js"></script>
HTML
echo 'body { color: #333 }' >"$tmp/www/style.css"
printf '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n' \
  >"$tmp/www/dot.svg"
cat >"$tmp/www/app.js" <<'JS'
window.addEventListener("load", () => {
  const nav = performance.getEntriesByType("navigation")[0];
  const res = performance.getEntriesByType("resource")
    .map(e => e.name.split("/").pop() + "=" + e.nextHopProtocol).sort();
  document.getElementById("out").textContent =
    "NAV=" + nav.nextHopProtocol + " " + res.join(" ");
});
JS

# page OPTION...: got is what the page reports when served with OPTION...
page() {
  serve_https --access-log off "$@" "$tmp/www"
  got=$(chrome --ignore-certificate-errors --virtual-time-budget=10000 \
    --dump-dom "$url/" | grep -o 'id="out">[^<]*' | sed 's/id="out">//') ||
    fail "chromium --dump-dom failed: $(tail -5 "$tmp/chromium.log")"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
}

want="NAV=h2 app.js=h2 dot.svg=h2 style.css=h2"
page
[ "$got" = "$want" ] || fail "over https:// the page says '$got', want '$want'"
echo "ok: $got"
want="NAV=http/1.1 app.js=http/1.1 dot.svg=http/1.1 style.css=http/1.1"
page --http2 off
[ "$got" = "$want" ] || fail "with --http2 off the page says '$got', want '$want'"
echo "ok: --http2 off: $got"
echo "ok: Chromium chose h2 over https:// with beneath"
