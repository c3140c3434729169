// SPDX-License-Identifier: MIT
/*
 * test_mime.c - Content-Type by extension: the built-in table, a mime.types
 * file and --mime over it (the file is given here, never the machine's).
 */
#include "cases.h"
#include "check_main.h"
#include "mime.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
    /* what used to go out as application/octet-stream */
    {"subs/en.vtt", "text/vtt; charset=utf-8"},
    {"live/index.m3u8", "application/vnd.apple.mpegurl"},
    {"a.opus", "audio/ogg"},
    {"a.flac", "audio/flac"},
    {"a.jxl", "image/jxl"},
    {"a.apng", "image/apng"},
    {"team.ics", "text/calendar; charset=utf-8"},
    {"book.epub", "application/epub+zip"},
    {"config.yaml", "application/yaml"},
    {".github/ci.yml", "application/yaml"},
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

/* ---- a mime.types file and --mime over the table ---- */

/* A mime.types as Debian's media-types writes it (a part of it). */
static const char types_file[] =
    "# Media (MIME) types and the extensions that represent them.\n"
    "\n"
    "application/epub+zip\t\t\t\tepub\n"
    "application/json\t\t\t\tjson\n"
    "application/json-seq\n"
    "application/sarif+json\t\t\t\tsarif sarif.json\n"
    "application/vnd.apple.mpegurl\t\t\tm3u8\n"
    "audio/flac\t\t\t\t\tflac\n"
    "audio/ogg\t\t\t\t\toga ogg opus spx\n"
    "image/apng\t\t\t\t\tapng\n"
    "image/jxl\t\t\t\t\tjxl\n"
    "image/vnd.microsoft.icon\t\t\tico\n"
    "text/calendar\t\t\t\t\tics ifb\n"
    "text/html\t\t\t\t\thtml htm shtml\n"
    "text/vtt\t\t\t\t\tvtt\n"
    "text/x-c++src\t\t\t\t\tc++ cpp cxx cc\n"
    "application/x-troff-man\t\t\t\tman\n"
    "application/x-yaml\t\t\t\tyaml\n"
    "chemical/x-cif\t\t\t\t\tcif\n"
    "application/vnd.multiad.creator.cif\t\tcif\n";

static const struct text_case mapped[] = {
    {"en.VTT", "text/vtt; charset=utf-8"},
    {"index.m3u8", "application/vnd.apple.mpegurl"},
    {"a.opus", "audio/ogg"},
    {"a.flac", "audio/flac"},
    {"a.jxl", "image/jxl"},
    {"a.apng", "image/apng"},
    {"team.ics", "text/calendar; charset=utf-8"},
    {"book.epub", "application/epub+zip"},
    /* the file's type wins over the table's ... */
    {"favicon.ico", "image/vnd.microsoft.icon"},
    {"config.yaml", "application/x-yaml"},
    /* ... written as the table writes it */
    {"index.html", "text/html; charset=utf-8"},
    {"data.json", "application/json; charset=utf-8"},
    {"a.shtml", "text/html; charset=utf-8"},
    {"main.c++", "text/x-c++src; charset=utf-8"},
    /* the longest extension first */
    {"report.sarif.json", "application/sarif+json"},
    {"x.json", "application/json; charset=utf-8"},
    /* the table where the file says nothing; two lines for one: the last */
    {"style.css", "text/css; charset=utf-8"},
    {"ci.yml", "application/yaml"},
    {"a.cif", "application/vnd.multiad.creator.cif"},
    {"release.bin", "application/octet-stream"},
    {".ics", "application/octet-stream"},
    /* --mime, added after the file, wins over both */
    {"a.flac", "audio/flac"},
    {"notes.txt", "text/plain; charset=iso-8859-1"},
    {"a.webmanifest", "application/manifest+json; charset=utf-8"},
    {"a.b.c.d.e.rst", "text/x-rst; charset=utf-8"},
};

/* The map of types_file with the --mime items of the test. */
static void map_load(struct mime_map *m)
{
    static const char *const items[] = {
        "txt=text/plain; charset=iso-8859-1",
        ".rst=text/x-rst",
        "webmanifest=application/manifest+json",
        "M3U8=application/vnd.apple.mpegurl",
    };
    struct lines_diag d = {0};
    char err[256];

    memset(m, 0, sizeof *m);
    ck_assert_int_eq(
        mime_map_parse(m, types_file, strlen(types_file), "types", &d), 0);
    ck_assert_uint_eq(d.n, 0);
    for (size_t i = 0; i < N_ELEMS(items); i++)
        ck_assert_int_eq(mime_map_add(m, items[i], err, sizeof err), 0);
    mime_map_finish(m);
    lines_diag_free(&d);
}

LOOP_TEST(mapped_case, mapped)
{
    struct mime_map m;

    map_load(&m);
    ck_assert_str_eq(mime_map_type(&m, mapped[_i].in), mapped[_i].want);
    mime_map_free(&m);
}
END_TEST

/* Compressible by the table's row of the extension, else by the type. */
static const struct pred_case map_compressible[] = {
    {"a.vtt", true},   {"a.ics", true},  {"a.c++", true},
    {"a.sarif", true}, {"a.ico", true},  {"a.flac", false},
    {"a.cif", false},  {"a.json", true}, {"a.unknown", false},
};

LOOP_TEST(map_compressible_case, map_compressible)
{
    struct mime_map m;

    map_load(&m);
    ck_assert_int_eq(mime_map_compressible(&m, map_compressible[_i].in),
                     map_compressible[_i].want);
    mime_map_free(&m);
}
END_TEST

/* Bad lines of a file: FILE:LINE, the good lines around them still taken. */
static const struct spec_case bad_files[] = {
    {"text/plain txt\n", NULL},
    {"# only comments\n\n   \n", NULL},
    {"text/vtt vtt # a trailing comment\n", NULL},
    {"text/plain txt\nvtt text/vtt\n",
     "types:2: 'vtt' is not a media type (type/subtype)"},
    {"text/ vtt\n", "types:1: 'text/' is not a media type (type/subtype)"},
    {"te(xt/vtt vtt\n",
     "types:1: 'te(xt/vtt' is not a media type (type/subtype)"},
    {"text/vtt .vtt\n",
     "types:1: '.vtt' is not an extension (letters, digits, '-', '_', '+', "
     "'.' inside; up to 64)"},
    {"text/vtt a/b\n",
     "types:1: 'a/b' is not an extension (letters, digits, '-', '_', '+', "
     "'.' inside; up to 64)"},
    {"text/vtt vtt\0\n", "types:1: NUL byte in line"},
};

LOOP_TEST(bad_file_case, bad_files)
{
    struct mime_map m = {0};
    struct lines_diag d = {0};
    const char *t = bad_files[_i].spec;
    size_t len = strlen(t);

    if (_i == N_ELEMS(bad_files) - 1)
        len += 2; /* the NUL and the newline after it */
    int r = mime_map_parse(&m, t, len, "types", &d);
    cases_check_spec(&bad_files[_i], r, d.n ? d.msgs[0] : "");
    mime_map_free(&m);
    lines_diag_free(&d);
}
END_TEST

/* --mime EXT=TYPE: what is refused, and why. */
static const struct spec_case items[] = {
    {"vtt=text/vtt", NULL},
    {".vtt=text/vtt", NULL},
    {"txt= text/plain; charset=iso-8859-1 ", NULL},
    {"spdx.json=application/spdx+json", NULL},
    {"vtt", "expected EXT=TYPE, as in vtt=text/vtt"},
    {"=text/vtt", "'' is not an extension (letters, digits, '-', '_', '+', "
                  "'.' inside; up to 64)"},
    {"a/b=text/plain", "'a/b' is not an extension (letters, digits, '-', "
                       "'_', '+', '.' inside; up to 64)"},
    {"vtt=", "'' is not a media type (type/subtype, then parameters if any)"},
    {"vtt=text", "'text' is not a media type (type/subtype, then parameters "
                 "if any)"},
    {"vtt=text/vtt; x=\x01",
     "'text/vtt; x=\x01' is not a media type (type/subtype, then parameters "
     "if any)"},
};

LOOP_TEST(item_case, items)
{
    char err[256] = "";
    int r = mime_map_add(NULL, items[_i].spec, err, sizeof err);

    cases_check_spec(&items[_i], r, err);
}
END_TEST

const struct check_main check_main = {
    .suite = "mime",
    .tcases = {{"table", .loops = {LOOP(mime_case), LOOP(compressible_case)}},
               {"map", .loops = {LOOP(mapped_case), LOOP(map_compressible_case),
                                 LOOP(bad_file_case), LOOP(item_case)}}}};
