#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The first request after a start gets a compressible file compressed: a
# 700 KB HTML page and a 1.7 MB script (whose content hash is still being
# computed), a 100 KB stylesheet (hashed at once), each asked for with
# "Accept-Encoding: gzip, br, zstd" by curl on a fresh server, over
# HTTP/1.1, HTTP/1.1 over TLS, HTTP/2 over TLS and HTTP/2 by prior
# knowledge: Content-Encoding present, no Content-Length (the body is coded
# as it is sent), the body decodes to the file's bytes. Then, on one
# server: a cold HEAD has no Content-Length (HTTP/1.1 closes after it); a
# cold Range request is the identity's 206; the body once kept
# (Content-Length) is byte for byte the one sent while coding, under the
# same ETag, which is not the identity's; a cold If-None-Match naming the
# variant's tag is a 304 without Content-Length; gzip and br decode too.
#   cold_compress.sh BENEATH_BIN
set -euo pipefail
bin=$1
# shellcheck source=tests/lib/serve.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/serve.sh"
serve_setup beneath-cold curl gzip brotli zstd python3

# text a browser would get: words and markup, compressible, not repetitive
mkdir "$tmp/www"
words() { # BYTES FILE
  awk -v n="$1" 'BEGIN { srand(11); split("div span class=\"nav\" function return var const let if else for while <p> </p> <a href=\"/x\"> </a> the of and to in", w, " ");
    while (s < n) { t = w[int(rand() * 22) + 1] " "; if (rand() < 0.1) t = t int(rand() * 100000) "\n"; printf "%s", t; s += length(t) } }' >"$2"
  truncate -s "$1" "$2"
}
words 716800 "$tmp/www/page.html"
words 1782579 "$tmp/www/app.js"
words 102400 "$tmp/www/style.css"
files="page.html app.js style.css"

start() { serve_both --access-log off "$@" "$tmp/www"; }
stop() { serve_stop; }

# get PROTO PATH OUT [CURL ARGS...]: the raw body in OUT, the head in OUT.h
get() {
  local proto=$1 path=$2 out=$3 base
  shift 3
  local -a how=(-s -o "$out" -D "$out.h" --max-time 30)
  case $proto in
  h1) base=$http how+=(--http1.1) ;;
  tls) base=$https how+=(--http1.1 -k) ;;
  h2) base=$https how+=(--http2 -k) ;;
  h2c) base=$http how+=(--http2-prior-knowledge) ;;
  esac
  curl "${how[@]}" "$@" "$base$path" || fail "$proto $path: curl exit $?"
  tr -d '\r' <"$out.h" >"$out.hh"
}
field() { awk -v n="$(tr 'A-Z' 'a-z' <<<"$1")" 'tolower($1) == n ":" { print $2 }' "$2.hh"; }
status() { awk 'NR == 1 { print $2 }' "$1.hh"; }

# decoded CODING FILE: the bytes of FILE decoded by the coding's own tool
decoded() {
  case $1 in
  gzip) gzip -dc "$2" ;;
  br) brotli -dc "$2" ;;
  zstd) zstd -qdc "$2" ;;
  *) cat "$2" ;;
  esac
}

# expect_coded PROTO FILE CODING OUT: a 200 coded with CODING, sent as made
expect_coded() {
  local proto=$1 f=$2 coding=$3 out=$4
  [ "$(status "$out")" = 200 ] || fail "$proto /$f: $(head -1 "$out.hh")"
  [ "$(field Content-Encoding "$out")" = "$coding" ] ||
    fail "$proto /$f: Content-Encoding '$(field Content-Encoding "$out")', want $coding"
  [ -z "$(field Content-Length "$out")" ] ||
    fail "$proto /$f: Content-Length $(field Content-Length "$out") on a body coded as it is sent"
  decoded "$coding" "$out" | cmp -s - "$tmp/www/$f" || fail "$proto /$f: the body does not decode to the file"
}

ae='Accept-Encoding: gzip, br, zstd'
for proto in h1 tls h2 h2c; do
  start --compress zstd,br,gzip
  for f in $files; do
    get "$proto" "/$f" "$tmp/b" -H "$ae"
    expect_coded "$proto" "$f" zstd "$tmp/b"
  done
  stop
  echo "ok: $proto: the first request of each file after a start is zstd, $(wc -c <"$tmp/b") bytes for $(wc -c <"$tmp/www/style.css")"
done

# the default coding, gzip, and brotli, cold
for c in gzip br; do
  start --compress "$c"
  get h1 /app.js "$tmp/b" -H "$ae"
  expect_coded h1 app.js "$c" "$tmp/b"
  stop
done
echo "ok: gzip and br too"

start --compress zstd,br,gzip
# Range, cold (the first request of the file: its hash is still being made,
# no body is queued): the identity's bytes
get h1 /page.html "$tmp/r" -H "$ae" -H 'Range: bytes=0-99'
grep -qi '^content-range: bytes 0-99/716800$' "$tmp/r.hh" && [ "$(status "$tmp/r")" = 206 ] &&
  [ -z "$(field Content-Encoding "$tmp/r")" ] || fail "cold Range: $(cat "$tmp/r.hh")"
head -c 100 "$tmp/www/page.html" | cmp -s - "$tmp/r" || fail "cold Range: not the file's bytes"
# HEAD first: no length, no chunks; HTTP/1.1 closes after it
get h1 /page.html "$tmp/head" -I -H "$ae"
[ "$(field Content-Encoding "$tmp/head")" = zstd ] && [ -z "$(field Content-Length "$tmp/head")" ] &&
  [ -z "$(field Transfer-Encoding "$tmp/head")" ] && [ "$(field Connection "$tmp/head")" = close ] ||
  fail "cold HEAD: $(cat "$tmp/head.hh")"
get h2 /app.js "$tmp/head2" -I -H "$ae"
[ "$(field Content-Encoding "$tmp/head2")" = zstd ] && [ -z "$(field Content-Length "$tmp/head2")" ] ||
  fail "cold HEAD over h2: $(cat "$tmp/head2.hh")"
# the coded body while coding, then once kept: the same bytes, the same tag
get h1 /style.css "$tmp/s1" -H "$ae"
expect_coded h1 style.css zstd "$tmp/s1"
streamed_tag=$(field ETag "$tmp/s1")
for _ in $(seq 100); do
  get h1 /style.css "$tmp/s2" -H "$ae"
  [ -n "$(field Content-Length "$tmp/s2")" ] && break
  sleep 0.1
done
[ -n "$(field Content-Length "$tmp/s2")" ] || fail "the coded body was never kept"
cmp -s "$tmp/s1" "$tmp/s2" || fail "the body sent while coding differs from the one kept"
[ "$streamed_tag" = "$(field ETag "$tmp/s2")" ] && [ -n "$streamed_tag" ] ||
  fail "tags: '$streamed_tag' while coding, '$(field ETag "$tmp/s2")' kept"
get h1 /style.css "$tmp/i"
identity=$(field ETag "$tmp/i")
[ -n "$identity" ] && [ "$identity" != "$streamed_tag" ] ||
  fail "the variant's tag $streamed_tag is the identity's $identity"
echo "ok: HEAD, Range and ETag while coding; the kept body is the bytes sent while coding"
stop

# a cold If-None-Match naming the variant's tag: 304, no length
tag=$(python3 -c 'import base64, hashlib, sys
d = hashlib.sha256(open(sys.argv[1], "rb").read()).digest()[:16]
print(base64.urlsafe_b64encode(d).decode().rstrip("="))' "$tmp/www/app.js")
start --compress zstd,br,gzip
get h1 /app.js "$tmp/n" -H "$ae" -H "If-None-Match: \"$tag-zstd\""
[ "$(status "$tmp/n")" = 304 ] && [ -z "$(field Content-Length "$tmp/n")" ] &&
  [ -z "$(field Transfer-Encoding "$tmp/n")" ] && [ ! -s "$tmp/n" ] ||
  fail "cold If-None-Match: $(cat "$tmp/n.hh")"
get h2 /page.html "$tmp/n2" -H "$ae" -H "If-None-Match: \"x\""
expect_coded h2 page.html zstd "$tmp/n2"
stop
echo "ok: a cold 304 of the coded body has no Content-Length"
