#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CORS in a real browser (Debian's `chromium`, headless): a page on one
# origin (a beneath serving page.html) fetches JSON from another (a second
# beneath) with a header of its own, X-Test, so that Chromium sends a
# preflight OPTIONS first. The fetch must fail without any CORS setting
# and with --cors naming another origin, and succeed with --cors naming the
# page's origin, with --cors '*', and with a site _headers file that sets
# Access-Control-Allow-Origin and -Headers for the path (the per-path
# headers go on the OPTIONS reply too).
#   cors_chromium.sh BENEATH_BIN
# Exit 77 (skipped) when chromium is missing.
set -euo pipefail
bin=$1
# shellcheck source=tests/lib/chromium.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/chromium.sh"
chromium_setup beneath-cors-chromium

mkdir -p "$tmp/page" "$tmp/data/api" "$tmp/site/api"
cat >"$tmp/page/page.html" <<'HTML'
<!DOCTYPE html><title>cors</title><div id="out">pending</div>
<script>
fetch(location.hash.slice(1), {headers: {"X-Test": "1"}})
  .then(r => r.text())
  .then(t => { document.getElementById("out").textContent = "OK:" + t.trim(); })
  .catch(e => { document.getElementById("out").textContent = "FAIL:" + e; });
</script>
HTML
echo '{"ok":true}' >"$tmp/data/api/data.json"
echo '{"ok":"site"}' >"$tmp/site/api/data.json"
printf '/api/*\n  Access-Control-Allow-Origin: *\n  Access-Control-Allow-Headers: X-Test\n' \
  >"$tmp/site/_headers"

# The page's origin: a server of its own, kept for every case.
serve --access-log off "$tmp/page"
page_pid=$pid page_url=$url
mv "$tmp/err" "$tmp/page.err"
trap 'kill "$page_pid" 2>/dev/null || true; serve_cleanup' EXIT

# fetch_from EXPECT OPTION...: a data server with OPTION..., the page's
# fetch from it, and what the page wrote (OK:BODY or FAIL:ERROR).
fetch_from() {
  local want=$1 got
  shift
  serve --access-log "$tmp/access" "$@"
  got=$(chrome --virtual-time-budget=10000 --dump-dom \
    "$page_url/page.html#$url/api/data.json" | grep -o 'id="out">[^<]*' | sed 's/id="out">//') ||
    fail "chromium --dump-dom failed: $(tail -5 "$tmp/chromium.log")"
  case $got in
  "$want"*) echo "ok: $* -> $got" ;;
  *) fail "$*: the page says '$got', want '$want...'; access log: $(cat "$tmp/access")" ;;
  esac
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
  rm -f "$tmp/access"
}

fetch_from "FAIL:TypeError" "$tmp/data"
fetch_from "FAIL:TypeError" --cors "http://127.0.0.1:1" "$tmp/data"
fetch_from 'OK:{"ok":true}' --cors "$page_url" "$tmp/data"
fetch_from 'OK:{"ok":true}' --cors "http://example.org,$page_url" "$tmp/data"
fetch_from 'OK:{"ok":true}' --cors '*' "$tmp/data"
fetch_from "FAIL:TypeError" "$tmp/site"
fetch_from 'OK:{"ok":"site"}' --site-files on "$tmp/site"
fetch_from 'OK:{"ok":"site"}' --headers-file "$tmp/site/_headers" "$tmp/site"
echo "ok: cross-origin fetches with a preflight in headless Chromium"
