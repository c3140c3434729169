// SPDX-License-Identifier: MIT
/*
 * test_mime.c - Content-Type by extension: the built-in table, a mime.types
 * file and --mime over it (the file is given here, never the machine's).
 */
#include "cases.h"
#include "check_main.h"
#include "syntax/mime.h"

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

/* What the map of cases_mime_types and the test's --mime items gives. */
static const struct text_case mapped[] = {
    /* the file's type wins over the table's ... */
    {"favicon.ico", "image/vnd.microsoft.icon"},
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
    {"notes.txt", "text/plain; charset=iso-8859-1"},
    {"a.webmanifest", "application/manifest+json; charset=utf-8"},
    {"a.b.c.d.e.rst", "text/x-rst; charset=utf-8"},
};

/* The map of cases_mime_types with the --mime items of the test. */
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
    ck_assert_int_eq(mime_map_parse(m, cases_mime_types,
                                    strlen(cases_mime_types), "types", &d),
                     0);
    ck_assert_uint_eq(d.n, 0);
    for (size_t i = 0; i < N_ELEMS(items); i++)
        ck_assert_int_eq(mime_map_add(m, items[i], err, sizeof err), 0);
    mime_map_finish(m);
    lines_diag_free(&d);
}

/*
 * The extensions that used to go out as application/octet-stream: with the
 * built-in table alone, and with the map (NULL: the same).
 */
static const struct {
    const char *in, *builtin, *mapped;
} listed[] = {
    {"subs/en.vtt", "text/vtt; charset=utf-8", NULL},
    {"live/index.M3U8", "application/vnd.apple.mpegurl", NULL},
    {"a.opus", "audio/ogg", NULL},
    {"a.flac", "audio/flac", NULL},
    {"a.jxl", "image/jxl", NULL},
    {"a.apng", "image/apng", NULL},
    {"team.ics", "text/calendar; charset=utf-8", NULL},
    {"book.epub", "application/epub+zip", NULL},
    {"config.yaml", "application/yaml", "application/x-yaml"},
    {".github/ci.yml", "application/yaml", NULL},
};

LOOP_TEST(listed_case, listed)
{
    struct mime_map m;

    ck_assert_str_eq(mime_type(listed[_i].in), listed[_i].builtin);
    map_load(&m);
    ck_assert_str_eq(mime_map_type(&m, listed[_i].in),
                     listed[_i].mapped ? listed[_i].mapped
                                       : listed[_i].builtin);
    mime_map_free(&m);
}
END_TEST

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

/* --default-type: the type of names no table knows, and only of those. */
static const struct {
    const char *type, *name, *want;
    bool compress;
} dflt[] = {
    {NULL, "README", "application/octet-stream", false},
    {NULL, "a.unknown", "application/octet-stream", false},
    {"text/plain", "README", "text/plain; charset=utf-8", true},
    {"text/plain", "debian/copyright", "text/plain; charset=utf-8", true},
    {"text/plain", "a.unknown", "text/plain; charset=utf-8", true},
    {"text/plain", "a.png", "image/png", false},
    /* a known extension keeps its type */
    {"text/plain", "notes.txt", "text/plain; charset=iso-8859-1", true},
    {"text/plain", ".ics", "text/plain; charset=utf-8", true},
    {" text/plain; charset=iso-8859-1 ", "README",
     "text/plain; charset=iso-8859-1", true},
    {"application/x-unknown", "README", "application/x-unknown", false},
};

LOOP_TEST(default_case, dflt)
{
    struct mime_map m;
    char err[256] = "";

    map_load(&m);
    if (dflt[_i].type)
        ck_assert_int_eq(mime_map_default(&m, dflt[_i].type, err, sizeof err),
                         0);
    ck_assert_str_eq(mime_map_type(&m, dflt[_i].name), dflt[_i].want);
    ck_assert_int_eq(mime_map_compressible(&m, dflt[_i].name),
                     dflt[_i].compress);
    mime_map_free(&m);
}
END_TEST

static const struct spec_case default_specs[] = {
    {"text/plain", NULL},
    {"text", "'text' is not a media type (type/subtype, then parameters if "
             "any)"},
    {"", "'' is not a media type (type/subtype, then parameters if any)"},
};

LOOP_TEST(default_spec_case, default_specs)
{
    char err[256] = "";
    int r = mime_map_default(NULL, default_specs[_i].spec, err, sizeof err);

    cases_check_spec(&default_specs[_i], r, err);
}
END_TEST

const struct check_main check_main = {
    .suite = "mime",
    .tcases = {
        {"table", .loops = {LOOP(mime_case), LOOP(compressible_case)}},
        {"map", .loops = {LOOP(listed_case), LOOP(mapped_case),
                          LOOP(map_compressible_case), LOOP(bad_file_case),
                          LOOP(item_case), LOOP(default_case),
                          LOOP(default_spec_case)}}}};
