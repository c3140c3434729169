// SPDX-License-Identifier: MIT
/*
 * redirects.c - parse _redirects, match a path, build the target, and
 * refuse loops (rules in redirects.h).
 *
 * Matching goes through the pathpat index: a file of 10,000 exact rules
 * costs one hash lookup per request. The loop check follows each redirect
 * through the same index, at most REDIRECTS_CHAIN_MAX steps, so it costs
 * O(rules x chain) lookups at load and nothing per request.
 */
#include "syntax/redirects.h"

#include "syntax/errbuf.h"
#include "syntax/urlpath.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Redirects followed from one rule by the loop check. */
#define REDIRECTS_CHAIN_MAX 16

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* Split @line into at most @max fields; the number found (may exceed). */
static size_t fields(const char *line, size_t len, const char **f, size_t *fl,
                     size_t max)
{
    size_t n = 0, i = 0;

    while (i < len) {
        while (i < len && is_space(line[i]))
            i++;
        if (i == len)
            break;
        size_t start = i;
        while (i < len && !is_space(line[i]))
            i++;
        if (n < max) {
            f[n] = line + start;
            fl[n] = i - start;
        }
        n++;
    }
    return n;
}

/* https://HOST[:PORT] up to '/', '?' or the end: no placeholders, no '@'. */
static bool authority_ok(const char *to, size_t len)
{
    const char *a = to + 8;
    size_t n = 0;

    while (8 + n < len && a[n] != '/' && a[n] != '?' && a[n] != '#')
        n++;
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = a[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '-' || c == ':' ||
              c == '[' || c == ']'))
            return false;
        /* ":name" would be a placeholder in the host: not a port */
        if (c == ':' && i + 1 < n && !(a[i + 1] >= '0' && a[i + 1] <= '9'))
            return false;
    }
    return true;
}

/*
 * The length of the defined placeholder at @s (after its ':'), longest
 * name first; 0 when none is defined there.
 */
static size_t defined_var(const struct pathpat *from, const char *s, size_t len)
{
    size_t n = pathpat_var_len(s, len);

    for (; n > 0; n--)
        if (pathpat_has_var(from, s, n))
            return n;
    return 0;
}

/* Check TO's placeholders: a whole-segment ":word" must be defined. */
static int check_vars(const struct pathpat *from, const char *to, size_t len,
                      char *err, size_t err_size)
{
    for (size_t i = 0; i < len; i++) {
        if (to[i] != ':' || i == 0 || to[i - 1] != '/')
            continue;
        size_t n = pathpat_var_len(to + i + 1, len - i - 1);

        if (n > 0 && defined_var(from, to + i + 1, n) == 0) {
            errbuf_say(err, err_size,
                       "TO uses :%.*s, which FROM does not define%s",
                       (int)(n > 32 ? 32 : n), to + i + 1,
                       n == 5 && memcmp(to + i + 1, "splat", 5) == 0
                           ? " (FROM needs a trailing *)"
                           : "");
            return -EINVAL;
        }
    }
    return 0;
}

static int check_to(struct redirect_rule *r, const char *to, size_t len,
                    char *err, size_t err_size)
{
    if (len >= 8 && strncmp(to, "https://", 8) == 0) {
        if (!authority_ok(to, len)) {
            errbuf_say(err, err_size,
                       "'%.*s': bad host in the URL (no placeholders, no "
                       "user)",
                       (int)(len > 64 ? 64 : len), to);
            return -EINVAL;
        }
        r->external = true;
    } else if (len >= 7 && strncmp(to, "http://", 7) == 0) {
        errbuf_say(err, err_size,
                   "'%.*s' leaves the origin over plain HTTP; only an "
                   "https:// URL may leave it",
                   (int)(len > 64 ? 64 : len), to);
        return -EINVAL;
    } else if (len >= 2 && to[0] == '/' && (to[1] == '/' || to[1] == '\\')) {
        errbuf_say(err, err_size,
                   "'%.*s' would leave the origin (protocol-relative); "
                   "write https://HOST/... to mean it",
                   (int)(len > 64 ? 64 : len), to);
        return -EINVAL;
    } else if (len == 0 || to[0] != '/') {
        errbuf_say(err, err_size,
                   "'%.*s': TO is a path starting with '/' or an https:// URL",
                   (int)(len > 64 ? 64 : len), to);
        return -EINVAL;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)to[i];

        if (c < 0x21 || c == 0x7f || c == '"' || c == '<' || c == '>' ||
            c == '\\' || c == '#') {
            errbuf_say(err, err_size,
                       "'%.*s': TO has a character a URL cannot hold "
                       "(percent-encode it)",
                       (int)(len > 64 ? 64 : len), to);
            return -EINVAL;
        }
    }
    return check_vars(&r->from, to, len, err, err_size);
}

static int parse_status(struct redirect_rule *r, const char *s, size_t len,
                        char *err, size_t err_size)
{
    unsigned v = 0;

    if (len > 0 && s[len - 1] == '!') {
        r->force = true;
        len--;
    }
    if (len != 3) {
        errbuf_say(err, err_size, "'%.*s' is not a status", (int)len, s);
        return -EINVAL;
    }
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            errbuf_say(err, err_size, "'%.*s' is not a status", (int)len, s);
            return -EINVAL;
        }
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v != 200 && v != 301 && v != 302 && v != 303 && v != 307 && v != 308) {
        errbuf_say(err, err_size,
                   "status %u: only 200 (rewrite), 301, 302, 303, 307 and "
                   "308",
                   v);
        return -EINVAL;
    }
    r->status = v;
    return 0;
}

static void rule_free(struct redirect_rule *r)
{
    pathpat_free(&r->from);
    free(r->to);
}

/* Fields a line may have: FROM, parameters, TO, STATUS, conditions. */
#define FIELDS_MAX 16

/* "key=value" whose key is @key (case-insensitive), as in "Country=us". */
static bool is_key(const char *f, size_t len, const char *key)
{
    size_t k = strlen(key);

    return len > k && f[k] == '=' && strncasecmp(f, key, k) == 0;
}

static bool starts(const char *f, size_t len, const char *prefix)
{
    size_t k = strlen(prefix);

    return len >= k && strncmp(f, prefix, k) == 0;
}

/* A status field: three digits and an optional '!'. */
static bool is_status(const char *f, size_t len, unsigned *v)
{
    if (len == 4 && f[3] == '!')
        len = 3;
    if (len != 3)
        return false;
    *v = 0;
    for (size_t i = 0; i < 3; i++) {
        if (f[i] < '0' || f[i] > '9')
            return false;
        *v = *v * 10 + (unsigned)(f[i] - '0');
    }
    return true;
}

/*
 * Netlify features beyond the subset: 0 for a line to parse, 1 when the
 * line is ignored with a warning (it would only redirect, rewrite or proxy
 * for some: no one sees less without it), -EINVAL for a condition that
 * decides who may see the target (or one unknown): that stays an error.
 */
static int unsupported(const char **f, const size_t *fl, size_t n,
                       const char *name, unsigned lineno, struct lines_diag *d)
{
    size_t to = 1, cond;
    unsigned status = 0;
    bool has_status;

    /* Netlify's "/store id=:id /blog/:id": parameters before TO */
    while (to + 1 < n && f[to][0] != '/' && memchr(f[to], '=', fl[to]) &&
           !starts(f[to], fl[to], "http"))
        to++;
    has_status = to + 1 < n && is_status(f[to + 1], fl[to + 1], &status);
    cond = to + 1 +
           (has_status || (to + 1 < n && !memchr(f[to + 1], '=', fl[to + 1])));
    for (size_t i = cond; i < n && i < FIELDS_MAX; i++) {
        int w = (int)(fl[i] > 64 ? 64 : fl[i]);

        if (is_key(f[i], fl[i], "Role") || is_key(f[i], fl[i], "Signed")) {
            lines_diag_add(d, name, lineno,
                           "the condition '%.*s' decides who may see the "
                           "target: not supported (--auth protects paths)",
                           w, f[i]);
            return -EINVAL;
        }
        if (!is_key(f[i], fl[i], "Country") &&
            !is_key(f[i], fl[i], "Language") &&
            !is_key(f[i], fl[i], "Cookie")) {
            lines_diag_add(d, name, lineno,
                           "conditions after the status ('%.*s') are not "
                           "supported",
                           w, f[i]);
            return -EINVAL;
        }
    }
    if (starts(f[0], fl[0], "http://") || starts(f[0], fl[0], "https://")) {
        lines_diag_warn(d, name, lineno,
                        "rules for a host are not supported (FROM is a path; "
                        "use --vhost for hosts): line ignored");
        return 1;
    }
    if (to > 1) {
        lines_diag_warn(d, name, lineno,
                        "query-parameter matching ('%.*s') is not supported: "
                        "line ignored",
                        (int)(fl[1] > 64 ? 64 : fl[1]), f[1]);
        return 1;
    }
    if (cond < n) {
        lines_diag_warn(d, name, lineno,
                        "the condition '%.*s' is not supported: line ignored",
                        (int)(fl[cond] > 64 ? 64 : fl[cond]), f[cond]);
        return 1;
    }
    if (status == 404 || status == 410 || status == 451) {
        lines_diag_warn(d, name, lineno,
                        "status %u (a page sent with that status) is not "
                        "supported: line ignored (--error-page sets error "
                        "pages)",
                        status);
        return 1;
    }
    if (status == 200 && (starts(f[to], fl[to], "https://") ||
                          starts(f[to], fl[to], "http://"))) {
        lines_diag_warn(d, name, lineno,
                        "a 200 rewrite to another origin would be a proxy "
                        "(not supported): line ignored");
        return 1;
    }
    return 0;
}

/*
 * Parse one rule line; 0, 1 (ignored, a warning added), -EINVAL (a message
 * added) or -ENOMEM.
 */
static int parse_rule(struct redirect_rule *r, const char *line, size_t len,
                      const char *name, unsigned lineno, struct lines_diag *d)
{
    const char *f[FIELDS_MAX];
    size_t fl[FIELDS_MAX], n = fields(line, len, f, fl, FIELDS_MAX);
    char err[256];
    int ret;

    memset(r, 0, sizeof *r);
    r->line = lineno;
    r->status = 301;
    if (n < 2) {
        lines_diag_add(d, name, lineno, "expected FROM TO [STATUS]");
        return -EINVAL;
    }
    if (n > FIELDS_MAX) {
        lines_diag_add(d, name, lineno, "more than %d fields", FIELDS_MAX);
        return -EINVAL;
    }
    ret = unsupported(f, fl, n, name, lineno, d);
    if (ret != 0)
        return ret;
    ret = pathpat_parse(&r->from, f[0], fl[0], err, sizeof err);
    if (ret == 0 && n == 3)
        ret = parse_status(r, f[2], fl[2], err, sizeof err);
    if (ret == 0)
        ret = check_to(r, f[1], fl[1], err, sizeof err);
    if (ret == 0) {
        r->to = strndup(f[1], fl[1]);
        if (!r->to)
            ret = -ENOMEM;
    }
    if (ret == -EINVAL)
        lines_diag_add(d, name, lineno, "%s", err);
    if (ret < 0)
        rule_free(r);
    return ret;
}

const struct redirect_rule *redirects_match(const struct redirects *r,
                                            const char *path,
                                            struct pathpat_caps *caps)
{
    size_t i;

    if (r->n == 0)
        return NULL;
    i = pathpat_index_first(&r->ix, path, caps);
    return i == SIZE_MAX ? NULL : &r->v[i];
}

/* Append @n bytes to out (at *@o, @size bytes), counting them all. */
static void put(char *out, size_t size, size_t *o, const char *s, size_t n)
{
    if (*o < size) {
        size_t room = size - 1 - *o;

        memcpy(out + *o, s, n < room ? n : room);
    }
    *o += n;
}

size_t redirects_target(const struct redirect_rule *rule,
                        const struct pathpat_caps *caps, const char *query,
                        char *out, size_t size)
{
    const char *to = rule->to;
    size_t o = 0, len = strlen(to);

    for (size_t i = 0; i < len; i++) {
        size_t n = to[i] == ':'
                       ? defined_var(&rule->from, to + i + 1, len - i - 1)
                       : 0;
        size_t vlen;
        const char *v =
            n ? pathpat_caps_find(caps, to + i + 1, n, &vlen) : NULL;

        if (!v) {
            put(out, size, &o, to + i, 1);
            continue;
        }
        size_t need = urlpath_encode(v, vlen, true, NULL, 0);
        if (o + need < size)
            urlpath_encode(v, vlen, true, out + o, size - o);
        o += need;
        i += n;
    }
    if (query && *query) {
        put(out, size, &o, strchr(to, '?') ? "&" : "?", 1);
        put(out, size, &o, query, strlen(query));
    }
    if (size > 0)
        out[o < size ? o : size - 1] = '\0';
    return o;
}

/* The sample path a redirect leads to ("x" for every capture), normalised. */
static bool sample(const struct redirect_rule *r, char *out, size_t size)
{
    struct pathpat_caps caps = {0};
    char raw[2048];
    size_t n;

    for (size_t i = 0; i < r->from.n; i++)
        if (r->from.seg[i][0] == ':') {
            caps.c[caps.n].name = r->from.seg[i] + 1;
            caps.c[caps.n].name_len = strlen(r->from.seg[i] + 1);
            caps.c[caps.n].v = "x";
            caps.c[caps.n].len = 1;
            caps.n++;
        }
    if (r->from.splat) {
        caps.c[caps.n].name = "splat";
        caps.c[caps.n].name_len = 5;
        caps.c[caps.n].v = "x";
        caps.c[caps.n].len = 1;
        caps.n++;
    }
    n = redirects_target(r, &caps, NULL, raw, sizeof raw);
    if (n >= sizeof raw)
        return false;
    raw[strcspn(raw, "?")] = '\0';
    return urlpath_normalize(raw + 1, false, out, size) == 0;
}

/* Report the loop through rule @i, if it is on one (once per loop). */
static void check_loop(const struct redirects *r, size_t i, const char *name,
                       struct lines_diag *d)
{
    size_t chain[REDIRECTS_CHAIN_MAX + 1], n = 0, cur = i;
    char path[2100];

    for (;;) {
        const struct redirect_rule *rule = &r->v[cur];

        chain[n++] = cur;
        if (rule->status == 200 || rule->external || n > REDIRECTS_CHAIN_MAX ||
            !sample(rule, path, sizeof path))
            return;
        size_t next = pathpat_index_first(&r->ix, path, NULL);
        if (next == SIZE_MAX)
            return;
        for (size_t k = 0; k < n; k++) {
            if (chain[k] != next)
                continue;
            /* a cycle chain[k..n): report it from its first rule only */
            for (size_t m = k; m < n; m++)
                if (chain[m] < i)
                    return;
            if (k != 0)
                return;
            char via[256];
            size_t v = 0;
            for (size_t m = 0; m <= n && v + 24 < sizeof via; m++)
                v += (size_t)snprintf(via + v, sizeof via - v, "%sline %u",
                                      m ? " -> " : "",
                                      r->v[m < n ? chain[m] : i].line);
            lines_diag_add(d, name, r->v[i].line, "redirect loop: %s", via);
            return;
        }
        cur = next;
    }
}

int redirects_parse(struct redirects *r, const char *text, size_t len,
                    const char *name, struct lines_diag *d)
{
    const struct lines_how how = {REDIRECTS_LINE_MAX, false, name, d};
    struct lines l;
    const char *line;
    size_t n, skip, before = lines_diag_count(d);
    int ret = -ENOMEM;

    memset(r, 0, sizeof *r);
    r->v = calloc(lines_count(text, len), sizeof *r->v);
    if (!r->v)
        goto out_free;
    lines_init(&l, text, len);
    while (lines_entry(&l, &how, &line, &n, &skip)) {
        int pr = parse_rule(&r->v[r->n], line, n, name, l.lineno, d);
        if (pr == -ENOMEM)
            goto out_free;
        if (pr == 0)
            r->n++;
    }
    if (pathpat_index_build(&r->ix, &r->v[0].from, sizeof *r->v, r->n) < 0)
        goto out_free;
    for (size_t i = 0; i < r->n; i++)
        check_loop(r, i, name, d);
    ret = lines_diag_verdict(d, before);
out_free:
    if (ret < 0)
        redirects_free(r);
    return ret;
}

void redirects_free(struct redirects *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->v && i < r->n; i++)
        rule_free(&r->v[i]);
    free(r->v);
    pathpat_index_free(&r->ix);
    memset(r, 0, sizeof *r);
}
