// SPDX-License-Identifier: MIT
/*
 * mime.c - the built-in table of common web types.
 *
 * Types a browser renders as text get charset=utf-8, so a page without a
 * <meta charset> is still decoded right; everything unknown is
 * application/octet-stream (with nosniff, the browser downloads it).
 */
#include "mime.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#define UTF8 "; charset=utf-8"

static const struct {
    const char *ext;
    const char *type;
} mime_table[] = {
    {"html", "text/html" UTF8},
    {"htm", "text/html" UTF8},
    {"css", "text/css" UTF8},
    {"js", "text/javascript" UTF8},
    {"mjs", "text/javascript" UTF8},
    {"json", "application/json" UTF8},
    {"map", "application/json" UTF8},
    {"webmanifest", "application/manifest+json" UTF8},
    {"xml", "application/xml" UTF8},
    {"atom", "application/atom+xml" UTF8},
    {"rss", "application/rss+xml" UTF8},
    {"txt", "text/plain" UTF8},
    {"md", "text/markdown" UTF8},
    {"csv", "text/csv" UTF8},
    {"svg", "image/svg+xml" UTF8},
    {"png", "image/png"},
    {"jpg", "image/jpeg"},
    {"jpeg", "image/jpeg"},
    {"gif", "image/gif"},
    {"webp", "image/webp"},
    {"avif", "image/avif"},
    {"ico", "image/x-icon"},
    {"bmp", "image/bmp"},
    {"woff", "font/woff"},
    {"woff2", "font/woff2"},
    {"ttf", "font/ttf"},
    {"otf", "font/otf"},
    {"wasm", "application/wasm"},
    {"pdf", "application/pdf"},
    {"zip", "application/zip"},
    {"gz", "application/gzip"},
    {"tgz", "application/gzip"},
    {"tar", "application/x-tar"},
    {"xz", "application/x-xz"},
    {"bz2", "application/x-bzip2"},
    {"zst", "application/zstd"},
    {"mp3", "audio/mpeg"},
    {"ogg", "audio/ogg"},
    {"wav", "audio/wav"},
    {"mp4", "video/mp4"},
    {"webm", "video/webm"},
};

const char *mime_type(const char *name)
{
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    const char *dot = strrchr(base, '.');

    if (dot && dot != base)
        for (size_t i = 0; i < sizeof mime_table / sizeof mime_table[0]; i++)
            if (strcasecmp(dot + 1, mime_table[i].ext) == 0)
                return mime_table[i].type;
    return "application/octet-stream";
}
