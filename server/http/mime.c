// SPDX-License-Identifier: MIT
/*
 * mime.c - the built-in table of common web types.
 *
 * Types a browser renders as text get charset=utf-8, so a page without a
 * <meta charset> is still decoded right; everything unknown is
 * application/octet-stream (with nosniff, the browser downloads it).
 */
#include "http/mime.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#define UTF8 "; charset=utf-8"

/*
 * C: worth compressing on the fly (text, JSON/XML/JavaScript, SVG, wasm,
 * uncompressed fonts and bitmaps); N: compressed formats already.
 */
#define C true
#define N false

static const struct {
    const char *ext;
    const char *type;
    bool compress;
} mime_table[] = {
    {"html", "text/html" UTF8, C},
    {"htm", "text/html" UTF8, C},
    {"css", "text/css" UTF8, C},
    {"js", "text/javascript" UTF8, C},
    {"mjs", "text/javascript" UTF8, C},
    {"json", "application/json" UTF8, C},
    {"map", "application/json" UTF8, C},
    {"webmanifest", "application/manifest+json" UTF8, C},
    {"xml", "application/xml" UTF8, C},
    {"atom", "application/atom+xml" UTF8, C},
    {"rss", "application/rss+xml" UTF8, C},
    {"txt", "text/plain" UTF8, C},
    {"md", "text/markdown" UTF8, C},
    {"csv", "text/csv" UTF8, C},
    {"svg", "image/svg+xml" UTF8, C},
    {"png", "image/png", N},
    {"jpg", "image/jpeg", N},
    {"jpeg", "image/jpeg", N},
    {"gif", "image/gif", N},
    {"webp", "image/webp", N},
    {"avif", "image/avif", N},
    {"ico", "image/x-icon", C},
    {"bmp", "image/bmp", C},
    {"woff", "font/woff", N},
    {"woff2", "font/woff2", N},
    {"ttf", "font/ttf", C},
    {"otf", "font/otf", C},
    {"wasm", "application/wasm", C},
    {"pdf", "application/pdf", N},
    {"zip", "application/zip", N},
    {"gz", "application/gzip", N},
    {"tgz", "application/gzip", N},
    {"tar", "application/x-tar", N},
    {"xz", "application/x-xz", N},
    {"bz2", "application/x-bzip2", N},
    {"zst", "application/zstd", N},
    {"mp3", "audio/mpeg", N},
    {"ogg", "audio/ogg", N},
    {"wav", "audio/wav", N},
    {"mp4", "video/mp4", N},
    {"webm", "video/webm", N},
};

/* The row of @name's last extension, or -1. */
static int row(const char *name)
{
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    const char *dot = strrchr(base, '.');

    if (dot && dot != base)
        for (size_t i = 0; i < sizeof mime_table / sizeof mime_table[0]; i++)
            if (strcasecmp(dot + 1, mime_table[i].ext) == 0)
                return (int)i;
    return -1;
}

const char *mime_type(const char *name)
{
    int i = row(name);

    return i < 0 ? "application/octet-stream" : mime_table[i].type;
}

bool mime_compressible(const char *name)
{
    int i = row(name);

    return i >= 0 && mime_table[i].compress;
}
