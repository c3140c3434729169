#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A POST with a body over HTTP/2, as Debian's curl sends it (the whole body
# before it reads the answer): the 405 with its Allow, curl exiting 0 (not
# error 92, "stream was not closed cleanly"), for bodies of 1 KB, 200 KB
# and 1 MiB, announced or chunked, over https:// (ALPN h2) and by prior
# knowledge; over HTTP/1.1 the same 405. A body over the 1 MiB bound ends
# its stream after the 405 (RST_STREAM NO_ERROR, which this curl reports as
# error 92) and the server goes on serving.
#   h2_post.sh BENEATH_BIN
set -euo pipefail
bin=$1
# shellcheck source=tests/lib/serve.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/serve.sh"
serve_setup beneath-h2-post curl

mkdir "$tmp/www"
echo 'HOME' >"$tmp/www/index.html"
head -c 1000 /dev/urandom >"$tmp/1k"
head -c 204800 /dev/urandom >"$tmp/200k"
head -c 1048576 /dev/urandom >"$tmp/1m"
head -c 3145728 /dev/urandom >"$tmp/3m"

serve_both --access-log off "$tmp/www"

# post HOW BODY [CURL ARGS...]: "EXIT STATUS VERSION ALLOW"
post() {
  local how=$1 body=$2 rc=0 base
  shift 2
  local -a args=(-s -o /dev/null -D "$tmp/head" --max-time 30 --data-binary "@$tmp/$body")
  case $how in
  h2) base=$https args+=(--http2 -k) ;;
  h2c) base=$http args+=(--http2-prior-knowledge) ;;
  h1) base=$http args+=(--http1.1) ;;
  esac
  : >"$tmp/head"
  curl "${args[@]}" "$@" "$base/index.html" -w '%{http_code} %{http_version}' >"$tmp/out" || rc=$?
  echo "$rc $(cat "$tmp/out") $(tr -d '\r' <"$tmp/head" | awk 'tolower($1) == "allow:" { $1 = ""; print }')"
}

for how in h2 h2c h1; do
  for body in 1k 200k 1m; do
    for te in announced chunked; do
      extra=()
      [ "$te" = chunked ] && extra=(-H 'Transfer-Encoding: chunked')
      got=$(post "$how" "$body" "${extra[@]}")
      read -r rc st _ allow <<<"$got"
      [ "$rc" = 0 ] && [ "$st" = 405 ] || fail "$how POST of $body ($te): '$got', want curl exit 0 and 405"
      [ "$allow" = "GET, HEAD, OPTIONS" ] || fail "$how POST of $body ($te): Allow '$allow'"
    done
  done
  echo "ok: $how: POST of 1 KB, 200 KB and 1 MiB bodies: 405, curl exit 0"
done

# over the bound: the stream ends after the 405; the server goes on
got=$(post h2 3m)
read -r rc st _ <<<"$got"
[ "$st" = 405 ] || [ "$rc" = 92 ] || fail "h2 POST of 3 MiB: '$got'"
[ "$(curl -sk --http2 "$https/index.html")" = HOME ] || fail "not served after a 3 MiB POST"
echo "ok: h2: a 3 MiB POST ends its stream (curl exit $rc, status $st), then GET is served"
