// SPDX-License-Identifier: MIT
/*
 * listing.c - directory listing: entries from an fd, their order, HTML.
 *
 * The directory fd was opened by the confined resolver; entries are only
 * fstatat'ed relative to it without following symlinks, so a listing never
 * reveals anything about a link's target. Everything a name contributes to
 * the page is escaped for where it goes: text and attributes get HTML
 * entities (and U+FFFD for bytes that are not UTF-8 or are control bytes),
 * links get every byte but RFC 3986's unreserved ones percent-encoded.
 */
#include "files/listing.h"

#include "http/utf8.h"
#include "syntax/urlpath.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int by_name(const void *a, const void *b)
{
    const struct listing_entry *x = a, *y = b;

    return strcmp(x->name, y->name);
}

int listing_collect(int dir_fd, bool dotfiles, struct listing *out)
{
    return listing_collect_max(dir_fd, dotfiles, LISTING_MAX, out);
}

int listing_collect_max(int dir_fd, bool dotfiles, size_t max,
                        struct listing *out)
{
    return listing_collect_keep(dir_fd, dotfiles, max, NULL, NULL, out);
}

int listing_collect_keep(int dir_fd, bool dotfiles, size_t max,
                         listing_keep_fn *keep, void *arg, struct listing *out)
{
    int err = 0;
    size_t cap = 0, examined = 0;
    DIR *d = NULL;

    out->v = NULL;
    out->n = 0;
    out->total = 0;
    /* fdopendir takes the fd: give it a dup so the caller keeps @dir_fd. */
    int fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    d = fdopendir(fd);
    if (!d) {
        err = -errno;
        close(fd);
        return err;
    }
    /* from here on the fd is owned by d */
    /* A dup shares the file offset: start from the beginning. */
    rewinddir(d);
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(d);
        if (!de) {
            err = -errno;
            break;
        }
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        if (name[0] == '.' && !dotfiles)
            continue;
        /* past the bound: counted, not examined (hidden ones included, so
         * the bound holds for fstatat calls too) */
        if (examined >= max) {
            out->total += !keep || keep(arg, name, de->d_type == DT_DIR, NULL);
            continue;
        }
        struct stat st;
        bool known = fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) == 0;
        examined++;
        if (keep &&
            !keep(arg, name, known && S_ISDIR(st.st_mode), known ? &st : NULL))
            continue;
        out->total++;
        if (out->n == cap) {
            size_t ncap = cap ? cap * 2 : 32;
            struct listing_entry *nv = realloc(out->v, ncap * sizeof *nv);
            if (!nv) {
                err = -ENOMEM;
                break;
            }
            out->v = nv;
            cap = ncap;
        }
        struct listing_entry *e = &out->v[out->n];
        e->name = strdup(name);
        if (!e->name) {
            err = -ENOMEM;
            break;
        }
        out->n++;
        e->kind = LISTING_OTHER;
        e->size = 0;
        e->mtime = 0;
        if (known) {
            if (S_ISREG(st.st_mode))
                e->kind = LISTING_FILE;
            else if (S_ISDIR(st.st_mode))
                e->kind = LISTING_DIR;
            e->size = e->kind == LISTING_FILE ? (uint64_t)st.st_size : 0;
            e->mtime = st.st_mtim.tv_sec;
        }
    }
    closedir(d);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, by_name);
    return err;
}

void listing_free(struct listing *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].name);
    free(l->v);
    l->v = NULL;
    l->n = 0;
    l->total = 0;
}

void listing_order_from(const char *sort, const char *order,
                        struct listing_order *o)
{
    o->key = LISTING_BY_NAME;
    o->desc = false;
    if (sort && strcmp(sort, "size") == 0)
        o->key = LISTING_BY_SIZE;
    else if (sort && strcmp(sort, "time") == 0)
        o->key = LISTING_BY_TIME;
    if (order && strcmp(order, "desc") == 0)
        o->desc = true;
}

/*
 * @arg's order (a struct listing_order): folders first whatever the order
 * (as every peer lists them), then by its key, reversed by desc, and
 * entries equal in size or time by name, ascending.
 */
static int by_order(const void *a, const void *b, void *arg)
{
    const struct listing_order *o = arg;
    const struct listing_entry *x = a, *y = b;
    bool xd = x->kind == LISTING_DIR, yd = y->kind == LISTING_DIR;
    int c = 0;

    if (xd != yd)
        return xd ? -1 : 1;
    if (o->key == LISTING_BY_SIZE && x->size != y->size)
        c = x->size < y->size ? -1 : 1;
    else if (o->key == LISTING_BY_TIME && x->mtime != y->mtime)
        c = x->mtime < y->mtime ? -1 : 1;
    else if (o->key == LISTING_BY_NAME)
        c = strcmp(x->name, y->name);
    if (c)
        return o->desc ? -c : c;
    return strcmp(x->name, y->name);
}

void listing_sort(struct listing *l, const struct listing_order *o)
{
    struct listing_order order = *o;

    if (l->n > 1)
        qsort_r(l->v, l->n, sizeof *l->v, by_order, &order);
}

void listing_human_size(uint64_t n, char out[LISTING_HUMAN_LEN])
{
    static const char *const unit[] = {"KiB", "MiB", "GiB",
                                       "TiB", "PiB", "EiB"};
    const size_t units = sizeof unit / sizeof unit[0];

    if (n < 1024) {
        snprintf(out, LISTING_HUMAN_LEN, "%u B", (unsigned)n);
        return;
    }
    for (size_t k = 0; k < units; k++) {
        /* u = 1024^(k+1) <= 2^60: r * 10 + u cannot overflow */
        uint64_t u = (uint64_t)1 << (10 * (k + 1));
        uint64_t q = n / u, r = n % u;
        uint64_t whole = q + (r != 0);

        if (q < 10) {
            uint64_t tenths = q * 10 + (r * 10 + u - 1) / u;
            if (tenths < 100) {
                snprintf(out, LISTING_HUMAN_LEN, "%u.%u %s",
                         (unsigned)(tenths / 10), (unsigned)(tenths % 10),
                         unit[k]);
                return;
            }
        }
        /* whole <= 1024, or 16 in EiB */
        if (whole < 1024 || k + 1 == units) {
            snprintf(out, LISTING_HUMAN_LEN, "%u %s", (unsigned)whole, unit[k]);
            return;
        }
    }
}

/* The characters written as an entity in text and attribute values. */
static const char *const entity[0x80] = {
    ['&'] = "&amp;",  ['<'] = "&lt;",   ['>'] = "&gt;",
    ['"'] = "&quot;", ['\''] = "&#39;",
};

/* Text or an attribute value: entities; U+FFFD for bad or control bytes. */
static void html_escape(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;

    while (*s) {
        size_t n = utf8_len(s);

        if (n == 0 || *s < 0x20 || *s == 0x7f) {
            fputs("\xef\xbf\xbd", f);
            s++;
            continue;
        }
        if (n == 1 && entity[*s])
            fputs(entity[*s], f);
        else
            fwrite(s, 1, n, f);
        s += n;
    }
}

/* Percent-encode everything but unreserved characters (RFC 3986 2.3). */
static void url_escape(FILE *f, const char *s)
{
    char enc[3];

    for (; *s; s++)
        fwrite(enc, 1, urlpath_encode_byte((unsigned char)*s, enc), f);
}

/*
 * Inline style: no external request, no script. Colours from the system
 * (prefers-color-scheme); the time column gives way on narrow screens.
 */
static const char style[] =
    "<style>\n"
    ":root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;"
    "--line:#d1d9e0;--link:#0969da;--hover:#f6f8fa}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;"
    "--muted:#9198a1;--line:#3d444d;--link:#4493f8;--hover:#151b23}}\n"
    "body{margin:0 auto;max-width:60rem;padding:1rem;background:var(--bg);"
    "color:var(--fg);font:16px/1.5 system-ui,-apple-system,sans-serif}\n"
    "h1{font-size:1.25rem;font-weight:600;overflow-wrap:anywhere}\n"
    "table{width:100%;border-collapse:collapse}\n"
    "th,td{padding:.35rem .5rem;border-bottom:1px solid var(--line);"
    "text-align:left;vertical-align:top}\n"
    "th{font-weight:600;white-space:nowrap}th a{color:var(--fg)}\n"
    ".n{overflow-wrap:anywhere}.s{text-align:right;white-space:nowrap;"
    "font-variant-numeric:tabular-nums;width:1%}\n"
    ".t{white-space:nowrap;color:var(--muted);"
    "font-variant-numeric:tabular-nums;width:1%}\n"
    "a{color:var(--link);text-decoration:none}a:hover{text-decoration:"
    "underline}\n"
    "tbody tr:hover{background:var(--hover)}\n"
    "p{color:var(--muted);font-size:.875rem}\n"
    "@media (max-width:36rem){.t{display:none}body{padding:.5rem}}\n"
    "</style>\n";

static const char *const key_name[] = {"name", "size", "time"};
static const char *const key_label[] = {"Name", "Size", "Modified"};

/* A column header: a link to this order (the other direction if current). */
static void column(FILE *f, const struct listing_order *o, enum listing_key k,
                   const char *cls)
{
    bool cur = o->key == k;
    bool desc = cur && !o->desc;

    fprintf(f, "<th class=\"%s\"", cls);
    if (cur)
        fprintf(f, " aria-sort=\"%s\"", o->desc ? "descending" : "ascending");
    fprintf(f, "><a href=\"?sort=%s&amp;order=%s\">%s</a>%s</th>", key_name[k],
            desc ? "desc" : "asc", key_label[k],
            !cur      ? ""
            : o->desc ? " \xe2\x86\x93"   /* down arrow */
                      : " \xe2\x86\x91"); /* up arrow */
}

int listing_html(const struct listing *l, const char *path,
                 const struct listing_order *o, char **out, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    size_t total = l->total > l->n ? l->total : l->n;

    if (!f)
        return -ENOMEM;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, "
          "initial-scale=1\">\n"
          "<meta name=\"color-scheme\" content=\"light dark\">\n"
          "<title>Index of /",
          f);
    html_escape(f, path);
    fputs("</title>\n", f);
    fputs(style, f);
    fputs("</head>\n<body>\n<h1>Index of /", f);
    html_escape(f, path);
    fputs("</h1>\n<table>\n<thead><tr>", f);
    column(f, o, LISTING_BY_NAME, "n");
    column(f, o, LISTING_BY_SIZE, "s");
    column(f, o, LISTING_BY_TIME, "t");
    fputs("</tr></thead>\n<tbody>\n", f);
    if (path[0] != '\0')
        fputs("<tr><td class=\"n\"><a href=\"../\">../</a></td>"
              "<td class=\"s\"></td><td class=\"t\"></td></tr>\n",
              f);
    for (size_t i = 0; i < l->n; i++) {
        const struct listing_entry *e = &l->v[i];
        const char *slash = e->kind == LISTING_DIR ? "/" : "";
        char human[LISTING_HUMAN_LEN];
        struct tm tm;

        fputs("<tr><td class=\"n\"><a href=\"./", f);
        url_escape(f, e->name);
        fprintf(f, "%s\">", slash);
        html_escape(f, e->name);
        fprintf(f, "%s</a></td>", slash);
        if (e->kind == LISTING_FILE) {
            listing_human_size(e->size, human);
            fprintf(f, "<td class=\"s\" title=\"%" PRIu64 " bytes\">%s</td>",
                    e->size, human);
        } else {
            fputs("<td class=\"s\">-</td>", f);
        }
        if (e->mtime && gmtime_r(&e->mtime, &tm))
            fprintf(f,
                    "<td class=\"t\"><time datetime=\"%04d-%02d-%02dT%02d:"
                    "%02d:%02dZ\">%04d-%02d-%02d %02d:%02d</time></td></tr>\n",
                    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                    tm.tm_min, tm.tm_sec, tm.tm_year + 1900, tm.tm_mon + 1,
                    tm.tm_mday, tm.tm_hour, tm.tm_min);
        else
            fputs("<td class=\"t\"></td></tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
    if (total > l->n)
        fprintf(f,
                "<p>%zu of %zu entries shown: a listing holds at most %zu "
                "(the first the directory gives, then sorted).</p>\n",
                l->n, total, l->n);
    else
        fprintf(f, "<p>%zu %s, times in UTC.</p>\n", total,
                total == 1 ? "entry" : "entries");
    fputs("</body></html>\n", f);
    if (fclose(f) != 0) {
        free(buf);
        return -ENOMEM;
    }
    *out = buf;
    *len = n;
    return 0;
}
