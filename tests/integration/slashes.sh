#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Leading slashes are empty components, as inner ones are: a target such as
# //index.html, // or //old-page (a --redirects 301) is answered as its
# single-slash form, with curl --path-as-is over HTTP/1.1, HTTP/2 over
# https:// (ALPN h2) and HTTP/2 by prior knowledge on a plain listener, and
# no resolver error is counted for them; an --auth rule for /private/ still
# asks for credentials on //private/x, /private//x and //private//x (and
# serves them with the password), a _redirects rule matches //old-page;
# a doubled slash before .. still meets the resolver (403, counted).
#   slashes.sh BENEATH_BIN
set -euo pipefail
bin=$1
# shellcheck source=tests/lib/serve.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/serve.sh"
serve_setup beneath-slashes curl htpasswd

mkdir -p "$tmp/www/private" "$tmp/www/d"
echo 'HOME' >"$tmp/www/index.html"
echo 'NEW' >"$tmp/www/new-page.html"
echo 'REPORT' >"$tmp/www/private/report.txt"
echo 'INNER' >"$tmp/www/d/index.html"
echo 'SECRET' >"$tmp/secret.txt"
printf '/old-page /new-page.html 301\n/gone/* /new-page.html 302!\n' >"$tmp/redirects"
htpasswd -cbB -C 5 "$tmp/htpasswd" ann pw >/dev/null 2>&1

serve_both --redirects "$tmp/redirects" --auth "/private/**=$tmp/htpasswd" \
  --metrics /metrics --access-log off "$tmp/www"

# refusals the resolver counted: EXDEV, ELOOP, EACCES (ENOENT is a file
# not there, which /etc/passwd and the redirect's lookup of /old-page are
# with one slash too)
resolver_errors() {
  curl -s "$http/metrics" |
    awk '/^beneath_resolver_errors_total/ && !/ENOENT/ { n += $NF } END { print n + 0 }'
}

# ask PROTO TARGET [CURL ARGS...]: "STATUS VERSION BODY LOCATION"
ask() {
  local proto=$1 target=$2 base
  shift 2
  local -a how=(--path-as-is -s -o "$tmp/body" -D "$tmp/head" --max-time 10)
  case $proto in
  h1) base=$http how+=(--http1.1) ;;
  h2) base=$https how+=(--http2 -k) ;;
  h2c) base=$http how+=(--http2-prior-knowledge) ;;
  esac
  curl "${how[@]}" "$@" "$base$target" -w '%{http_code} %{http_version}' >"$tmp/out" ||
    fail "$proto $target: curl exit $?"
  printf '%s %s %s\n' "$(cat "$tmp/out")" "$(tr -d '\n' <"$tmp/body" | head -c 40)" \
    "$(tr -d '\r' <"$tmp/head" | awk 'tolower($1) == "location:" { print $2 }')"
}

# expect PROTO TARGET STATUS BODY|- LOCATION|- [CURL ARGS...]
expect() {
  local proto=$1 target=$2 status=$3 body=$4 loc=$5 got
  shift 5
  got=$(ask "$proto" "$target" "$@")
  read -r st ver rest <<<"$got"
  local want_ver=2
  [ "$proto" = h1 ] && want_ver=1.1
  [ "$st" = "$status" ] || fail "$proto $target: status $st, want $status ($got)"
  [ "$ver" = "$want_ver" ] || fail "$proto $target: HTTP/$ver, want $want_ver"
  [ "$body" = - ] || grep -q "^$body" <<<"$rest" || fail "$proto $target: body '$rest', want $body"
  [ "$loc" = - ] || [ "$(awk '{ print $NF }' <<<"$rest")" = "$loc" ] ||
    fail "$proto $target: Location in '$rest', want $loc"
}

before=$(resolver_errors)
for proto in h1 h2 h2c; do
  expect "$proto" //index.html 200 HOME -
  expect "$proto" // 200 HOME -
  expect "$proto" /// 200 HOME -
  expect "$proto" ///index.html 200 HOME -
  expect "$proto" /%2F/index.html 200 HOME -
  expect "$proto" //d/ 200 INNER -
  expect "$proto" //d 301 - /d/
  expect "$proto" //old-page 301 - /new-page.html
  expect "$proto" //gone/x 302 - /new-page.html
  expect "$proto" //etc/passwd 404 - -
  for t in //private/report.txt /private//report.txt //private//report.txt \
    ///private/./report.txt; do
    expect "$proto" "$t" 401 - -
    expect "$proto" "$t" 200 REPORT - -u ann:pw
  done
  echo "ok: $proto: leading slashes served as one, the rules still apply"
done
after=$(resolver_errors)
[ "$after" = "$before" ] ||
  fail "resolver refusals counted: $before before, $after after: $(curl -s "$http/metrics" | grep '^beneath_resolver_errors_total')"
echo "ok: no resolver refusal counted"

# ".." after leading slashes still meets the resolver
for proto in h1 h2; do
  expect "$proto" //../secret.txt 403 - -
done
[ "$(resolver_errors)" -gt "$after" ] || fail "//../secret.txt was not a resolver refusal"
grep -q SECRET "$tmp/body" && fail "the secret was served"
echo "ok: //../secret.txt refused by the resolver"
