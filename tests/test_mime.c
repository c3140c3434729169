// SPDX-License-Identifier: MIT
/* test_mime.c - Content-Type by extension. */
#include "cases.h"
#include "check_main.h"
#include "http/mime.h"

#include <stdlib.h>

/* A file name and its Content-Type. */
static const struct text_case cases[] = {
    {"index.html", "text/html; charset=utf-8"},
    {"a/b/INDEX.HTM", "text/html; charset=utf-8"},
    {"style.css", "text/css; charset=utf-8"},
    {"app.js", "text/javascript; charset=utf-8"},
    {"data.json", "application/json; charset=utf-8"},
    {"logo.svg", "image/svg+xml; charset=utf-8"},
    {"notes.txt", "text/plain; charset=utf-8"},
    {"photo.JPG", "image/jpeg"},
    {"img.png", "image/png"},
    {"font.woff2", "font/woff2"},
    {"big.tar.gz", "application/gzip"},
    {"release.bin", "application/octet-stream"},
    {"Makefile", "application/octet-stream"},
    {".htaccess", "application/octet-stream"},
    {"dir.html/file", "application/octet-stream"},
    {"trailing.", "application/octet-stream"},
    {"", "application/octet-stream"},
};

LOOP_TEST(mime_case, cases)
{
    ck_assert_str_eq(mime_type(cases[_i].in), cases[_i].want);
}
END_TEST

/* The table's compressible flag: text yes, compressed formats no. */
static const struct pred_case compressible[] = {
    {"a.html", true},     {"a.CSS", true},  {"a.js", true},
    {"a.json", true},     {"a.svg", true},  {"a.wasm", true},
    {"a.ttf", true},      {"a.png", false}, {"a.woff2", false},
    {"a.gz", false},      {"a.mp4", false}, {"Makefile", false},
    {"a.unknown", false},
};

LOOP_TEST(compressible_case, compressible)
{
    ck_assert_int_eq(mime_compressible(compressible[_i].in),
                     compressible[_i].want);
}
END_TEST

const struct check_main check_main = {
    .suite = "mime",
    .tcases = {{"table", .loops = {LOOP(mime_case), LOOP(compressible_case)}}}};
