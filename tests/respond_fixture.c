// SPDX-License-Identifier: MIT
/*
 * respond_fixture.c - the fixture tree of the respond() suites and the
 * configuration over it (respond_fixture.h).
 */
#include "respond_fixture.h"

#include "check_main.h"
#include "conf_fixture.h"
#include "fixture.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

/* "user:pw", SHA-512-crypt (openssl passwd -6 -salt beneath pw) */
/* one string: the hash is too long for a line */
#define HTPASSWD                                                               \
    ("users=user:$6$beneath$gajy9LxUjjsRaYByzk8i8/5BEZsRh2WuTjMDBB4hKIZyu."    \
     "n94geuOk8/Ui2FyuqpwOuaDcv3fi.UuypirGw.X0\n")

static const char *const tree[] = {
    "index.html=<h1>home</h1>",
    "404.html=<h1>not here</h1>",
    "guide.html=guide",
    "docs/index.html=docs",
    "style.css=body{}",
    "style.css.gz=GZ",
    "big.txt=0123456789abcdefghij",
    ".git/config=secret",
    "private/secret.html=secret",
    "private/index.html=private index",
    "rules=/old /new 301\n/spa/* /index.html 200\n",
    "escape -> /etc/passwd",
    HTPASSWD,
};

/* @args with "@" standing for the fixture directory in each argument. */
void env_open(struct env *e, const char *const *args)
{
    const char *bad = NULL;
    char buf[CONF_FIXTURE_MAX_ARGS][PATH_MAX + 64];
    const char *argv[CONF_FIXTURE_MAX_ARGS + 2];
    struct conf_diag d = {0};
    size_t n = 0;

    memset(e, 0, sizeof *e);
    ck_assert_msg(
        fixture_make(tree, N_ELEMS(tree), e->dir, sizeof e->dir, &bad) == 0,
        "fixture entry %s", bad ? bad : "(mkdtemp)");
    for (; args && args[n] && n < CONF_FIXTURE_MAX_ARGS - 1; n++) {
        const char *at = strchr(args[n], '@');

        if (at)
            snprintf(buf[n], sizeof buf[n], "%.*s%s%s", (int)(at - args[n]),
                     args[n], e->dir, at + 1);
        else
            snprintf(buf[n], sizeof buf[n], "%s", args[n]);
        argv[n] = buf[n];
    }
    argv[n++] = e->dir;
    argv[n] = NULL;
    ck_assert_int_eq(conf_load_args(argv, NULL, &e->c, &d), 0);
    conf_diag_free(&d);
    ck_assert_int_eq(root_open(e->c.root, 0, &e->root), 0);
    ck_assert_int_eq(access_open(&e->c, e->root, 0, NULL, &e->access), 0);
    struct respond_base b = {
        .error_pages = access_error_pages(e->access),
        .access = e->access,
        .root = e->root,
    };
    respond_policy(&e->c, &b, &e->rc);
}

void env_close(struct env *e)
{
    access_free(e->access);
    root_close(e->root);
    conf_free(&e->c);
    fixture_remove(e->dir);
}
