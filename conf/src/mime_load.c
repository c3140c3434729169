// SPDX-License-Identifier: MIT
/*
 * mime_load.c - the media types a configuration adds to the built-in table:
 * the mime-types file (Debian's /etc/mime.types by default, read when
 * present), then every --mime EXT=TYPE, each later one winning, and the
 * --default-type of files no extension names; parsed by syntax/mime.c,
 * every problem a message with its place. Read once at start-up (and by
 * --check): the server makes these options restart-only.
 */
#include "access_checks.h"
#include "syntax/mime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A mime.types file is text of tens of KiB: anything larger is a mistake. */
#define MIME_FILE_MAX ((off_t)4 << 20)

int conf_check_mime(const char *item, char *err)
{
    return mime_map_add(NULL, item, err, ERR_MAX);
}

int conf_check_default_type(const char *type, char *err)
{
    return mime_map_default(NULL, type, err, ERR_MAX);
}

/* The whole regular file @path into *@text (@len bytes); 0 or -errno, or
 * -EFBIG past MIME_FILE_MAX, -EINVAL for what is not a regular file. */
static int slurp(const char *path, char **text, size_t *len)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), err = 0;
    struct stat st;
    char *buf = NULL;
    size_t n = 0;

    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) != 0) {
        err = -errno;
        goto out_close;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > MIME_FILE_MAX) {
        err = S_ISDIR(st.st_mode)    ? -EISDIR
              : !S_ISREG(st.st_mode) ? -EINVAL
                                     : -EFBIG;
        goto out_close;
    }
    buf = malloc((size_t)st.st_size + 1);
    if (!buf) {
        err = -ENOMEM;
        goto out_close;
    }
    while (n < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);

        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            err = -errno;
            goto out_free;
        }
        if (r == 0)
            break; /* truncated meanwhile: what was there */
        n += (size_t)r;
    }
    buf[n] = '\0'; /* a string too, for whoever reads it as one */
    *text = buf;
    *len = n;
    buf = NULL;
out_free:
    free(buf);
out_close:
    close(fd);
    return err;
}

/* Messages of the file: errors, or warnings for the default file (a
 * distribution's update must not stop a server from starting). */
static int report(const struct lines_diag *ld, bool dflt, struct conf_diag *d)
{
    int r = 0;

    for (size_t i = 0; i < ld->n; i++)
        worst(&r, dflt ? diag_warn(d, "warning: %s (line ignored)", ld->msgs[i])
                       : diag_add(d, "%s", ld->msgs[i]));
    if (ld->dropped)
        worst(&r,
              dflt ? diag_warn(d, "warning: %s: %zu more lines ignored",
                               CONF_MIME_TYPES, ld->dropped)
                   : diag_add(d, "mime-types: %zu more problems", ld->dropped));
    return ld->oom ? -ENOMEM : r;
}

static int load_file(const char *path, struct mime_map *out,
                     struct conf_diag *d)
{
    bool dflt = strcmp(path, CONF_MIME_TYPES) == 0;
    struct lines_diag ld = {0};
    char *text = NULL;
    size_t len = 0;
    int r = slurp(path, &text, &len);

    if (r == -ENOENT && dflt)
        return 0; /* not installed: the built-in table alone */
    if (r == -ENOMEM)
        return r;
    if (r == -EFBIG)
        return diag_add(d, "mime-types: %s: larger than %lld bytes", path,
                        (long long)MIME_FILE_MAX);
    if (r == -EINVAL)
        return diag_add(d, "mime-types: %s: not a regular file", path);
    if (r < 0)
        return diag_add(d, "mime-types: %s: %s", path, strerror(-r));
    r = mime_map_parse(out, text, len, path, &ld);
    free(text);
    if (r != -ENOMEM)
        r = report(&ld, dflt, d);
    lines_diag_free(&ld);
    return r;
}

int conf_mime_load(const struct conf *c, struct mime_map *out,
                   struct conf_diag *d)
{
    int r = 0;

    memset(out, 0, sizeof *out);
    if (c->mime_types && strcmp(c->mime_types, "off") != 0)
        worst(&r, load_file(c->mime_types, out, d));
    for (size_t i = 0; r != -ENOMEM && i < c->mime.n; i++) {
        char err[ERR_MAX];
        int k = mime_map_add(out, c->mime.v[i], err, sizeof err);

        worst(&r,
              k == -EINVAL ? diag_add(d, "mime %s: %s", c->mime.v[i], err) : k);
    }
    if (r != -ENOMEM && c->default_type) {
        char err[ERR_MAX];
        int k = mime_map_default(out, c->default_type, err, sizeof err);

        worst(&r, k == -EINVAL ? diag_add(d, "default-type: %s", err) : k);
    }
    mime_map_finish(out);
    return r;
}
