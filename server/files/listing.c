// SPDX-License-Identifier: MIT
/*
 * listing.c - directory listing: entries from an fd, HTML from entries.
 *
 * The directory fd was opened by the confined resolver; entries are only
 * fstatat'ed relative to it without following symlinks, so a listing never
 * reveals anything about a link's target.
 */
#include "listing.h"

#include "date.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
    int err = 0;
    size_t cap = 0;
    DIR *d = NULL;

    out->v = NULL;
    out->n = 0;
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
        struct stat st;
        e->name = strdup(name);
        if (!e->name) {
            err = -ENOMEM;
            break;
        }
        out->n++;
        e->kind = LISTING_OTHER;
        e->size = 0;
        e->mtime = 0;
        if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
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
}

static void html_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

/* Percent-encode everything but unreserved characters (RFC 3986 2.3). */
static void url_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
            c == '~')
            fputc(c, f);
        else
            fprintf(f, "%%%02X", c);
    }
}

int listing_html(const struct listing *l, const char *path, char **out,
                 size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);

    if (!f)
        return -ENOMEM;
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
          "<title>Index of /",
          f);
    html_escape(f, path);
    fputs("</title></head>\n<body><h1>Index of /", f);
    html_escape(f, path);
    fputs("</h1>\n<table>\n<tr><th>Name</th><th>Size</th>"
          "<th>Last modified</th></tr>\n",
          f);
    if (path[0] != '\0')
        fputs("<tr><td><a href=\"../\">../</a></td><td></td><td></td></tr>\n",
              f);
    for (size_t i = 0; i < l->n; i++) {
        const struct listing_entry *e = &l->v[i];
        const char *slash = e->kind == LISTING_DIR ? "/" : "";
        char date[DATE_LEN] = "";

        fputs("<tr><td><a href=\"./", f);
        url_escape(f, e->name);
        fprintf(f, "%s\">", slash);
        html_escape(f, e->name);
        fprintf(f, "%s</a></td><td>", slash);
        if (e->kind == LISTING_FILE)
            fprintf(f, "%llu", (unsigned long long)e->size);
        else
            fputs("-", f);
        fputs("</td><td>", f);
        if (e->mtime)
            date_format(e->mtime, date);
        fprintf(f, "%s</td></tr>\n", date);
    }
    fputs("</table>\n</body></html>\n", f);
    if (fclose(f) != 0) {
        free(buf);
        return -ENOMEM;
    }
    *out = buf;
    *len = n;
    return 0;
}
