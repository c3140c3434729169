/* SPDX-License-Identifier: MIT */
/*
 * http_suite.c - what the files of the end-to-end HTTP suite share (see
 * http_suite.h), and the serves[] table: servers with their options and the
 * requests they answer, whose rows join the tcases of their names.
 */
#include "http_suite.h"

#include "site.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct server *start_default(void)
{
    return server_start(site.www, NULL);
}

const char *request_text(const char *t)
{
    if (strstr(t, "\r\n") != NULL)
        return t;
    return hfmt("%s%s HTTP/1.1\r\nHost: x\r\n\r\n", t[0] == '/' ? "GET " : "",
                t);
}

void expect_still_serves(const struct server *s)
{
    expect_get(s, "/readme.txt", 200, "a request after the case");
}

void forbid_secrets(void)
{
    harness_forbid(site.secret);
    harness_forbid("root:x:0:0"); /* /etc/passwd */
}

struct validators get_validators(const struct server *s, const char *path)
{
    struct validators v = {0};
    struct http_response *r = http_get(s, path);
    EXPECT_STATUS(r, 200, path);
    const char *et = http_header(r, "ETag");
    /* the ETag is a content hash (or size and mtime): a strong one */
    EXPECT(et != NULL && et[0] == '"', "%s: ETag '%s', want a strong one", path,
           et ? et : "(none)");
    v.etag = hfmt("%s", et);
    v.weak = hfmt("W/%s", et);
    const char *lm = http_header(r, "Last-Modified");
    EXPECT(lm != NULL, "%s: no Last-Modified", path);
    v.lm = hfmt("%s", lm);
    return v;
}

char *fill_validators(const char *t, const struct validators *v)
{
    static const char *const keys[] = {"{ETAG}", "{WEAK}", "{LM}"};
    const char *vals[] = {v->etag, v->weak, v->lm};
    char *out = hfmt("%s", "");
    while (*t) {
        bool hit = false;
        for (size_t k = 0; k < N_ELEMS(keys); k++) {
            size_t kl = strlen(keys[k]);
            if (strncmp(t, keys[k], kl) == 0) {
                out = hfmt("%s%s", out, vals[k]);
                t += kl;
                hit = true;
                break;
            }
        }
        if (!hit) {
            out = hfmt("%s%c", out, *t);
            t++;
        }
    }
    return out;
}

/* ===== servers and the answers they give ================================ */

/*
 * One request and its answer. @target: a GET target (raw bytes), or
 * "METHOD target". @file: the site file whose content the body must be.
 * @has: a string the body must contain. @type: the exact Content-Type.
 */
struct exchange {
    const char *target;
    int status;
    const char *file;
    const char *has;
    const char *type;
};

/*
 * A server over the fixture site with the options @args, and the requests it
 * answers, in order. No response may contain @lacks, nor (@secrets) the
 * secret or /etc/passwd. The rows of one tcase stand together; the tcases
 * are in the files of the suite (test_http.c, http_targets.c).
 */
static const struct serve {
    const char *tcase;
    const char *what;
    const char *args[3];
    bool secrets;
    const char *lacks;
    struct exchange ex[8];
} serves[] = {
    {"dirs", "index files",
     .ex = {{"/sub/", 200, .file = "sub/index.html",
             .type = "text/html; charset=utf-8"},
            {"/", 200, .file = "index.html"},
            {"/sub/deeper/", 200, .file = "sub/deeper/index.html"},
            /* a symlink to sub, inside the root */
            {"/link-ok-dir/", 200, .file = "sub/index.html"}}},
    {"dirs", "no index and listing off", .lacks = "only-file-here",
     .ex = {{"/noindex/", .status = 403}, {"/list/", .status = 403}}},
    {"dirs", "--index home.html,index.html",
     .args = {"--index", "home.html,index.html"},
     .ex = {{"/multi/", 200, .file = "multi/home.html"},
            /* the second name is tried */
            {"/sub/", 200, .file = "sub/index.html"}}},
    /* --confine in-root clamps ".." and absolute links at the root, like
     * chroot: the outside names then resolve inside, where they do not
     * exist; nothing from outside is ever served. */
    {"traversal", "--confine in-root", .args = {"--confine", "in-root"},
     .secrets = true,
     .ex = {{"/../secret.txt", .status = 404},
            {"/%2e%2e/secret.txt", .status = 404},
            {"/link-abs", .status = 404},
            {"/link-rel", .status = 404},
            {"/link-dir/inner.txt", .status = 404},
            {"/sub/../../secret.txt", .status = 404},
            {"/passwd", .status = 404},
            {"/../range.txt", 200, .file = "range.txt"}}},
    {"traversal", "--confine beneath,no-symlinks",
     .args = {"--confine", "beneath,no-symlinks"}, .secrets = true,
     .ex = {{"/link-ok", .status = 403},
            {"/link-ok-dir/index.html", .status = 403},
            {"/range.txt", 200, .file = "range.txt"}}},
    {"dotfiles", "dotfiles denied (the default)", .lacks = "HIDDEN-CONTENT",
     .ex = {{"/.hidden", .status = 404},
            {"/sub/.hidden", .status = 404},
            {"/%2ehidden", .status = 404},
            /* the policy holds for the name the resolver ends on: ".." after
             * the allowed /.well-known/ must not reach a dotfile */
            {"/.well-known/../.hidden", .status = 404},
            {"/.well-known/%2e%2e/.hidden", .status = 404},
            {"/.well-known/x", 200, .file = ".well-known/x"}}},
    {"dotfiles", "--dotfiles allow", .args = {"--dotfiles", "allow"},
     .secrets = true,
     .ex = {{"/.hidden", 200, .file = ".hidden"},
            {"/sub/.hidden", 200, .file = "sub/.hidden"},
            /* ".." is not a dotfile: still the resolver's refusal */
            {"/../secret.txt", .status = 403}}},
    {"errors", "the root's 404.html",
     .ex = {{"/missing.html", 404, .has = "CUSTOM-404-PAGE",
             .type = "text/html; charset=utf-8"},
            {"/sub/missing/deeper", 404, .has = "CUSTOM-404-PAGE"},
            {"HEAD /missing.html", .status = 404}}},
};

START_TEST(serve_case)
{
    const struct serve *c = &serves[_i];
    struct server_opts o = {.root = site.www, .args = c->args};

    if (c->secrets)
        forbid_secrets();
    if (c->lacks)
        harness_forbid(c->lacks);
    struct server *s = server_start_opts(&o);
    for (size_t i = 0; i < N_ELEMS(c->ex) && c->ex[i].target; i++) {
        const struct exchange *x = &c->ex[i];
        char *what = hfmt("%s: %s", c->what, x->target);
        struct http_response *r =
            x->target[0] == '/'
                ? raw_get(s->port, x->target)
                : raw_request(s->port,
                              hfmt("%s HTTP/1.1\r\nHost: x\r\n\r\n", x->target),
                              10000);
        EXPECT_STATUS(r, x->status, what);
        if (x->file) {
            size_t len;
            char *want = tree_read(tree_path(site.www, x->file), &len);
            EXPECT(want && r->body_len == len &&
                       memcmp(r->body, want, len) == 0,
                   "%s: body '%s', want the content of %s", what, r->body,
                   x->file);
        }
        if (x->has)
            EXPECT(strstr(r->body, x->has), "%s: no '%s' in the body:\n%s",
                   what, x->has, r->body);
        if (x->type)
            EXPECT(http_value_eq(http_header(r, "Content-Type"), x->type),
                   "%s: Content-Type '%s', want '%s'", what,
                   http_header(r, "Content-Type") ?: "(none)", x->type);
    }
    server_stop_clean(s);
}
END_TEST

/* The rows of serves[] that belong to the tcase @name, if any. */
static void add_serves(TCase *tc, const char *name)
{
    int first = -1, end = 0;

    for (int i = 0; i < (int)N_ELEMS(serves); i++) {
        if (strcmp(serves[i].tcase, name) != 0)
            continue;
        if (first < 0)
            first = i;
        end = i + 1;
    }
    if (first >= 0)
        tcase_add_loop_test(tc, serve_case, first, end);
}

Suite *http_suite_make(const char *topic, const struct http_tcase *tcases,
                       size_t n)
{
    /* Check keeps the name's pointer: one buffer per suite of the binary */
    static char names[8][64];
    static size_t used;
    if (used == N_ELEMS(names)) {
        fprintf(stderr, "more than %zu HTTP suites\n", N_ELEMS(names));
        abort();
    }
    char *name = names[used++];
    snprintf(name, sizeof(names[0]), "e2e_http_%s_%s", topic,
             harness_backend());
    Suite *su = suite_create(name);

    for (size_t i = 0; i < n; i++) {
        const struct http_tcase *t = &tcases[i];
        TCase *tc = harness_tcase(su, t->name, site_suite_setup, NULL, 60);
        if (t->loop.test)
            tcase_add_loop_test(tc, *t->loop.test, 0, t->loop.rows);
        add_serves(tc, t->name);
        for (size_t k = 0; k < N_ELEMS(t->tests) && t->tests[k]; k++)
            tcase_add_test(tc, *t->tests[k]);
    }
    return su;
}
