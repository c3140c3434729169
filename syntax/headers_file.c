// SPDX-License-Identifier: MIT
/*
 * headers_file.c - parse _headers and collect one path's headers (rules in
 * headers_file.h).
 *
 * Matching uses the pathpat index, so only the rules that can match are
 * tried; a header line is validated by headers_opt_add, the same code as
 * --header, so the file and the option refuse the same things.
 */
#include "syntax/headers_file.h"

#include "syntax/text.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

static void rule_free(struct headers_rule *r)
{
    pathpat_free(&r->path);
    headers_opt_free(&r->add);
    for (size_t i = 0; i < r->n_remove; i++)
        free(r->remove[i]);
    free(r->remove);
}

/* "! Name": the name must be a token. */
static int add_remove(struct headers_rule *r, const char *s, size_t len)
{
    char **grown;

    for (size_t i = 0; i < len; i++)
        if (!text_is_tchar((unsigned char)s[i]))
            return -EINVAL;
    if (len == 0)
        return -EINVAL;
    grown = realloc(r->remove, (r->n_remove + 1) * sizeof *grown);
    if (!grown)
        return -ENOMEM;
    r->remove = grown;
    r->remove[r->n_remove] = strndup(s, len);
    if (!r->remove[r->n_remove])
        return -ENOMEM;
    r->n_remove++;
    return 0;
}

/* One indented line of rule @r; 0, -EINVAL (message added) or -ENOMEM. */
static int header_line(struct headers_rule *r, const char *s, size_t len,
                       const char *name, unsigned lineno, struct lines_diag *d)
{
    char err[256], *spec;
    int ret;

    if (s[0] == '!') {
        s++;
        len--;
        while (len > 0 && is_space(*s)) {
            s++;
            len--;
        }
        const char *own = headers_opt_owned(s, len);
        if (own) {
            lines_diag_add(d, name, lineno,
                           "%s is set by the server and cannot be removed",
                           own);
            return -EINVAL;
        }
        ret = add_remove(r, s, len);
        if (ret == -EINVAL)
            lines_diag_add(d, name, lineno,
                           "'! NAME' needs a header name (a token)");
        return ret;
    }
    /*
     * Netlify's password protection, "Basic-Auth: user:pass ...": sent as a
     * header it would publish the passwords to every visitor. Refused, and
     * the line is never echoed (its value is the secret).
     */
    if (len >= 11 && strncasecmp(s, "Basic-Auth:", 11) == 0) {
        lines_diag_add(d, name, lineno,
                       "Basic-Auth (Netlify's password protection) is not a "
                       "header: it would be sent to every visitor; use "
                       "--auth with an htpasswd file");
        return -EINVAL;
    }
    spec = strndup(s, len);
    if (!spec)
        return -ENOMEM;
    ret = headers_opt_add_flags(&r->add, spec, HEADERS_OPT_CACHE_CONTROL, err,
                                sizeof err);
    free(spec);
    if (ret == -EINVAL)
        lines_diag_add(d, name, lineno, "%s", err);
    return ret;
}

int headers_file_parse(struct headers_file *h, const char *text, size_t len,
                       const char *name, struct lines_diag *d)
{
    const struct lines_how how = {HEADERS_FILE_LINE_MAX, false, name, d};
    struct lines l;
    const char *line;
    size_t n, skip, before = lines_diag_count(d);
    struct headers_rule *cur = NULL; /* NULL: no path yet, or a bad one */
    bool bad_path = false;
    int ret = -ENOMEM;

    memset(h, 0, sizeof *h);
    h->v = calloc(lines_count(text, len), sizeof *h->v);
    if (!h->v)
        goto out_free;
    lines_init(&l, text, len);
    while (lines_entry(&l, &how, &line, &n, &skip)) {
        char err[256];

        size_t end = n;
        while (end > skip && is_space(line[end - 1]))
            end--;
        if (skip > 0) {
            if (!cur) {
                if (!bad_path)
                    lines_diag_add(d, name, l.lineno,
                                   "a header line needs a path line (one "
                                   "starting with '/') before it");
                continue;
            }
            int hr =
                header_line(cur, line + skip, end - skip, name, l.lineno, d);
            if (hr == -ENOMEM)
                goto out_free;
            continue;
        }
        cur = NULL;
        bad_path = true;
        if ((n >= 8 && strncmp(line, "https://", 8) == 0) ||
            (n >= 7 && strncmp(line, "http://", 7) == 0)) {
            lines_diag_add(d, name, l.lineno,
                           "rules for a host are not supported (use a path; "
                           "--vhost for hosts)");
            continue;
        }
        struct headers_rule *r = &h->v[h->n];
        memset(r, 0, sizeof *r);
        r->line = l.lineno;
        int pr = pathpat_parse(&r->path, line, end, err, sizeof err);
        if (pr == -ENOMEM)
            goto out_free;
        if (pr < 0) {
            lines_diag_add(d, name, l.lineno, "%s", err);
            continue;
        }
        h->n++;
        cur = r;
        bad_path = false;
    }
    if (pathpat_index_build(&h->ix, &h->v[0].path, sizeof *h->v, h->n) < 0)
        goto out_free;
    ret = lines_diag_verdict(d, before);
out_free:
    if (ret < 0)
        headers_file_free(h);
    return ret;
}

struct collect {
    const struct headers_file *h;
    struct headers_file_out *out;
};

static void apply(void *arg, size_t i, const struct pathpat_caps *caps)
{
    struct collect *c = arg;
    const struct headers_rule *r = &c->h->v[i];
    struct headers_file_out *o = c->out;

    (void)caps;
    for (size_t k = 0; k < r->n_remove; k++) {
        size_t w = 0;

        for (size_t j = 0; j < o->n_add; j++)
            if (strcasecmp(o->add[j]->name, r->remove[k]) != 0)
                o->add[w++] = o->add[j];
        o->n_add = w;
        if (o->n_removed < HEADERS_FILE_OUT_MAX)
            o->removed[o->n_removed++] = r->remove[k];
    }
    for (size_t k = 0; k < r->add.n && o->n_add < HEADERS_FILE_OUT_MAX; k++)
        o->add[o->n_add++] = &r->add.v[k];
}

void headers_file_collect(const struct headers_file *h, const char *path,
                          struct headers_file_out *out)
{
    struct collect c = {h, out};

    out->n_add = 0;
    out->n_removed = 0;
    if (h && h->n)
        pathpat_index_each(&h->ix, path, apply, &c);
}

bool headers_file_removed(const struct headers_file_out *out, const char *name)
{
    for (size_t i = 0; i < out->n_removed; i++)
        if (strcasecmp(out->removed[i], name) == 0)
            return true;
    return false;
}

void headers_file_free(struct headers_file *h)
{
    if (!h)
        return;
    for (size_t i = 0; h->v && i < h->n; i++)
        rule_free(&h->v[i]);
    free(h->v);
    pathpat_index_free(&h->ix);
    memset(h, 0, sizeof *h);
}
