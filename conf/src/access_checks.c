// SPDX-License-Identifier: MIT
/*
 * access_checks.c - the access options' values checked with the parsers of
 * syntax/ (libc only), so a bad value is reported with its place
 * ("--allow: ...", "FILE:LINE: allow: ...") before anything starts. The
 * server parses the same strings again into the rules it serves with.
 */
#include "access_checks.h"

#include "conf.h"
#include "resolver.h"
#include "syntax/cidr.h"
#include "syntax/error_pages.h"
#include "syntax/glob.h"
#include "syntax/host.h"
#include "syntax/text.h"
#include "syntax/trusted_proxy.h"
#include "syntax/urlpath.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The parsers of syntax/ write their message into err directly, cut
 * where a message of theirs always was. */
#define WHY_MAX 256

static int items_parse(const struct opt *o, struct conf *c, const char *val,
                       char *err)
{
    struct conf_strv *v = field(o, c);
    char **nv;
    int r = check_text(val, err);

    if (r == 0 && o->check)
        r = o->check(val, err);
    if (r < 0)
        return r;
    nv = realloc(v->v, (v->n + 1) * sizeof *nv);
    if (!nv)
        return -ENOMEM;
    v->v = nv;
    v->v[v->n] = strdup(val);
    if (!v->v[v->n])
        return -ENOMEM;
    v->n++;
    return 0;
}

static void items_print(FILE *out, const struct opt *o, const struct conf *c)
{
    const struct conf_strv *v = cfield(o, c);

    for (size_t i = 0; i < v->n; i++)
        print_str(out, o->name, v->v[i]);
}

static void items_reset(const struct opt *o, struct conf *c)
{
    struct conf_strv *v = field(o, c);

    for (size_t i = 0; i < v->n; i++)
        free(v->v[i]);
    free(v->v);
    v->v = NULL;
    v->n = 0;
}

const struct type t_items = {"TEXT", items_parse, items_print, items_reset, 0};

const char *conf_item_path(const char *item)
{
    const char *eq = strchr(item, '=');

    return eq ? eq + 1 : item + strlen(item);
}

int conf_check_auth(const char *item, char *err)
{
    const char *eq = strchr(item, '=');
    struct glob_set s;
    int r;

    if (!eq || !eq[1]) {
        snprintf(err, ERR_MAX,
                 "expected GLOBS=HTPASSWD, as in '/**=/etc/beneath/users'");
        return -EINVAL;
    }
    r = glob_set_parse(&s, item, (size_t)(eq - item), err, WHY_MAX);
    glob_set_free(&s);
    return r;
}

int conf_check_cidrs(const char *item, char *err)
{
    struct cidr_list l = {0};
    int r = cidr_list_add(&l, item, err, WHY_MAX);

    cidr_list_free(&l);
    return r;
}

int conf_check_trusted_proxy(const char *item, char *err)
{
    struct cidr_list l = {0};
    int r = trusted_proxy_add(&l, item, err, WHY_MAX);

    cidr_list_free(&l);
    return r;
}

int conf_check_vhost(const char *item, char *err)
{
    const char *eq = strchr(item, '=');
    char name[HOST_MAX];

    if (!eq || !eq[1] || eq == item) {
        snprintf(err, ERR_MAX,
                 "expected NAME=ROOT, as in 'docs.example.com=/srv/docs'");
        return -EINVAL;
    }
    if ((size_t)(eq - item) >= sizeof name) {
        snprintf(err, ERR_MAX, "the host name is too long");
        return -EINVAL;
    }
    memcpy(name, item, (size_t)(eq - item));
    name[eq - item] = '\0';
    return host_pattern_check(name, name, err, WHY_MAX) < 0 ? -EINVAL : 0;
}

const char *conf_tls_item(const char *item, char *name)
{
    const char *eq = strchr(item, '=');
    char given[HOST_MAX], why[WHY_MAX];

    name[0] = '\0';
    if (!eq || eq == item || (size_t)(eq - item) >= sizeof given ||
        memchr(item, '/', (size_t)(eq - item)))
        return item;
    memcpy(given, item, (size_t)(eq - item));
    given[eq - item] = '\0';
    /* a path such as "a=b.pem" is one too: only a host name is a NAME */
    if (host_pattern_check(given, name, why, sizeof why) < 0) {
        name[0] = '\0';
        return item;
    }
    return eq + 1;
}

int conf_check_tls_item(const char *item, char *err)
{
    char name[HOST_MAX];

    if (!*conf_tls_item(item, name)) {
        snprintf(err, ERR_MAX,
                 "expected FILE or NAME=FILE, as in "
                 "'docs.example.com=/etc/beneath/docs.pem'");
        return -EINVAL;
    }
    return 0;
}

int conf_check_error_page(const char *item, char *err)
{
    struct error_pages e = {0};
    int r = error_pages_add(&e, item, err, WHY_MAX);

    error_pages_free(&e);
    return r;
}

int conf_check_realm(const char *item, char *err)
{
    /* printable ASCII, spaces, UTF-8 bytes: a quoted-string's content */
    if (!*item || text_has_ctl(item, strlen(item)) || strlen(item) > 200) {
        snprintf(err, ERR_MAX, "a realm is up to 200 printable characters");
        return -EINVAL;
    }
    return 0;
}

int conf_check_mount(const char *item, char *err)
{
    const char *eq = strchr(item, '=');

    if (!eq || !eq[1]) {
        snprintf(err, ERR_MAX,
                 "expected /URL/PREFIX=DIR, as in "
                 "'/_static/fonts=/usr/share/fonts-lato'");
        return -EINVAL;
    }
    return urlpath_prefix_check(item, (size_t)(eq - item), err, WHY_MAX);
}

int conf_check_follow_into(const char *item, char *err)
{
    if (item[0] != '/') {
        snprintf(err, ERR_MAX,
                 "'%.64s' is not an absolute path (the directory a link may "
                 "lead into, as /usr/share/javascript)",
                 item);
        return -EINVAL;
    }
    return 0;
}

int conf_follow_into_finish(const struct conf *c, struct conf_diag *diag)
{
    char flags[128];

    if (c->follow_into.n == 0 || (c->confine & RESOLVER_BENEATH))
        return 0;
    resolver_flags_format(c->confine, flags, sizeof flags);
    return diag_add(
        diag, "--follow-into: needs beneath in --confine (it is %s: %s)", flags,
        (c->confine & RESOLVER_IN_ROOT)
            ? "in-root keeps every link inside the root"
            : "without it every link is followed");
}

void conf_reread_files(const struct conf *c,
                       void (*fn)(const char *what, const char *path,
                                  void *arg),
                       void *arg)
{
    static const struct {
        const char *what;
        size_t off;
    } tls[] = {
        {"tls-cert", offsetof(struct conf, tls_cert)},
        {"tls-key", offsetof(struct conf, tls_key)},
        {"tls-key-password-file", offsetof(struct conf, tls_key_password_file)},
    };
    char name[HOST_MAX];

    if (c->config && *c->config)
        fn("config", c->config, arg);
    for (size_t i = 0; i < c->auth.n; i++)
        fn("auth", conf_item_path(c->auth.v[i]), arg);
    if (c->redirects)
        fn("redirects", c->redirects, arg);
    if (c->headers_file)
        fn("headers-file", c->headers_file, arg);
    for (size_t t = 0; t < sizeof tls / sizeof tls[0]; t++) {
        const struct conf_strv *v =
            (const struct conf_strv *)(const void *)((const char *)c +
                                                     tls[t].off);
        for (size_t i = 0; i < v->n; i++)
            fn(tls[t].what, conf_tls_item(v->v[i], name), arg);
    }
}
