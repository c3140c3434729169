/* SPDX-License-Identifier: MIT */
/*
 * types_http.c - value types parsed by syntax/'s parsers (libc only),
 * so that a bad value is reported with its place like any other: the
 * precompressed encoding list (coding.h), Cache-Control rules and default
 * (cache_rules.h), response headers and the security set (headers_opt.h),
 * the CORS origins (origins.h), and
 * the root-relative paths of the fallback file and the health and metrics
 * URLs. Each stores the typed value the server uses and prints it back in
 * the file syntax, so conf_print still reads back the same.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- compress, precompressed: "br,zstd,gzip" or "off" ----
 * The codings are named as HTTP names them (Content-Encoding): in --help,
 * in --check's output and in errors; the sidecar suffixes zst and gz are
 * accepted for zstd and gzip. */

static int encodings_parse(const struct opt *o, struct conf *c, const char *val,
                           char *err)
{
    struct conf_encodings *f = field(o, c);
    enum coding v[CODING_N], one[1];
    const char *bad = NULL;
    size_t bad_len = 0, n = 0;
    char list[128], tok[64];
    int r;

    /* "br, gz": encoding names have no spaces, so drop them all */
    for (const char *p = val; *p && n + 1 < sizeof(list); p++) {
        if (*p != ' ' && *p != '\t')
            list[n++] = *p;
    }
    list[n] = '\0';
    r = coding_list_parse(list, v, &bad, &bad_len);
    if (r >= 0) {
        memcpy(f->v, v, (size_t)r * sizeof(v[0]));
        f->n = (size_t)r;
        return 0;
    }
    snprintf(tok, sizeof(tok), "%.*s", (int)(bad_len < 63 ? bad_len : 63), bad);
    if (tok[0] && coding_list_parse(tok, one, NULL, NULL) == 1)
        snprintf(err, ERR_MAX, "'%s' is listed twice", tok);
    else
        snprintf(err, ERR_MAX,
                 "'%s' is not br, zstd or gzip (or the list is off)", tok);
    return -EINVAL;
}

static void encodings_print(FILE *out, const struct opt *o,
                            const struct conf *c)
{
    const struct conf_encodings *f = cfield(o, c);

    fprintf(out, "%s = ", o->name);
    if (f->n == 0)
        fputs("off", out);
    for (size_t i = 0; i < f->n; i++)
        fprintf(out, "%s%s", i ? "," : "", coding_token(f->v[i]));
    fputc('\n', out);
}

static void encodings_reset(const struct opt *o, struct conf *c)
{
    struct conf_encodings *f = field(o, c);

    f->n = 0;
}

const struct type t_encodings = {"LIST", encodings_parse, encodings_print,
                                 encodings_reset, 0};

/* ---- cache: "GLOB[,GLOB...]=VALUE" rules; cache-default: their default ----
 */

static int cache_parse(const struct opt *o, struct conf *c, const char *val,
                       char *err)
{
    char why[ERR_MAX - 80];
    int r = check_text(val, err);

    if (r < 0)
        return r;
    why[0] = '\0';
    r = cache_rules_add(field(o, c), val, why, sizeof(why));
    if (r == -EINVAL)
        snprintf(err, ERR_MAX, "'%.64s': %s", val, why);
    return r;
}

/*
 * One glob from its components: a glob without '/' was stored as
 * { "**", name }, so it prints as the name; a single component came from
 * "/name" (anchored at the root) and keeps its '/'.
 */
static void glob_print(FILE *out, char *const *comps)
{
    size_t n = 0;

    while (comps[n])
        n++;
    if (n == 2 && strcmp(comps[0], "**") == 0) {
        fputs(comps[1], out);
        return;
    }
    if (n == 1)
        fputc('/', out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%s", i ? "/" : "", comps[i]);
}

/* One rule as GLOBS=VALUE. */
static void rule_build(FILE *f, const void *arg)
{
    const struct cache_rule *rule = arg;

    for (size_t j = 0; j < rule->n_globs; j++) {
        if (j)
            fputc(',', f);
        glob_print(f, rule->globs[j]);
    }
    fprintf(f, "=%s", rule->value);
}

static void cache_print(FILE *out, const struct opt *o, const struct conf *c)
{
    const struct cache_rules *r = cfield(o, c);

    /* "?" (no '=') is refused */
    for (size_t i = 0; i < r->n; i++)
        print_built(out, o->name, "?", rule_build, &r->v[i]);
}

/* The rules go; the default, which cache-default owns, stays. */
static void cache_reset(const struct opt *o, struct conf *c)
{
    struct cache_rules *r = field(o, c);
    char *dflt = r->dflt;

    r->dflt = NULL;
    cache_rules_free(r);
    r->dflt = dflt;
}

const struct type t_cache = {"GLOBS=VALUE", cache_parse, cache_print,
                             cache_reset, 0};

static int cache_default_parse(const struct opt *o, struct conf *c,
                               const char *val, char *err)
{
    int r = check_text(val, err);

    if (r < 0)
        return r;
    return cache_rules_set_default(field(o, c), val, err, ERR_MAX);
}

static void cache_default_print(FILE *out, const struct opt *o,
                                const struct conf *c)
{
    const struct cache_rules *r = cfield(o, c);

    if (r->dflt == NULL)
        fprintf(out, "# %s = (not set)\n", o->name);
    else
        print_str(out, o->name, r->dflt);
}

static void cache_default_reset(const struct opt *o, struct conf *c)
{
    cache_rules_set_default(field(o, c), "", NULL, 0);
}

const struct type t_cache_default = {
    "VALUE", cache_default_parse, cache_default_print, cache_default_reset, 0};

/* ---- header: "Name: value", each use appends ---- */

/*
 * c->headers holds the headers given (the first c->n_headers_given) and then
 * the security set that headers_finish adds; the set is dropped before a
 * header is added, so that it always comes last and skips names given.
 */
static void headers_truncate(struct conf *c, size_t n)
{
    struct headers_opt *h = &c->headers;

    for (size_t i = n; i < h->n; i++) {
        free(h->v[i].name);
        free(h->v[i].value);
    }
    if (n < h->n)
        h->n = n;
}

int headers_finish(struct conf *c)
{
    headers_truncate(c, c->n_headers_given);
    return c->security_headers ? headers_opt_add_security(&c->headers) : 0;
}

static int headers_parse(const struct opt *o, struct conf *c, const char *val,
                         char *err)
{
    char why[ERR_MAX - 80];
    int r = check_text(val, err);

    (void)o;
    if (r < 0)
        return r;
    headers_truncate(c, c->n_headers_given);
    why[0] = '\0';
    r = headers_opt_add(&c->headers, val, why, sizeof(why));
    if (r == -EINVAL)
        snprintf(err, ERR_MAX, "'%.64s': %s", val, why);
    if (r == 0)
        c->n_headers_given = c->headers.n;
    return r;
}

static void headers_print(FILE *out, const struct opt *o, const struct conf *c)
{
    for (size_t i = 0; i < c->n_headers_given; i++)
        print_strf(out, o->name, "%s: %s", c->headers.v[i].name,
                   c->headers.v[i].value);
}

static void headers_reset(const struct opt *o, struct conf *c)
{
    (void)o;
    headers_opt_free(&c->headers);
    c->n_headers_given = 0;
}

const struct type t_headers = {"\"NAME: VALUE\"", headers_parse, headers_print,
                               headers_reset, 0};

/* ---- cors: "*" or a comma list of origins ---- */

static int cors_type_parse(const struct opt *o, struct conf *c, const char *val,
                           char *err)
{
    struct origins *f = field(o, c), v;
    char why[ERR_MAX - 80];
    int r = check_text(val, err);

    if (r < 0)
        return r;
    why[0] = '\0';
    r = origins_parse(&v, val, why, sizeof why);
    if (r == -EINVAL)
        snprintf(err, ERR_MAX, "%s", why);
    if (r < 0)
        return r;
    origins_free(f);
    *f = v;
    return 0;
}

static void cors_build(FILE *f, const void *arg)
{
    const struct origins *c = arg;

    if (c->any)
        fputc('*', f);
    for (size_t i = 0; i < c->n; i++)
        fprintf(f, "%s%s", i ? "," : "", c->origin[i]);
}

static void cors_type_print(FILE *out, const struct opt *o,
                            const struct conf *c)
{
    const struct origins *v = cfield(o, c);

    if (!origins_on(v))
        fprintf(out, "# %s = (not set)\n", o->name);
    else
        print_built(out, o->name, ",", cors_build, v);
}

static void cors_type_reset(const struct opt *o, struct conf *c)
{
    origins_free(field(o, c));
}

const struct type t_cors = {"ORIGINS|*", cors_type_parse, cors_type_print,
                            cors_type_reset, 0};

/* ---- root-relative paths: health and metrics URLs, the fallback file ---- */

static int relative_parse(const struct opt *o, struct conf *c, const char *val,
                          char *err, const char *what)
{
    char **f = field(o, c);
    const char *rel = val + strspn(val, "/");
    char *dup;
    int r = check_text(val, err);

    if (r < 0)
        return r;
    if (*rel == '\0') {
        snprintf(err, ERR_MAX, "'%.64s' names the root, not %s", val, what);
        return -EINVAL;
    }
    dup = strdup(rel);
    if (dup == NULL)
        return -ENOMEM;
    free(*f);
    *f = dup;
    return 0;
}

static int urlpath_parse(const struct opt *o, struct conf *c, const char *val,
                         char *err)
{
    return relative_parse(o, c, val, err, "a path of its own (as in /healthz)");
}

static int root_file_parse(const struct opt *o, struct conf *c, const char *val,
                           char *err)
{
    return relative_parse(o, c, val, err, "a file");
}

static void relative_print(FILE *out, const struct opt *o, const struct conf *c,
                           const char *prefix)
{
    char *const *f = cfield(o, c);

    if (*f == NULL)
        fprintf(out, "# %s = (not set)\n", o->name);
    else
        print_strf(out, o->name, "%s%s", prefix, *f);
}

static void urlpath_print(FILE *out, const struct opt *o, const struct conf *c)
{
    relative_print(out, o, c, "/");
}

static void root_file_print(FILE *out, const struct opt *o,
                            const struct conf *c)
{
    relative_print(out, o, c, "");
}

static void relative_reset(const struct opt *o, struct conf *c)
{
    char **f = field(o, c);

    free(*f);
    *f = NULL;
}

const struct type t_urlpath = {"URLPATH", urlpath_parse, urlpath_print,
                               relative_reset, 0};
const struct type t_root_file = {"FILE", root_file_parse, root_file_print,
                                 relative_reset, 0};
