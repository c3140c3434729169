#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The directory listing in a real browser (Debian's `chromium`, headless),
# as tests/docs/chromium.sh does for the sample site. Checks:
#   1. the DOM: title, one row per entry, the name with <, &, quotes shown as
#      text (no element made of it), the order asked for by ?sort=size&
#      order=desc with the folder first, and no script anywhere;
#   2. screenshots that are not blank: pixels other than the background on
#      the page (a blank page of the same size has none), at desktop and at
#      phone size (390x844);
#   3. light and dark: the page's mean luminance is light by default and
#      dark with the system in dark mode (--force-dark-mode, which is what
#      prefers-color-scheme reads).
#   listing_chromium.sh BENEATH_BIN
# SHOT_DIR, when set, keeps the phone screenshot there. Exit 77 (skipped)
# when chromium or python3 is missing.
set -euo pipefail
bin=$1
# shellcheck source=tests/lib/chromium.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/chromium.sh"
chromium_setup beneath-listing-chromium python3

# The directory: sizes that sort differently from the names, a
# subdirectory, and names that need escaping (one not UTF-8).
mkdir -p "$tmp/www/d/sub"
head -c 3000000 /dev/zero >"$tmp/www/d/a-big.bin"
head -c 10 /dev/zero >"$tmp/www/d/b-small.txt"
head -c 40000 /dev/zero >"$tmp/www/d/c-middle.css"
printf x >"$tmp/www/d/<b>&\"q'.txt"
printf x >"$tmp/www/d/$(printf 'bad\xff.txt')"

serve --listing on --access-log off "$tmp/www"

# 1. The DOM.
chrome --window-size=1024,768 --dump-dom "$url/d/?sort=size&order=desc" >"$tmp/dom.html" ||
  fail "chromium --dump-dom failed: $(tail -5 "$tmp/chromium.log")"
grep -q '<title>Index of /d/</title>' "$tmp/dom.html" || fail "no title in the DOM"
rows=$(grep -o '<tr>' "$tmp/dom.html" | wc -l)
[ "$rows" = 8 ] || fail "$rows rows, want 8 (header, ../, 6 entries)"
grep -q "&lt;b&gt;&amp;\"q'.txt</a>" "$tmp/dom.html" ||
  fail "the name <b>&\"q'.txt is not shown as text: $(grep -o '<a[^>]*q[^<]*</a>' "$tmp/dom.html")"
! grep -q '<b>' "$tmp/dom.html" || fail "a <b> element was made of a file name"
! grep -qi '<script' "$tmp/dom.html" || fail "a script in the listing"
grep -q "bad$(printf '\xef\xbf\xbd').txt</a>" "$tmp/dom.html" ||
  fail "the name that is not UTF-8 is not shown with U+FFFD"
order=$(grep -o 'href="\./[^"]*"' "$tmp/dom.html" | sed 's/href="\.\///; s/"$//' | tr '\n' ' ')
case $order in
"sub/ a-big.bin c-middle.css b-small.txt "*) ;;
*) fail "?sort=size&order=desc: order $order" ;;
esac
echo "ok: DOM (8 rows, escaped names, folders first, by size descending: $order)"

# 2 and 3. Screenshots: not blank, light and dark.
png_stats() { # PNG -> "WIDTH HEIGHT MEAN_LUMINANCE FRACTION_NOT_BACKGROUND"
  python3 - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6) and interlace == 0, "unexpected PNG form"
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, i = bytearray(stride), [], 0
for _ in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
bg = tuple(rows[0][0:3])
total = other = 0
lum = 0.0
for line in rows:
    for x in range(0, stride, bpp):
        px = tuple(line[x:x + 3])
        lum += 0.2126 * px[0] + 0.7152 * px[1] + 0.0722 * px[2]
        other += px != bg
        total += 1
print(w, h, round(lum / total), "%.4f" % (other / total))
PY
}
shot() { # NAME SIZE [FLAGS...] URL
  local name=$1 size=$2
  shift 2
  (cd "$tmp" && chrome --window-size="$size" --hide-scrollbars --screenshot="$tmp/$name.png" "$@") ||
    fail "screenshot $name failed: $(tail -5 "$tmp/chromium.log")"
  png_stats "$tmp/$name.png"
}
read -r w h lum ink <<<"$(shot blank 1024,768 'data:text/html,<title>x</title>')"
awk -v i="$ink" 'BEGIN { exit !(i == 0) }' || fail "the empty page has ink ($ink): the check cannot tell"
read -r w h lum ink <<<"$(shot light 1024,768 "$url/d/")"
echo "light: ${w}x$h, mean luminance $lum, $ink of the pixels not background"
awk -v i="$ink" 'BEGIN { exit !(i > 0.005) }' || fail "light screenshot looks blank ($ink)"
[ "$lum" -gt 180 ] || fail "light page is not light (mean luminance $lum)"
read -r w h lum ink <<<"$(shot dark 1024,768 --force-dark-mode "$url/d/")"
echo "dark: ${w}x$h, mean luminance $lum, $ink of the pixels not background"
awk -v i="$ink" 'BEGIN { exit !(i > 0.005) }' || fail "dark screenshot looks blank ($ink)"
[ "$lum" -lt 70 ] || fail "dark mode page is not dark (mean luminance $lum)"
read -r w h lum ink <<<"$(shot phone 390,844 "$url/d/")"
echo "phone: ${w}x$h, mean luminance $lum, $ink of the pixels not background"
[ "$w" = 390 ] || fail "phone screenshot is $w wide"
awk -v i="$ink" 'BEGIN { exit !(i > 0.005) }' || fail "phone screenshot looks blank ($ink)"
cp "$tmp/phone.png" "${SHOT_DIR:-$tmp}/" 2>/dev/null || true
echo "ok: the listing rendered in headless Chromium (light, dark, phone)"
