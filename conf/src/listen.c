/* SPDX-License-Identifier: MIT */
/*
 * listen.c - the syntax of listen addresses, and the two value types that
 * fill struct conf's listen list: listen ("HOST:PORT", "[V6]:PORT", "PORT",
 * "http://...", "https://...", "unix:PATH") and port (a number alone, the
 * python3 -m http.server habit: a listener on 127.0.0.1). Syntax only:
 * whether a name resolves or a port can be bound is the server's business.
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define UNIX_PATH_MAX 108 /* sizeof(sockaddr_un.sun_path) on Linux */

static int port_number(const char *s, unsigned *port, char *err)
{
    unsigned long v = 0;

    if (*s == '\0') {
        snprintf(err, ERR_MAX, "missing port after ':'");
        return -EINVAL;
    }
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char)*p) || v > 65535) {
            snprintf(err, ERR_MAX, "bad port '%.16s' (0..65535)", s);
            return -EINVAL;
        }
        v = v * 10 + (unsigned long)(*p - '0');
    }
    if (v > 65535) {
        snprintf(err, ERR_MAX, "bad port '%.16s' (0..65535)", s);
        return -EINVAL;
    }
    *port = (unsigned)v;
    return 0;
}

static bool host_chars(const char *s, size_t len, const char *extra)
{
    for (size_t i = 0; i < len; i++) {
        if (!isalnum((unsigned char)s[i]) && !strchr(extra, s[i]))
            return false;
    }
    return true;
}

/* "::1", "fe80::1%eth0": hex digits, ':' and '.', then an optional zone */
static bool ipv6_chars(const char *s, size_t len)
{
    const char *pct = memchr(s, '%', len);
    size_t addr = pct ? (size_t)(pct - s) : len;

    if (memchr(s, ':', addr) == NULL)
        return false;
    for (size_t i = 0; i < addr; i++) {
        if (!isxdigit((unsigned char)s[i]) && s[i] != ':' && s[i] != '.')
            return false;
    }
    return !pct ||
           (len - addr > 1 && host_chars(pct + 1, len - addr - 1, ".-_"));
}

static int unix_syntax(const char *path, struct conf_listen *l, char *err)
{
    l->kind = CONF_LISTEN_UNIX;
    if (*path == '\0') {
        snprintf(err, ERR_MAX, "empty unix socket path");
        return -EINVAL;
    }
    if (strlen(path) >= UNIX_PATH_MAX) {
        snprintf(err, ERR_MAX, "unix socket path longer than %d bytes",
                 UNIX_PATH_MAX - 1);
        return -EINVAL;
    }
    l->path = strdup(path);
    return l->path ? 0 : -ENOMEM;
}

/* "[V6]" or "[V6]:PORT" in @p: the host and the ':' (or NULL). */
static int bracket_host(const char *val, const char *p, const char **host,
                        size_t *host_len, const char **colon, char *err)
{
    const char *close = strchr(p, ']');

    *host = p + 1;
    if (close == NULL || !ipv6_chars(*host, (size_t)(close - *host))) {
        snprintf(err, ERR_MAX, "'%.64s': bad IPv6 address in [...]", val);
        return -EINVAL;
    }
    *host_len = (size_t)(close - *host);
    *colon = close[1] == ':' ? close + 1 : NULL;
    if (close[1] != '\0' && *colon == NULL) {
        snprintf(err, ERR_MAX, "'%.64s': expected ':PORT' after ']'", val);
        return -EINVAL;
    }
    return 0;
}

/* "HOST" or "HOST:PORT" in @p (@len bytes): the host and the ':' (or NULL). */
static int plain_host(const char *val, const char *p, size_t len,
                      const char **host, size_t *host_len, const char **colon,
                      char *err)
{
    *colon = strchr(p, ':');
    if (*colon && strchr(*colon + 1, ':')) {
        snprintf(err, ERR_MAX,
                 "'%.64s': an IPv6 address needs brackets, as in [::1]:8080",
                 val);
        return -EINVAL;
    }
    *host = p;
    *host_len = *colon ? (size_t)(*colon - p) : len;
    if (*host_len == 0) {
        snprintf(err, ERR_MAX,
                 "'%.64s': missing host (all addresses: 0.0.0.0:PORT or "
                 "[::]:PORT)",
                 val);
        return -EINVAL;
    }
    if (!host_chars(*host, *host_len, ".-_")) {
        snprintf(err, ERR_MAX, "'%.64s': bad host name", val);
        return -EINVAL;
    }
    return 0;
}

/*
 * Syntax only: "HOST:PORT", "[V6]:PORT", "PORT", "http://HOST[:PORT][/]",
 * "https://HOST[:PORT][/]", "unix:PATH". Whether the name resolves or the
 * port can be bound is the server's business at start-up.
 */
static int listen_syntax(const char *val, struct conf_listen *l, char *err)
{
    const char *p = val, *host, *colon;
    size_t host_len, len;
    bool scheme = true;
    char rest[128];
    int r;

    memset(l, 0, sizeof(*l));
    if (strncmp(p, "unix:", 5) == 0)
        return unix_syntax(p + 5, l, err);
    l->kind = CONF_LISTEN_TCP;
    if (strncmp(p, "http://", 7) == 0) {
        p += 7;
    } else if (strncmp(p, "https://", 8) == 0) {
        p += 8;
        l->tls = true;
    } else if (strstr(p, "://")) {
        snprintf(err, ERR_MAX, "'%.64s': only http:// and https:// URLs", val);
        return -EINVAL;
    } else {
        scheme = false;
    }
    len = strlen(p);
    if (scheme && len > 0 && p[len - 1] == '/')
        len--;
    if (len == 0 || len >= sizeof(rest)) {
        snprintf(err, ERR_MAX,
                 len ? "'%.64s': address too long" : "'%.64s': missing host",
                 val);
        return -EINVAL;
    }
    memcpy(rest, p, len);
    rest[len] = '\0';
    if (!scheme && rest[strspn(rest, "0123456789")] == '\0') {
        /* "8080" alone: loopback, the safe choice */
        l->host = strdup(CONF_LOOPBACK);
        return l->host ? port_number(rest, &l->port, err) : -ENOMEM;
    }
    r = rest[0] == '['
            ? bracket_host(val, rest, &host, &host_len, &colon, err)
            : plain_host(val, rest, len, &host, &host_len, &colon, err);
    if (r < 0)
        return r;
    if (colon == NULL && !scheme) {
        snprintf(err, ERR_MAX, "'%.64s': missing port, as in 127.0.0.1:8080",
                 val);
        return -EINVAL;
    }
    if (colon == NULL)
        l->port = l->tls ? 443 : 80;
    else if (port_number(colon + 1, &l->port, err) < 0)
        return -EINVAL;
    l->host = strndup(host, host_len);
    return l->host ? 0 : -ENOMEM;
}

static void listen_clear(struct conf_listen *l)
{
    free(l->host);
    free(l->path);
    l->host = NULL;
    l->path = NULL;
}

/* Append @l to the list; on failure @l is released. */
static int listen_append(struct conf *c, struct conf_listen *l)
{
    struct conf_listen *nl =
        realloc(c->listen, (c->n_listen + 1) * sizeof(*nl));

    if (nl == NULL) {
        listen_clear(l);
        return -ENOMEM;
    }
    c->listen = nl;
    c->listen[c->n_listen++] = *l;
    return 0;
}

static int listen_parse(const struct opt *o, struct conf *c, const char *val,
                        char *err)
{
    struct conf_listen l;
    int r = check_text(val, err);

    (void)o;
    if (r < 0)
        return r;
    r = listen_syntax(val, &l, err);
    if (r < 0) {
        listen_clear(&l);
        return r;
    }
    return listen_append(c, &l);
}

static void listen_print(FILE *out, const struct opt *o, const struct conf *c)
{
    for (size_t i = 0; i < c->n_listen; i++) {
        const struct conf_listen *l = &c->listen[i];

        /* quoted when needed: "unix:/x " keeps its space */
        if (l->kind == CONF_LISTEN_UNIX) {
            print_strf(out, o->name, "unix:%s", l->path);
            continue;
        }
        bool v6 = strchr(l->host, ':') != NULL;
        print_strf(out, o->name, "%s%s%s%s:%u", l->tls ? "https://" : "",
                   v6 ? "[" : "", l->host, v6 ? "]" : "", l->port);
    }
}

static void listen_reset(const struct opt *o, struct conf *c)
{
    (void)o;
    for (size_t i = 0; i < c->n_listen; i++)
        listen_clear(&c->listen[i]);
    free(c->listen);
    c->listen = NULL;
    c->n_listen = 0;
}

const struct type t_listen = {"ADDR", listen_parse, listen_print, listen_reset,
                              0};
/* "8000": a listener on the loopback address, like "listen = 8000". */
static int port_parse(const struct opt *o, struct conf *c, const char *val,
                      char *err)
{
    struct conf_listen l = {.kind = CONF_LISTEN_TCP};
    size_t n = strspn(val, "0123456789");

    (void)o;
    if (n == 0 || val[n] != '\0' || n > 5 ||
        port_number(val, &l.port, err) < 0) {
        snprintf(err, ERR_MAX,
                 "'%.64s' is not a port number 0..65535 (an address goes in "
                 "listen, as in 0.0.0.0:8000)",
                 val);
        return -EINVAL;
    }
    l.host = strdup(CONF_LOOPBACK);
    if (l.host == NULL)
        return -ENOMEM;
    return listen_append(c, &l);
}

static void port_print(FILE *out, const struct opt *o, const struct conf *c)
{
    /* the listeners it added are printed as listen lines */
    (void)out;
    (void)o;
    (void)c;
}

const struct type t_port = {"PORT", port_parse, port_print, listen_reset, 0};
