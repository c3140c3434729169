// SPDX-License-Identifier: MIT
/*
 * mime.c - the built-in table of common web types, and the map a
 * configuration adds over it (mime.types files, --mime).
 *
 * Types a browser renders as text get charset=utf-8, so a page without a
 * <meta charset> is still decoded right; everything unknown is
 * application/octet-stream (with nosniff, the browser downloads it).
 * The map is a sorted array searched by bisection: a name costs at most one
 * search per extension it has (four at the most), and nothing is allocated
 * per request.
 */
#include "syntax/mime.h"

#include "syntax/errbuf.h"
#include "syntax/text.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
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
    /* subtitles, streaming, audio, images, calendars, books, config */
    {"vtt", "text/vtt" UTF8, C},
    {"m3u8", "application/vnd.apple.mpegurl", C},
    {"opus", "audio/ogg", N},
    {"flac", "audio/flac", N},
    {"jxl", "image/jxl", N},
    {"apng", "image/apng", N},
    {"ics", "text/calendar" UTF8, C},
    {"epub", "application/epub+zip", N},
    {"yaml", "application/yaml", C},
    {"yml", "application/yaml", C},
};

#define N_ROWS (sizeof mime_table / sizeof mime_table[0])

/* The built-in row of extension @ext, or -1. */
static int builtin_row(const char *ext)
{
    for (size_t i = 0; ext && i < N_ROWS; i++)
        if (strcasecmp(ext, mime_table[i].ext) == 0)
            return (int)i;
    return -1;
}

/* Extensions of a name tried at most: the last ones, longest first. */
#define MIME_TRIES 4

/*
 * The extensions of @name's base name into @ext (each after its dot, the
 * longest first, at most MIME_TRIES); a leading dot starts none. Returns
 * how many.
 */
static size_t extensions(const char *name, const char *ext[MIME_TRIES])
{
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    size_t n = 0;

    for (const char *p = base + (base[0] != '\0'); (p = strchr(p, '.')); p++) {
        if (p[1] == '\0')
            break;
        if (n == MIME_TRIES) {
            memmove(ext, ext + 1, (MIME_TRIES - 1) * sizeof *ext);
            n--;
        }
        ext[n++] = p + 1;
    }
    return n;
}

static const struct mime_entry *find(const struct mime_map *m, const char *ext)
{
    size_t lo = 0, hi = m->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcasecmp(ext, m->v[mid].ext);

        if (c == 0)
            return &m->v[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* @name's entry in @m, or NULL; *@last gets its last extension (or NULL). */
static const struct mime_entry *lookup(const struct mime_map *m,
                                       const char *name, const char **last)
{
    const char *ext[MIME_TRIES];
    size_t n = extensions(name, ext);

    *last = n ? ext[n - 1] : NULL;
    for (size_t i = 0; m && m->sorted && i < n; i++) {
        const struct mime_entry *e = find(m, ext[i]);

        if (e)
            return e;
    }
    return NULL;
}

/* @name's entry in @m into *@e, else (*@e NULL) its built-in row or -1. */
static int resolve(const struct mime_map *m, const char *name,
                   const struct mime_entry **e)
{
    const char *last;

    *e = lookup(m, name, &last);
    return *e ? -1 : builtin_row(last);
}

const char *mime_map_type(const struct mime_map *m, const char *name)
{
    const struct mime_entry *e;
    int i = resolve(m, name, &e);

    if (e)
        return e->type;
    if (i >= 0)
        return mime_table[i].type;
    return m && m->dflt ? m->dflt : MIME_DEFAULT_TYPE;
}

bool mime_map_compressible(const struct mime_map *m, const char *name)
{
    const struct mime_entry *e;
    int i = resolve(m, name, &e);

    if (e)
        return e->compress;
    return i >= 0 ? mime_table[i].compress : m && m->dflt && m->dflt_compress;
}

const char *mime_type(const char *name)
{
    return mime_map_type(NULL, name);
}

bool mime_compressible(const char *name)
{
    return mime_map_compressible(NULL, name);
}

/* ---- the map: what a configuration adds ---- */

static bool ends(const char *s, size_t len, const char *suffix)
{
    size_t k = strlen(suffix);

    return len >= k && strncasecmp(s + len - k, suffix, k) == 0;
}

/* "type/subtype" of tokens, @len bytes at @s. */
static bool is_media_type(const char *s, size_t len)
{
    const char *slash = memchr(s, '/', len);

    if (!slash || slash == s || slash == s + len - 1)
        return false;
    for (size_t i = 0; i < len; i++)
        if (s + i != slash && !text_is_tchar((unsigned char)s[i]))
            return false;
    return true;
}

static bool is_ext(const char *s, size_t len)
{
    if (len == 0 || len > MIME_EXT_MAX || s[0] == '.' || s[len - 1] == '.')
        return false;
    for (size_t i = 0; i < len; i++)
        if (!text_is_tchar((unsigned char)s[i]))
            return false;
    return true;
}

/* @len bytes of @s, which need not be a string (a file's text), as one. */
static char *copy(const char *s, size_t len)
{
    char *out = malloc(len + 1);

    if (out) {
        memcpy(out, s, len);
        out[len] = '\0';
    }
    return out;
}

/* The Content-Type kept for @type (@len bytes), written as the table does;
 * NULL when out of memory. */
static char *content_type(const char *type, size_t len)
{
    char *out = NULL;

    if (memchr(type, ';', len))
        return copy(type, len);
    for (size_t i = 0; i < N_ROWS; i++) {
        const char *t = mime_table[i].type;

        if (strncasecmp(t, type, len) == 0 && (t[len] == '\0' || t[len] == ';'))
            return strdup(t);
    }
    if (len > 5 && strncasecmp(type, "text/", 5) == 0)
        return asprintf(&out, "%.*s" UTF8, (int)len, type) < 0 ? NULL : out;
    return copy(type, len);
}

/* Worth compressing: the table's row of @ext, else by the type. */
static bool compressible(const char *ext, const char *type)
{
    int i = builtin_row(ext);
    size_t len = strcspn(type, ";");

    while (len > 0 && (type[len - 1] == ' ' || type[len - 1] == '\t'))
        len--;
    if (i >= 0)
        return mime_table[i].compress;
    return strncasecmp(type, "text/", 5) == 0 || ends(type, len, "+json") ||
           ends(type, len, "+xml") ||
           (len == 16 && strncasecmp(type, "application/json", len) == 0) ||
           (len == 15 && strncasecmp(type, "application/xml", len) == 0);
}

static int push(struct mime_map *m, const char *ext, size_t elen,
                const char *type, size_t tlen)
{
    struct mime_entry e = {.seq = m->added};

    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        struct mime_entry *v = realloc(m->v, cap * sizeof *v);

        if (!v)
            return -ENOMEM;
        m->v = v;
        m->cap = cap;
    }
    e.ext = copy(ext, elen);
    e.type = content_type(type, tlen);
    if (!e.ext || !e.type) {
        free(e.ext);
        free(e.type);
        return -ENOMEM;
    }
    for (char *p = e.ext; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    e.compress = compressible(e.ext, e.type);
    m->v[m->n++] = e;
    m->added++;
    m->sorted = false;
    return 0;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* One line "type ext ext ...": 0, -EINVAL (a message added) or -ENOMEM. */
static int parse_line(struct mime_map *m, const char *line, size_t len,
                      const char *name, unsigned lineno, struct lines_diag *d)
{
    size_t i = 0, tlen;
    const char *type;

    while (i < len && is_space(line[i]))
        i++;
    type = line + i;
    while (i < len && !is_space(line[i]))
        i++;
    tlen = (size_t)(line + i - type);
    if (!is_media_type(type, tlen) || tlen > MIME_TYPE_MAX) {
        lines_diag_add(d, name, lineno,
                       "'%.*s' is not a media type "
                       "(type/subtype)",
                       (int)(tlen > 64 ? 64 : tlen), type);
        return -EINVAL;
    }
    for (;;) {
        while (i < len && is_space(line[i]))
            i++;
        if (i == len || line[i] == '#')
            return 0;
        const char *ext = line + i;
        while (i < len && !is_space(line[i]))
            i++;
        size_t elen = (size_t)(line + i - ext);
        if (!is_ext(ext, elen)) {
            lines_diag_add(d, name, lineno,
                           "'%.*s' is not an extension (letters, digits, "
                           "'-', '_', '+', '.' inside; up to %d)",
                           (int)(elen > 64 ? 64 : elen), ext, MIME_EXT_MAX);
            return -EINVAL;
        }
        int r = push(m, ext, elen, type, tlen);
        if (r < 0)
            return r;
    }
}

int mime_map_parse(struct mime_map *m, const char *text, size_t len,
                   const char *name, struct lines_diag *d)
{
    const struct lines_how how = {8192, false, name, d};
    size_t before = lines_diag_count(d), n, skip;
    struct lines l;
    const char *line;

    lines_init(&l, text, len);
    while (lines_entry(&l, &how, &line, &n, &skip))
        if (parse_line(m, line, n, name, l.lineno, d) == -ENOMEM)
            return -ENOMEM;
    return lines_diag_verdict(d, before);
}

/*
 * @type (a value of --mime or --default-type, spaces around it dropped):
 * "type/subtype", then parameters if any. Its start and length go to
 * @start and @len; 0, or -EINVAL with the reason in @err.
 */
static int check_type(const char *type, const char **start, size_t *len,
                      char *err, size_t size)
{
    const char *end = type + strlen(type);

    text_trim(&type, &end);
    size_t tlen = (size_t)(end - type), base = strcspn(type, ";");
    while (base > 0 && is_space(type[base - 1]))
        base--;
    if (!is_media_type(type, base) || tlen > MIME_TYPE_MAX ||
        text_has_ctl(type, tlen)) {
        errbuf_say(err, size,
                   "'%.*s' is not a media type (type/subtype, then "
                   "parameters if any)",
                   (int)(tlen > 64 ? 64 : tlen), type);
        return -EINVAL;
    }
    *start = type;
    *len = tlen;
    return 0;
}

int mime_map_default(struct mime_map *m, const char *type, char *err,
                     size_t size)
{
    const char *t;
    size_t len;
    char *v;

    if (check_type(type, &t, &len, err, size) != 0)
        return -EINVAL;
    if (!m)
        return 0;
    if (!(v = content_type(t, len)))
        return -ENOMEM;
    free(m->dflt);
    m->dflt = v;
    m->dflt_compress = compressible(NULL, v);
    return 0;
}

int mime_map_add(struct mime_map *m, const char *spec, char *err, size_t size)
{
    const char *eq = strchr(spec, '='), *ext = spec, *type;
    size_t tlen;

    if (!eq) {
        errbuf_say(err, size, "expected EXT=TYPE, as in vtt=text/vtt");
        return -EINVAL;
    }
    if (*ext == '.')
        ext++;
    if (!is_ext(ext, (size_t)(eq - ext))) {
        errbuf_say(err, size,
                   "'%.*s' is not an extension (letters, digits, '-', '_', "
                   "'+', '.' inside; up to %d)",
                   (int)(eq - ext > 64 ? 64 : eq - ext), ext, MIME_EXT_MAX);
        return -EINVAL;
    }
    if (check_type(eq + 1, &type, &tlen, err, size) != 0)
        return -EINVAL;
    return m ? push(m, ext, (size_t)(eq - ext), type, tlen) : 0;
}

/* By extension, then in the order of addition. */
static int by_ext(const void *a, const void *b)
{
    const struct mime_entry *x = a, *y = b;
    int c = strcmp(x->ext, y->ext);

    if (c)
        return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void mime_map_finish(struct mime_map *m)
{
    size_t w = 0;

    if (m->n > 1)
        qsort(m->v, m->n, sizeof *m->v, by_ext);
    /* of the entries of one extension, the last added stays */
    for (size_t i = 0; i < m->n; i++) {
        if (i + 1 < m->n && strcmp(m->v[i].ext, m->v[i + 1].ext) == 0) {
            free(m->v[i].ext);
            free(m->v[i].type);
            continue;
        }
        m->v[w++] = m->v[i];
    }
    m->n = w;
    m->sorted = true;
}

void mime_map_free(struct mime_map *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].ext);
        free(m->v[i].type);
    }
    free(m->v);
    free(m->dflt);
    memset(m, 0, sizeof *m);
}
