/* SPDX-License-Identifier: MIT */
/*
 * conf.c - beneath's option table and the four sources that feed it.
 *
 * One sorted table, opts[], has a row per option: its name, value type, field
 * in struct conf, default, range or names, help text and flags. The command
 * line, the environment (BENEATH_NAME), the "key = value" file, --help and
 * conf_print all walk that table; nothing here knows an option by name except
 * conf_load, for --config, --help/--version and the positional ROOT. The
 * value types (struct type) are
 * reusable: a new option is one row plus a struct field.
 *
 * Sources are applied in order default, file, environment, command line, each
 * overwriting the one before. A repeatable option is reset the first time a
 * source names it, so a higher source replaces the list and repeats within one
 * source append. Every problem becomes one message in the struct conf_diag;
 * parsing goes on after an error so one run shows them all.
 */
#include "conf.h"

#include "lexer.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define ERR_MAX 512
#define UNIX_PATH_MAX 108 /* sizeof(sockaddr_un.sun_path) on Linux */

_Static_assert(sizeof(enum conf_log_format) == sizeof(unsigned),
               "enum fields are written as unsigned");
_Static_assert(sizeof(enum conf_dotfiles) == sizeof(unsigned),
               "enum fields are written as unsigned");

struct opt;

/*
 * struct type - how one kind of value is parsed, printed and released.
 * parse writes a message without the place prefix into err and returns
 * -EINVAL, or returns 0 or -ENOMEM. For a repeatable option parse appends;
 * reset empties the field (also what conf_free uses).
 */
struct type {
    const char *metavar;
    int (*parse)(const struct opt *o, struct conf *c, const char *val,
                 char *err);
    void (*print)(FILE *out, const struct opt *o, const struct conf *c);
    void (*reset)(const struct opt *o, struct conf *c);
    unsigned flags;
};

#define TYPE_NO_VALUE 0x1 /* an action: --check, never "--check=x" */
#define TYPE_BOOL 0x2     /* --name alone means on */

#define OPT_REPEAT 0x1    /* every use appends; see the top comment */
#define OPT_CLI_ONLY 0x2  /* not from the environment nor the file */
#define OPT_NO_FILE 0x4   /* not from the file (config itself) */
#define OPT_ENV_SPLIT 0x8 /* repeatable: BENEATH_X="a b" is two uses */

struct opt {
    const char *name;
    const struct type *type;
    size_t off;       /* of the field in struct conf */
    const char *dflt; /* parsed like any value */
    const char *(*dflt_fn)(char *buf, size_t n); /* computed default */
    const char *dflt_help;                       /* default as --help says it */
    const char *metavar;                         /* overrides type->metavar */
    const char *help;
    unsigned long long min, max;               /* unsigned, size, seconds */
    const char *const *names;                  /* enum: value i is names[i] */
    int (*check)(const char *item, char *err); /* strings, list items */
    unsigned flags;
};

static void *field(const struct opt *o, struct conf *c)
{
    return (char *)c + o->off;
}

static const void *cfield(const struct opt *o, const struct conf *c)
{
    return (const char *)c + o->off;
}

/* ---- printing values back in file syntax ---- */

/* Quote when the bare form would not read back the same. */
static void print_str(FILE *out, const char *name, const char *s)
{
    size_t len = strlen(s);
    bool quote = len == 0 || s[0] == '"' || s[0] == '#' ||
                 isspace((unsigned char)s[0]) ||
                 isspace((unsigned char)s[len - 1]);

    fprintf(out, "%s = ", name);
    if (!quote) {
        fprintf(out, "%s\n", s);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputs("\"\n", out);
}

/* ---- strings and paths ---- */

/* apply() has already refused the empty value, for every type */
static int check_text(const char *val, char *err)
{
    for (const char *p = val; *p; p++) {
        if (iscntrl((unsigned char)*p)) {
            snprintf(err, ERR_MAX, "control character in value");
            return -EINVAL;
        }
    }
    return 0;
}

static int str_parse(const struct opt *o, struct conf *c, const char *val,
                     char *err)
{
    char **f = field(o, c);
    char *dup;
    int r = check_text(val, err);

    if (r == 0 && o->check)
        r = o->check(val, err);
    if (r < 0)
        return r;
    dup = strdup(val);
    if (dup == NULL)
        return -ENOMEM;
    free(*f);
    *f = dup;
    return 0;
}

static void str_print(FILE *out, const struct opt *o, const struct conf *c)
{
    char *const *f = cfield(o, c);

    if (*f == NULL)
        fprintf(out, "# %s = (not set)\n", o->name);
    else
        print_str(out, o->name, *f);
}

static void str_reset(const struct opt *o, struct conf *c)
{
    char **f = field(o, c);

    free(*f);
    *f = NULL;
}

static const struct type t_string = {"TEXT", str_parse, str_print, str_reset,
                                     0};
static const struct type t_path = {"PATH", str_parse, str_print, str_reset, 0};

/* ---- booleans and actions ---- */

static const char *const bool_on[] = {"on", "true", "yes", "1"};
static const char *const bool_off[] = {"off", "false", "no", "0"};

static int bool_word(const char *val, bool *out)
{
    for (size_t i = 0; i < N_ELEMS(bool_on); i++) {
        if (strcmp(val, bool_on[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcmp(val, bool_off[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return -EINVAL;
}

static int bool_parse(const struct opt *o, struct conf *c, const char *val,
                      char *err)
{
    bool *f = field(o, c);

    if (bool_word(val, f) < 0) {
        snprintf(err, ERR_MAX,
                 "'%.64s' is not on or off (also true/false, yes/no, 1/0)",
                 val);
        return -EINVAL;
    }
    return 0;
}

static void bool_print(FILE *out, const struct opt *o, const struct conf *c)
{
    const bool *f = cfield(o, c);

    fprintf(out, "%s = %s\n", o->name, *f ? "on" : "off");
}

static void bool_reset(const struct opt *o, struct conf *c)
{
    bool *f = field(o, c);

    *f = false;
}

static void action_print(FILE *out, const struct opt *o, const struct conf *c)
{
    (void)out;
    (void)o;
    (void)c;
}

static const struct type t_bool = {"on|off", bool_parse, bool_print, bool_reset,
                                   TYPE_BOOL};
static const struct type t_action = {NULL, bool_parse, action_print, bool_reset,
                                     TYPE_NO_VALUE};

/* ---- numbers: unsigned, size with K/M/G, seconds with s/m/h ---- */

/*
 * Parse decimal digits then an optional suffix from @units (each a letter
 * and its multiplier). No sign, no spaces, no hex: a config value means what
 * it looks like.
 */
struct unit {
    char letter;
    unsigned long long mult;
};

static const struct unit size_units[] = {
    {'k', 1ULL << 10},
    {'m', 1ULL << 20},
    {'g', 1ULL << 30},
};

/* 32768 as "32K": the largest unit that divides it */
static const char *size_str(unsigned long long v, char *buf, size_t n)
{
    static const char suffix[] = "KMG";

    for (size_t i = N_ELEMS(size_units); i-- > 0;) {
        if (v != 0 && v % size_units[i].mult == 0) {
            snprintf(buf, n, "%llu%c", v / size_units[i].mult, suffix[i]);
            return buf;
        }
    }
    snprintf(buf, n, "%llu", v);
    return buf;
}

static int number(const struct opt *o, const char *val, const struct unit *u,
                  size_t n_units, unsigned long long *out, char *err)
{
    unsigned long long v = 0, mult = 1;
    const char *p = val;
    char lo[32], hi[32];

    if (!isdigit((unsigned char)*p))
        goto bad;
    for (; isdigit((unsigned char)*p); p++) {
        unsigned d = (unsigned)(*p - '0');

        if (v > (ULLONG_MAX - d) / 10)
            goto range;
        v = v * 10 + d;
    }
    if (*p != '\0') {
        size_t i;

        for (i = 0; i < n_units; i++) {
            if (tolower((unsigned char)*p) == u[i].letter)
                break;
        }
        if (i == n_units || p[1] != '\0')
            goto bad;
        mult = u[i].mult;
    }
    if (v > ULLONG_MAX / mult)
        goto range;
    v *= mult;
    if (v < o->min || v > o->max)
        goto range;
    *out = v;
    return 0;
bad:
    if (n_units == 0)
        snprintf(err, ERR_MAX, "'%.64s' is not a number", val);
    else
        snprintf(err, ERR_MAX, "'%.64s' is not a number with an optional %s",
                 val, u[0].letter == 's' ? "s/m/h suffix" : "K/M/G suffix");
    return -EINVAL;
range:
    if (u == size_units)
        snprintf(err, ERR_MAX, "%.64s is out of range %s..%s", val,
                 size_str(o->min, lo, sizeof(lo)),
                 size_str(o->max, hi, sizeof(hi)));
    else
        snprintf(err, ERR_MAX, "%.64s is out of range %llu..%llu", val, o->min,
                 o->max);
    return -EINVAL;
}

static int uint_parse(const struct opt *o, struct conf *c, const char *val,
                      char *err)
{
    unsigned long long v;
    int r = number(o, val, NULL, 0, &v, err);

    if (r == 0)
        *(unsigned *)field(o, c) = (unsigned)v;
    return r;
}

static void uint_print(FILE *out, const struct opt *o, const struct conf *c)
{
    fprintf(out, "%s = %u\n", o->name, *(const unsigned *)cfield(o, c));
}

static void uint_reset(const struct opt *o, struct conf *c)
{
    *(unsigned *)field(o, c) = 0;
}

static int size_parse(const struct opt *o, struct conf *c, const char *val,
                      char *err)
{
    unsigned long long v;
    int r = number(o, val, size_units, N_ELEMS(size_units), &v, err);

    if (r == 0)
        *(size_t *)field(o, c) = (size_t)v;
    return r;
}

static void size_print(FILE *out, const struct opt *o, const struct conf *c)
{
    char buf[32];

    fprintf(out, "%s = %s\n", o->name,
            size_str(*(const size_t *)cfield(o, c), buf, sizeof(buf)));
}

static void size_reset(const struct opt *o, struct conf *c)
{
    *(size_t *)field(o, c) = 0;
}

static const struct unit second_units[] = {
    {'s', 1},
    {'m', 60},
    {'h', 3600},
};

static int seconds_parse(const struct opt *o, struct conf *c, const char *val,
                         char *err)
{
    unsigned long long v;
    int r = number(o, val, second_units, N_ELEMS(second_units), &v, err);

    if (r == 0)
        *(unsigned *)field(o, c) = (unsigned)v;
    return r;
}

static const struct type t_uint = {"N", uint_parse, uint_print, uint_reset, 0};
static const struct type t_size = {"SIZE", size_parse, size_print, size_reset,
                                   0};
static const struct type t_seconds = {"SECONDS", seconds_parse, uint_print,
                                      uint_reset, 0};

/* ---- enums: one of o->names, stored as its index ---- */

static size_t n_names(const char *const *names)
{
    size_t n = 0;

    while (names[n])
        n++;
    return n;
}

/* "a, b or c" into buf */
static void names_join(const char *const *names, const char *sep,
                       const char *last, char *buf, size_t size)
{
    size_t n = n_names(names), len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n && len < size; i++) {
        const char *s = i == 0 ? "" : i + 1 == n ? last : sep;
        int w = snprintf(buf + len, size - len, "%s%s", s, names[i]);

        if (w < 0)
            break;
        len += (size_t)w;
    }
}

static int enum_parse(const struct opt *o, struct conf *c, const char *val,
                      char *err)
{
    char list[128];

    for (size_t i = 0; o->names[i]; i++) {
        if (strcmp(val, o->names[i]) == 0) {
            *(unsigned *)field(o, c) = (unsigned)i;
            return 0;
        }
    }
    names_join(o->names, ", ", " or ", list, sizeof(list));
    snprintf(err, ERR_MAX, "'%.64s' is not %s", val, list);
    return -EINVAL;
}

static void enum_print(FILE *out, const struct opt *o, const struct conf *c)
{
    unsigned v = *(const unsigned *)cfield(o, c);

    fprintf(out, "%s = %s\n", o->name,
            v < n_names(o->names) ? o->names[v] : "?");
}

static const struct type t_enum = {NULL, enum_parse, enum_print, uint_reset, 0};

/* ---- resolver backend and confinement flags (names from resolver.h) ---- */

static int backend_parse(const struct opt *o, struct conf *c, const char *val,
                         char *err)
{
    enum resolver_backend *f = field(o, c);

    if (resolver_backend_parse(val, f) < 0) {
        snprintf(err, ERR_MAX,
                 "'%.64s' is not auto, kernel, emulated or lexical", val);
        return -EINVAL;
    }
    return 0;
}

static void backend_print(FILE *out, const struct opt *o, const struct conf *c)
{
    const enum resolver_backend *f = cfield(o, c);

    fprintf(out, "%s = %s\n", o->name, resolver_backend_name(*f));
}

static void backend_reset(const struct opt *o, struct conf *c)
{
    *(enum resolver_backend *)field(o, c) = RESOLVER_BACKEND_DEFAULT;
}

static int confine_parse(const struct opt *o, struct conf *c, const char *val,
                         char *err)
{
    uint64_t flags = 0;
    const char *bad = NULL;
    size_t bad_len = 0, n = 0;
    char list[256];

    /* "beneath, no-xdev": flag names have no spaces, so drop them all */
    for (const char *p = val; *p && n + 1 < sizeof(list); p++) {
        if (*p != ' ' && *p != '\t')
            list[n++] = *p;
    }
    list[n] = '\0';
    /* "none" is what resolver_flags_format prints for 0: read it back */
    if (n == 0 || (strcmp(list, "none") != 0 &&
                   resolver_flags_parse(list, &flags, &bad, &bad_len) < 0)) {
        if (n == 0) {
            bad = list;
            bad_len = 0;
        }
        snprintf(err, ERR_MAX,
                 "unknown flag '%.*s' (flags: beneath, in-root, no-xdev, "
                 "no-symlinks, no-magiclinks, no-jumps; or none)",
                 (int)(bad_len > 64 ? 64 : bad_len), bad);
        return -EINVAL;
    }
    if (resolver_flags_check(flags) < 0) {
        snprintf(err, ERR_MAX, "beneath and in-root exclude each other");
        return -EINVAL;
    }
    *(uint64_t *)field(o, c) = flags;
    return 0;
}

static void confine_print(FILE *out, const struct opt *o, const struct conf *c)
{
    char buf[128];

    resolver_flags_format(*(const uint64_t *)cfield(o, c), buf, sizeof(buf));
    fprintf(out, "%s = %s\n", o->name, buf);
}

static void confine_reset(const struct opt *o, struct conf *c)
{
    *(uint64_t *)field(o, c) = 0;
}

static const struct type t_backend = {NULL, backend_parse, backend_print,
                                      backend_reset, 0};
static const struct type t_confine = {"LIST", confine_parse, confine_print,
                                      confine_reset, 0};

/* ---- string lists: comma list (replaces) or one item per use (appends) ----
 */

static int strv_push(struct conf_strv *v, const char *s, size_t len)
{
    char **nv = realloc(v->v, (v->n + 1) * sizeof(*nv));

    if (nv == NULL)
        return -ENOMEM;
    v->v = nv;
    v->v[v->n] = strndup(s, len);
    if (v->v[v->n] == NULL)
        return -ENOMEM;
    v->n++;
    return 0;
}

static void strv_free(struct conf_strv *v)
{
    for (size_t i = 0; i < v->n; i++)
        free(v->v[i]);
    free(v->v);
    v->v = NULL;
    v->n = 0;
}

static int list_parse(const struct opt *o, struct conf *c, const char *val,
                      char *err)
{
    struct conf_strv nv = {0};
    const char *p = val;
    int r = check_text(val, err);

    if (r < 0)
        return r;
    for (;;) {
        size_t len;
        char item[256];

        /* "index.html, index.htm": spaces around items are not part of them */
        p += strspn(p, " \t");
        len = strcspn(p, ",");
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (len == 0 || len >= sizeof(item)) {
            snprintf(err, ERR_MAX,
                     len ? "list item too long" : "empty item in comma list");
            r = -EINVAL;
            goto out_free;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (o->check && (r = o->check(item, err)) < 0)
            goto out_free;
        if ((r = strv_push(&nv, p, len)) < 0)
            goto out_free;
        p += len + strspn(p + len, " \t");
        if (*p == '\0')
            break;
        p++; /* the comma */
    }
    strv_free(field(o, c));
    *(struct conf_strv *)field(o, c) = nv;
    return 0;
out_free:
    strv_free(&nv);
    return r;
}

static void list_print(FILE *out, const struct opt *o, const struct conf *c)
{
    const struct conf_strv *v = cfield(o, c);

    fprintf(out, "%s = ", o->name);
    for (size_t i = 0; i < v->n; i++)
        fprintf(out, "%s%s", i ? "," : "", v->v[i]);
    fputc('\n', out);
}

static void list_reset(const struct opt *o, struct conf *c)
{
    strv_free(field(o, c));
}

/* For issue 4/5 options such as headers: each use appends one item. */
static int item_parse(const struct opt *o, struct conf *c, const char *val,
                      char *err)
{
    int r = check_text(val, err);

    if (r == 0 && o->check)
        r = o->check(val, err);
    if (r < 0)
        return r;
    return strv_push(field(o, c), val, strlen(val));
}

static void item_print(FILE *out, const struct opt *o, const struct conf *c)
{
    const struct conf_strv *v = cfield(o, c);

    for (size_t i = 0; i < v->n; i++)
        print_str(out, o->name, v->v[i]);
}

static const struct type t_list = {"LIST", list_parse, list_print, list_reset,
                                   0};
/* Unused until issues 4 and 5 add repeatable text options (headers). */
__attribute__((unused)) static const struct type t_items = {
    "TEXT", item_parse, item_print, list_reset, 0};

/* ---- listen addresses ---- */

static int port_parse(const char *s, unsigned *port, char *err)
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

/*
 * Syntax only: "HOST:PORT", "[V6]:PORT", "PORT", "http://HOST[:PORT][/]",
 * "https://HOST[:PORT][/]", "unix:PATH". Whether the name resolves or the
 * port can be bound is the server's business at start-up.
 */
static int listen_syntax(const char *val, struct conf_listen *l, char *err)
{
    const char *p = val, *host, *colon;
    size_t host_len, len;
    bool scheme = false;
    char rest[128];

    memset(l, 0, sizeof(*l));
    if (strncmp(p, "unix:", 5) == 0) {
        l->kind = CONF_LISTEN_UNIX;
        p += 5;
        if (*p == '\0') {
            snprintf(err, ERR_MAX, "empty unix socket path");
            return -EINVAL;
        }
        if (strlen(p) >= UNIX_PATH_MAX) {
            snprintf(err, ERR_MAX, "unix socket path longer than %d bytes",
                     UNIX_PATH_MAX - 1);
            return -EINVAL;
        }
        l->path = strdup(p);
        return l->path ? 0 : -ENOMEM;
    }
    l->kind = CONF_LISTEN_TCP;
    if (strncmp(p, "http://", 7) == 0) {
        p += 7;
        scheme = true;
    } else if (strncmp(p, "https://", 8) == 0) {
        p += 8;
        scheme = true;
        l->tls = true;
    } else if (strstr(p, "://")) {
        snprintf(err, ERR_MAX, "'%.64s': only http:// and https:// URLs", val);
        return -EINVAL;
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
    p = rest;
    if (*p == '[') {
        const char *close = strchr(p, ']');

        host = p + 1;
        if (close == NULL || !ipv6_chars(host, (size_t)(close - host))) {
            snprintf(err, ERR_MAX, "'%.64s': bad IPv6 address in [...]", val);
            return -EINVAL;
        }
        host_len = (size_t)(close - host);
        colon = close[1] == ':' ? close + 1 : NULL;
        if (close[1] != '\0' && colon == NULL) {
            snprintf(err, ERR_MAX, "'%.64s': expected ':PORT' after ']'", val);
            return -EINVAL;
        }
    } else {
        colon = strchr(p, ':');
        if (colon && strchr(colon + 1, ':')) {
            snprintf(err, ERR_MAX,
                     "'%.64s': an IPv6 address needs brackets, as in "
                     "[::1]:8080",
                     val);
            return -EINVAL;
        }
        if (colon == NULL && !scheme && host_chars(p, len, "")) {
            /* "8080" alone: loopback, the safe choice */
            bool digits = true;

            for (const char *d = p; *d; d++)
                digits = digits && isdigit((unsigned char)*d);
            if (digits) {
                l->host = strdup("127.0.0.1");
                if (l->host == NULL)
                    return -ENOMEM;
                return port_parse(p, &l->port, err);
            }
        }
        host = p;
        host_len = colon ? (size_t)(colon - p) : len;
        if (host_len == 0) {
            snprintf(err, ERR_MAX,
                     "'%.64s': missing host (all addresses: 0.0.0.0:PORT or "
                     "[::]:PORT)",
                     val);
            return -EINVAL;
        }
        if (!host_chars(host, host_len, ".-_")) {
            snprintf(err, ERR_MAX, "'%.64s': bad host name", val);
            return -EINVAL;
        }
    }
    if (colon == NULL && !scheme) {
        snprintf(err, ERR_MAX, "'%.64s': missing port, as in 127.0.0.1:8080",
                 val);
        return -EINVAL;
    }
    if (colon == NULL)
        l->port = l->tls ? 443 : 80;
    else if (port_parse(colon + 1, &l->port, err) < 0)
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

static int listen_parse(const struct opt *o, struct conf *c, const char *val,
                        char *err)
{
    struct conf_listen l, *nl;
    int r = check_text(val, err);

    (void)o;
    if (r < 0)
        return r;
    r = listen_syntax(val, &l, err);
    if (r < 0)
        goto out_clear;
    nl = realloc(c->listen, (c->n_listen + 1) * sizeof(*nl));
    if (nl == NULL) {
        r = -ENOMEM;
        goto out_clear;
    }
    c->listen = nl;
    c->listen[c->n_listen++] = l;
    return 0;
out_clear:
    listen_clear(&l);
    return r;
}

static void listen_print(FILE *out, const struct opt *o, const struct conf *c)
{
    for (size_t i = 0; i < c->n_listen; i++) {
        const struct conf_listen *l = &c->listen[i];

        char *text = NULL;
        int n;

        if (l->kind == CONF_LISTEN_UNIX)
            n = asprintf(&text, "unix:%s", l->path);
        else
            n = asprintf(&text, "%s%s%s%s:%u", l->tls ? "https://" : "",
                         strchr(l->host, ':') ? "[" : "", l->host,
                         strchr(l->host, ':') ? "]" : "", l->port);
        if (n < 0) {
            /* out of memory: leave a line that fails loudly if read back */
            fprintf(out, "%s = ?\n", o->name);
            continue;
        }
        /* quoted when needed: "unix:/x " keeps its space */
        print_str(out, o->name, text);
        free(text);
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

static const struct type t_listen = {"ADDR", listen_parse, listen_print,
                                     listen_reset, 0};

/* ---- checks and computed defaults ---- */

static int check_index_name(const char *item, char *err)
{
    if (strchr(item, '/') || strcmp(item, ".") == 0 ||
        strcmp(item, "..") == 0) {
        snprintf(err, ERR_MAX,
                 "'%.64s' is not a file name (no '/', '.' or '..')", item);
        return -EINVAL;
    }
    return 0;
}

static const char *online_cpus(char *buf, size_t n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    if (cpus < 1)
        cpus = 1;
    if (cpus > 1024)
        cpus = 1024;
    snprintf(buf, n, "%ld", cpus);
    return buf;
}

static const char *const dotfiles_names[] = {
    [CONF_DOTFILES_DENY] = "deny", [CONF_DOTFILES_ALLOW] = "allow", NULL};
static const char *const etag_names[] = {[CONF_ETAG_CONTENT] = "content",
                                         [CONF_ETAG_MTIME] = "mtime",
                                         [CONF_ETAG_OFF] = "off",
                                         NULL};
static const char *const sandbox_names[] = {[CONF_SANDBOX_ON] = "on",
                                            [CONF_SANDBOX_OFF] = "off",
                                            [CONF_SANDBOX_STRICT] = "strict",
                                            NULL};
static const char *const log_format_names[] = {
    [CONF_LOG_COMBINED] = "combined", [CONF_LOG_JSON] = "json", NULL};

#define OFF(f) offsetof(struct conf, f)

/*
 * The option table, sorted by name (the tests check it). Defaults are
 * strings in the syntax a user writes, parsed by the row's own type.
 */
static const struct opt opts[] = {
    {.name = "access-log",
     .type = &t_path,
     .off = OFF(access_log),
     .dflt = "-",
     .metavar = "PATH|-|off",
     .help = "access log file; - is standard output, off disables it"},
    {.name = "cache",
     .type = &t_items,
     .off = OFF(cache),
     .metavar = "GLOBS=VALUE",
     .dflt_help = "none",
     .help = "Cache-Control VALUE for paths matching a comma list of globs "
             "(\"*.css,*.js=max-age=31536000, immutable\", \"assets/**=...\"); "
             "first match wins; repeatable",
     .flags = OPT_REPEAT},
    {.name = "cache-default",
     .type = &t_string,
     .off = OFF(cache_default),
     .metavar = "VALUE",
     .dflt_help = "none",
     .help = "Cache-Control for files no --cache rule matches"},
    {.name = "check",
     .type = &t_action,
     .off = OFF(check),
     .help = "validate the configuration, print the effective one, exit",
     .flags = OPT_CLI_ONLY},
    {.name = "config",
     .type = &t_path,
     .off = OFF(config),
     .metavar = "FILE",
     .help = "read options from this key = value file",
     .flags = OPT_NO_FILE},
    {.name = "confine",
     .type = &t_confine,
     .off = OFF(confine),
     .dflt = "beneath,no-magiclinks",
     .help = "resolver flags: beneath, in-root, no-xdev, no-symlinks, "
             "no-magiclinks, no-jumps (beneath excludes in-root; none: "
             "unconfined)"},
    {.name = "dotfiles",
     .type = &t_enum,
     .off = OFF(dotfiles),
     .dflt = "deny",
     .names = dotfiles_names,
     .help = "serve names starting with '.' (/.well-known/ is always "
             "allowed)"},
    {.name = "etag",
     .type = &t_enum,
     .off = OFF(etag),
     .dflt = "content",
     .names = etag_names,
     .help = "ETag of files: content (SHA-256 of the bytes, the same on "
             "every replica), mtime (\"mtime-size\", cheap) or off"},
    {.name = "fallback",
     .type = &t_path,
     .off = OFF(fallback),
     .metavar = "FILE",
     .dflt_help = "none",
     .help = "file under the root served with 200 to GET/HEAD requests that "
             "would be 404 (single-page apps)"},
    {.name = "header",
     .type = &t_items,
     .off = OFF(header),
     .metavar = "\"NAME: VALUE\"",
     .dflt_help = "none",
     .help = "add this header to every response; repeatable",
     .flags = OPT_REPEAT},
    {.name = "header-timeout",
     .type = &t_seconds,
     .off = OFF(header_timeout),
     .dflt = "10",
     .min = 1,
     .max = 3600,
     .help = "seconds a client has to send a request's headers (s/m/h "
             "suffix allowed)"},
    {.name = "health",
     .type = &t_path,
     .off = OFF(health),
     .metavar = "URLPATH",
     .dflt_help = "off",
     .help = "answer GET/HEAD of this path with 200 \"ok\" (e.g. /healthz)"},
    {.name = "help",
     .type = &t_action,
     .off = OFF(help),
     .help = "show this help and exit",
     .flags = OPT_CLI_ONLY},
    {.name = "hsts",
     .type = &t_seconds,
     .off = OFF(hsts),
     .dflt = "0",
     .min = 0,
     .max = 63072000,
     .help = "add Strict-Transport-Security with this max-age to HTTPS "
             "responses; 0: none"},
    {.name = "index",
     .type = &t_list,
     .off = OFF(index),
     .dflt = "index.html",
     .metavar = "NAMES",
     .help = "comma list of index file names tried in a directory",
     .check = check_index_name},
    {.name = "listen",
     .type = &t_listen,
     .off = 0,
     .dflt = "127.0.0.1:8080",
     .help = "HOST:PORT, [V6]:PORT, PORT (on 127.0.0.1), http://HOST:PORT, "
             "https://HOST:PORT or unix:PATH; port 0 picks a free port; "
             "repeatable (in BENEATH_LISTEN: separated by spaces)",
     .flags = OPT_REPEAT | OPT_ENV_SPLIT},
    {.name = "listing",
     .type = &t_bool,
     .off = OFF(listing),
     .dflt = "off",
     .help = "list directories that have no index file"},
    {.name = "log-format",
     .type = &t_enum,
     .off = OFF(log_format),
     .dflt = "combined",
     .names = log_format_names,
     .help = "access log format"},
    {.name = "max-connections",
     .type = &t_uint,
     .off = OFF(max_connections),
     .dflt = "1024",
     .min = 1,
     .max = 1000000,
     .help = "connections open at once, in total"},
    {.name = "max-connections-per-ip",
     .type = &t_uint,
     .off = OFF(max_connections_per_ip),
     .dflt = "64",
     .min = 0,
     .max = 1000000,
     .help = "connections open at once from one client address; 0: no limit"},
    {.name = "max-header-size",
     .type = &t_size,
     .off = OFF(max_header_size),
     .dflt = "32K",
     .min = 4096,
     .max = 1 << 20,
     .help = "bytes of request line and headers (K/M suffix allowed)"},
    {.name = "metrics",
     .type = &t_path,
     .off = OFF(metrics),
     .metavar = "URLPATH",
     .dflt_help = "off",
     .help = "serve Prometheus metrics at this path (e.g. /metrics)"},
    {.name = "precompressed",
     .type = &t_string,
     .off = OFF(precompressed),
     .dflt = "off",
     .metavar = "br,zst,gz|off",
     .help = "serve FILE.br, FILE.zst, FILE.gz to clients accepting them, in "
             "this order of preference (compressible types only)"},
    {.name = "resolver",
     .type = &t_backend,
     .off = OFF(resolver),
     .dflt = "auto",
     .metavar = "auto|kernel|emulated|lexical",
     .help = "how paths are resolved: auto (kernel, else emulated), kernel "
             "(openat2), emulated (userspace walk), lexical (UNSAFE, "
             "benchmarks only)"},
    {.name = "resolver-cache",
     .type = &t_uint,
     .off = OFF(resolver_cache),
     .dflt = "1024",
     .min = 0,
     .max = 65536,
     .help = "directories the emulated resolver keeps open per server "
             "thread, checked against the kernel's change events on every "
             "use (one fd each); 0: walk every directory every time"},
    {.name = "root",
     .type = &t_path,
     .off = OFF(root),
     .dflt = ".",
     .metavar = "DIR",
     .dflt_help = "the current directory",
     .help = "document root; also the positional ROOT"},
    {.name = "sandbox",
     .type = &t_enum,
     .off = OFF(sandbox),
     .dflt = "on",
     .names = sandbox_names,
     .help = "confine the process once it serves: Landlock (read beneath the "
             "root, write the access log, bind the listening ports) and a "
             "seccomp allow-list; on: what the kernel supports, refused calls "
             "fail with EPERM; strict: both required, a refused call kills; "
             "off: neither"},
    {.name = "security-headers",
     .type = &t_bool,
     .off = OFF(security_headers),
     .dflt = "off",
     .help = "add X-Content-Type-Options, Referrer-Policy, X-Frame-Options and "
             "CSP frame-ancestors"},
    {.name = "server-timing",
     .type = &t_bool,
     .off = OFF(server_timing),
     .dflt = "off",
     .help = "add Server-Timing: resolve;dur=MS (the resolver's time)"},
    {.name = "shutdown-timeout",
     .type = &t_seconds,
     .off = OFF(shutdown_timeout),
     .dflt = "10",
     .min = 0,
     .max = 3600,
     .help = "seconds to finish requests in flight on SIGTERM/SIGINT"},
    {.name = "threads",
     .type = &t_uint,
     .off = OFF(threads),
     .dflt_fn = online_cpus,
     .dflt_help = "number of CPUs",
     .min = 1,
     .max = 1024,
     .help = "worker threads"},
    {.name = "timeout",
     .type = &t_seconds,
     .off = OFF(timeout),
     .dflt = "30",
     .min = 1,
     .max = 86400,
     .help = "seconds of inactivity before a connection is closed"},
    {.name = "tls-cert",
     .type = &t_path,
     .off = OFF(tls_cert),
     .metavar = "FILE",
     .dflt_help = "none",
     .help = "PEM certificate chain (leaf first) for https:// listeners"},
    {.name = "tls-key",
     .type = &t_path,
     .off = OFF(tls_key),
     .metavar = "FILE",
     .dflt_help = "none",
     .help = "PEM private key of --tls-cert"},
    {.name = "tls-key-password-file",
     .type = &t_path,
     .off = OFF(tls_key_password_file),
     .metavar = "FILE",
     .dflt_help = "none",
     .help = "file whose first line decrypts an encrypted --tls-key"},
    {.name = "tls-self-signed",
     .type = &t_bool,
     .off = OFF(tls_self_signed),
     .dflt = "off",
     .help = "make an in-memory self-signed certificate for localhost, "
             "127.0.0.1 and ::1 at start-up (local work)"},
    {.name = "try-html",
     .type = &t_bool,
     .off = OFF(try_html),
     .dflt = "off",
     .help = "serve /guide from guide.html when guide does not exist"},
    {.name = "user",
     .type = &t_string,
     .off = OFF(user),
     .metavar = "NAME",
     .dflt_help = "none",
     .help = "when started as root, switch to this user after binding"},
    {.name = "version",
     .type = &t_action,
     .off = OFF(version),
     .help = "show the version and exit",
     .flags = OPT_CLI_ONLY},
};

#define N_OPTS N_ELEMS(opts)

/* ---- diagnostics ---- */

__attribute__((format(printf, 2, 3))) static int diag_add(struct conf_diag *d,
                                                          const char *fmt, ...)
{
    va_list ap;
    char *msg, **nm;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -ENOMEM;
    nm = realloc(d->msgs, (d->n + 1) * sizeof(*nm));
    if (nm == NULL) {
        free(msg);
        return -ENOMEM;
    }
    d->msgs = nm;
    d->msgs[d->n++] = msg;
    return -EINVAL;
}

/* Keep the worst result: -ENOMEM over -EINVAL over 0. */
static void worst(int *acc, int r)
{
    if (r == -ENOMEM || (r < 0 && *acc == 0))
        *acc = r;
}

/* ---- lookup and suggestions ---- */

static const struct opt *find(const char *name, size_t len)
{
    for (size_t i = 0; i < N_OPTS; i++) {
        if (strlen(opts[i].name) == len &&
            strncmp(opts[i].name, name, len) == 0)
            return &opts[i];
    }
    return NULL;
}

/* Edit distance, for "did you mean"; long input is not worth a guess. */
static size_t distance(const char *a, size_t la, const char *b)
{
    size_t lb = strlen(b), row[64], i, j;

    if (la >= N_ELEMS(row) || lb >= N_ELEMS(row))
        return SIZE_MAX;
    for (j = 0; j <= lb; j++)
        row[j] = j;
    for (i = 1; i <= la; i++) {
        size_t diag = row[0];

        row[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);

            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            if (up + 1 < best)
                best = up + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static const struct opt *closest(const char *name, size_t len)
{
    const struct opt *best = NULL;
    size_t best_d = SIZE_MAX;

    for (size_t i = 0; i < N_OPTS; i++) {
        size_t d = distance(name, len, opts[i].name);

        if (d < best_d) {
            best_d = d;
            best = &opts[i];
        }
    }
    /* a guess at most a third wrong is a useful one */
    return best && best_d * 3 <= len + 2 ? best : NULL;
}

static bool is(const struct opt *o, const char *name)
{
    return strcmp(o->name, name) == 0;
}

/* "access_log" and "access-log" name the same key in the file */
static void dashes(char *s)
{
    for (; *s; s++) {
        if (*s == '_')
            *s = '-';
    }
}

/* ---- applying one value ---- */

/*
 * Set @o from @val, one source's use. @seen is that source's per-option use
 * count: a repeatable option is emptied at its first use in a source.
 */
static int apply(const struct opt *o, struct conf *c, const char *val,
                 unsigned *seen, const char *place, struct conf_diag *d)
{
    char err[ERR_MAX];
    int r;

    if ((o->flags & OPT_REPEAT) && seen[o - opts] == 0)
        o->type->reset(o, c);
    seen[o - opts]++;
    if (*val == '\0')
        return diag_add(d, "%sempty value", place);
    err[0] = '\0';
    r = o->type->parse(o, c, val, err);
    if (r == -EINVAL)
        return diag_add(d, "%s%s", place, err);
    return r;
}

int conf_defaults(struct conf *c)
{
    unsigned seen[N_OPTS] = {0};
    struct conf_diag d = {0};
    char buf[32];
    int r = 0;

    memset(c, 0, sizeof(*c));
    for (size_t i = 0; i < N_OPTS; i++) {
        const char *v = opts[i].dflt;

        if (opts[i].dflt_fn)
            v = opts[i].dflt_fn(buf, sizeof(buf));
        if (v)
            worst(&r, apply(&opts[i], c, v, seen, "default: ", &d));
    }
    /* a default the table rejects is a bug in the table: tests catch it */
    conf_diag_free(&d);
    return r;
}

/* ---- the file ---- */

int conf_parse(FILE *f, const char *name, struct conf *c,
               struct conf_diag *diag)
{
    unsigned seen[N_OPTS] = {0}, first_line[N_OPTS] = {0};
    char *line = NULL, *key, *val, err[ERR_MAX], place[ERR_MAX];
    size_t cap = 0;
    unsigned lineno = 0;
    ssize_t len;
    int r = 0;

    while ((len = getline(&line, &cap, f)) >= 0) {
        const struct opt *o;

        lineno++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        snprintf(place, sizeof(place), "%s:%u: ", name, lineno);
        if (memchr(line, '\0', (size_t)len)) {
            worst(&r, diag_add(diag, "%sNUL byte in line", place));
            continue;
        }
        switch (lexer_split(line, (size_t)len, &key, &val, err, sizeof(err))) {
        case LEXER_BLANK:
            continue;
        case LEXER_ERROR:
            worst(&r, diag_add(diag, "%s%s", place, err));
            continue;
        case LEXER_PAIR:
            break;
        }
        dashes(key);
        o = find(key, strlen(key));
        if (o == NULL) {
            const struct opt *g = closest(key, strlen(key));

            if (g)
                worst(&r, diag_add(diag,
                                   "%sunknown key '%.64s' (did you mean "
                                   "'%s'?)",
                                   place, key, g->name));
            else
                worst(&r, diag_add(diag, "%sunknown key '%.64s'", place, key));
            continue;
        }
        if (o->flags & OPT_CLI_ONLY) {
            worst(&r, diag_add(diag,
                               "%s'%s' is a command-line action (--%s), not "
                               "a setting",
                               place, o->name, o->name));
            continue;
        }
        if (o->flags & OPT_NO_FILE) {
            worst(&r, diag_add(diag,
                               "%s'%s' cannot be set in a file (use --%s or "
                               "BENEATH_CONFIG)",
                               place, o->name, o->name));
            continue;
        }
        if (!(o->flags & OPT_REPEAT) && seen[o - opts]) {
            worst(&r, diag_add(diag, "%sduplicate key '%s' (first at line %u)",
                               place, o->name, first_line[o - opts]));
            continue;
        }
        if (!seen[o - opts])
            first_line[o - opts] = lineno;
        snprintf(place, sizeof(place), "%s:%u: %s: ", name, lineno, o->name);
        worst(&r, apply(o, c, val, seen, place, diag));
    }
    if (ferror(f))
        worst(&r, diag_add(diag, "%s: %s", name, strerror(errno)));
    free(line);
    return r;
}

/* ---- environment and command line ---- */

struct item {
    const struct opt *o;
    const char *val;
};

struct items {
    struct item *v;
    size_t n;
};

static int items_push(struct items *it, const struct opt *o, const char *val)
{
    struct item *nv = realloc(it->v, (it->n + 1) * sizeof(*nv));

    if (nv == NULL)
        return -ENOMEM;
    it->v = nv;
    it->v[it->n++] = (struct item){o, val};
    return 0;
}

#define ENV_PREFIX "BENEATH_"

/* BENEATH_ACCESS_LOG for access-log */
static void env_name(const struct opt *o, char *buf, size_t n)
{
    size_t i = 0;

    snprintf(buf, n, "%s", ENV_PREFIX);
    i = strlen(buf);
    for (const char *p = o->name; *p && i + 1 < n; p++)
        buf[i++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
    buf[i] = '\0';
}

/*
 * An unknown BENEATH_ variable close to an option name is an error: a typo
 * such as BENEATH_LISTN, silently ignored, would serve with a setting the
 * user did not mean. One that resembles no option (BENEATH_BIN, which test
 * harnesses export) is somebody else's and is left alone.
 */
static int env_scan(char *const envp[], struct items *it,
                    struct conf_diag *diag)
{
    int r = 0;

    for (size_t i = 0; envp && envp[i]; i++) {
        const char *e = envp[i], *eq = strchr(e, '=');
        const struct opt *o = NULL;
        char want[64];

        if (strncmp(e, ENV_PREFIX, strlen(ENV_PREFIX)) != 0 || eq == NULL)
            continue;
        for (size_t j = 0; j < N_OPTS && o == NULL; j++) {
            env_name(&opts[j], want, sizeof(want));
            if (strlen(want) == (size_t)(eq - e) &&
                strncmp(want, e, (size_t)(eq - e)) == 0)
                o = &opts[j];
        }
        if (o == NULL) {
            char name[64];
            const char *p = e + strlen(ENV_PREFIX);
            size_t n = 0;
            const struct opt *g;

            for (; p < eq && n + 1 < sizeof(name); p++)
                name[n++] = *p == '_' ? '-' : (char)tolower((unsigned char)*p);
            name[n] = '\0';
            g = closest(name, n);
            if (g) {
                env_name(g, want, sizeof(want));
                worst(&r, diag_add(diag,
                                   "%.*s: unknown variable (did you mean "
                                   "%s?)",
                                   (int)(eq - e > 64 ? 64 : eq - e), e, want));
            }
            continue;
        }
        if (o->flags & OPT_CLI_ONLY) {
            worst(&r, diag_add(diag,
                               "%s: --%s is a command-line action, not a "
                               "setting",
                               want, o->name));
            continue;
        }
        worst(&r, items_push(it, o, eq + 1));
    }
    return r;
}

struct cli {
    struct items it;
    const char *root_arg; /* the positional ROOT */
    bool help_or_version;
};

static int cli_scan(int argc, char *const argv[], struct cli *cli,
                    struct conf_diag *diag)
{
    bool options = true;
    int r = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *name, *eq, *val = NULL;
        const struct opt *o;
        size_t len;

        if (!options || a[0] != '-' || a[1] == '\0') {
            if (cli->root_arg)
                worst(&r, diag_add(diag,
                                   "ROOT: more than one document root "
                                   "('%.64s', '%.64s')",
                                   cli->root_arg, a));
            else
                cli->root_arg = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            options = false;
            continue;
        }
        if (strcmp(a, "-h") == 0)
            a = "--help";
        if (a[1] != '-') {
            worst(&r, diag_add(diag,
                               "%.64s: unknown option (options are --name; "
                               "see --help)",
                               a));
            continue;
        }
        name = a + 2;
        eq = strchr(name, '=');
        len = eq ? (size_t)(eq - name) : strlen(name);
        o = find(name, len);
        if (o == NULL) {
            const struct opt *g = closest(name, len);

            if (g)
                worst(&r, diag_add(diag,
                                   "--%.*s: unknown option (did you mean "
                                   "--%s?)",
                                   (int)(len > 64 ? 64 : len), name, g->name));
            else
                worst(&r, diag_add(diag, "--%.*s: unknown option",
                                   (int)(len > 64 ? 64 : len), name));
            /* its value, most likely: not a second ROOT to complain about */
            if (!eq && i + 1 < argc && argv[i + 1][0] != '-')
                i++;
            continue;
        }
        if (o->type->flags & TYPE_NO_VALUE) {
            if (eq) {
                worst(&r, diag_add(diag, "--%s: takes no value", o->name));
                continue;
            }
            val = "on";
            if (is(o, "help") || is(o, "version"))
                cli->help_or_version = true;
        } else if (eq) {
            val = eq + 1;
        } else if (o->type->flags & TYPE_BOOL) {
            bool b;

            /* "--listing" alone is on; a following on/off word is its value */
            val = "on";
            if (i + 1 < argc && bool_word(argv[i + 1], &b) == 0)
                val = argv[++i];
        } else if (i + 1 < argc) {
            val = argv[++i];
        } else {
            worst(&r, diag_add(diag, "--%s: missing value (%s)", o->name,
                               o->metavar ? o->metavar : o->type->metavar));
            continue;
        }
        worst(&r, items_push(&cli->it, o, val));
    }
    return r;
}

/* BENEATH_LISTEN="127.0.0.1:8080 [::1]:8080": one use per word */
static int apply_words(const struct opt *o, struct conf *c, const char *val,
                       unsigned *seen, const char *place,
                       struct conf_diag *diag)
{
    const char *sep = " \t";
    char *copy, *word, *save = NULL;
    int r = 0;

    if (val[strspn(val, sep)] == '\0')
        return apply(o, c, "", seen, place, diag);
    copy = strdup(val);
    if (copy == NULL)
        return -ENOMEM;
    for (word = strtok_r(copy, sep, &save); word;
         word = strtok_r(NULL, sep, &save))
        worst(&r, apply(o, c, word, seen, place, diag));
    free(copy);
    return r;
}

static int apply_items(const struct items *it, struct conf *c, bool cli,
                       struct conf_diag *diag)
{
    unsigned seen[N_OPTS] = {0};
    char place[96];
    int r = 0;

    for (size_t i = 0; i < it->n; i++) {
        const struct opt *o = it->v[i].o;

        if (cli)
            snprintf(place, sizeof(place), "--%s: ", o->name);
        else {
            char env[64];

            env_name(o, env, sizeof(env));
            snprintf(place, sizeof(place), "%s: ", env);
        }
        if (!cli && (o->flags & OPT_ENV_SPLIT))
            worst(&r, apply_words(o, c, it->v[i].val, seen, place, diag));
        else
            worst(&r, apply(o, c, it->v[i].val, seen, place, diag));
    }
    return r;
}

static int read_file(const char *path, struct conf *c, struct conf_diag *diag)
{
    FILE *f = fopen(path, "re");
    int r;

    if (f == NULL)
        return diag_add(diag, "%s: %s", path, strerror(errno));
    r = conf_parse(f, path, c, diag);
    fclose(f);
    return r;
}

int conf_load(struct conf *c, int argc, char *const argv[], char *const envp[],
              struct conf_diag *diag)
{
    struct cli cli = {0};
    struct items env = {0};
    const char *config = NULL;
    unsigned seen[N_OPTS] = {0};
    int r;

    r = conf_defaults(c);
    if (r < 0)
        return r;
    worst(&r, cli_scan(argc, argv, &cli, diag));
    /* --help and --version answer whatever the file or environment say */
    if (!cli.help_or_version) {
        worst(&r, env_scan(envp, &env, diag));
        for (size_t i = 0; i < env.n; i++) {
            if (is(env.v[i].o, "config"))
                config = env.v[i].val;
        }
        for (size_t i = 0; i < cli.it.n; i++) {
            if (is(cli.it.v[i].o, "config"))
                config = cli.it.v[i].val;
        }
        if (config && *config)
            worst(&r, read_file(config, c, diag));
        worst(&r, apply_items(&env, c, false, diag));
    }
    worst(&r, apply_items(&cli.it, c, true, diag));
    if (cli.root_arg) {
        bool flag = false;

        for (size_t i = 0; i < cli.it.n; i++)
            flag = flag || is(cli.it.v[i].o, "root");
        if (flag)
            worst(&r, diag_add(diag, "ROOT: '%.64s' given together with --root",
                               cli.root_arg));
        else
            worst(&r, apply(find("root", 4), c, cli.root_arg, seen,
                            "ROOT: ", diag));
    }
    free(env.v);
    free(cli.it.v);
    return r;
}

/* ---- output ---- */

void conf_print(FILE *out, const struct conf *c)
{
    fputs("# beneath effective configuration\n", out);
    if (c->config)
        fprintf(out, "# read from %s\n", c->config);
    for (size_t i = 0; i < N_OPTS; i++) {
        if (opts[i].flags & (OPT_CLI_ONLY | OPT_NO_FILE))
            continue;
        opts[i].type->print(out, &opts[i], c);
    }
}

/* Write @text wrapped at 79 columns, continuation lines indented by @col. */
static void wrap(FILE *out, const char *text, size_t at, size_t col)
{
    const size_t width = 79;

    while (*text) {
        size_t len = strcspn(text, " ");

        if (at > col && at + 1 + len > width) {
            fprintf(out, "\n%*s", (int)col, "");
            at = col;
        } else if (at > col) {
            fputc(' ', out);
            at++;
        }
        fwrite(text, 1, len, out);
        at += len;
        text += len;
        while (*text == ' ')
            text++;
    }
    fputc('\n', out);
}

void conf_help(FILE *out, const char *progname)
{
    const size_t col = 30;

    fprintf(out,
            "Usage: %s [OPTIONS] [ROOT]\n"
            "Serve the static files beneath ROOT over HTTP; every path is "
            "resolved\n"
            "confined to ROOT by the kernel (openat2) or its emulation.\n\n"
            "Options:\n",
            progname ? progname : "beneath");
    for (size_t i = 0; i < N_OPTS; i++) {
        const struct opt *o = &opts[i];
        char head[128], meta[96], text[512];
        const char *mv = o->metavar ? o->metavar : o->type->metavar;
        size_t at;
        int n;

        if (mv == NULL && o->names) {
            names_join(o->names, "|", "|", meta, sizeof(meta));
            mv = meta;
        }
        n = snprintf(head, sizeof(head), "  --%s%s%s", o->name, mv ? " " : "",
                     mv ? mv : "");
        at = n < 0 ? 0 : (size_t)n;
        fputs(head, out);
        if (at + 2 > col) {
            fprintf(out, "\n%*s", (int)col, "");
        } else {
            fprintf(out, "%*s", (int)(col - at), "");
        }
        if (o->dflt_help)
            snprintf(text, sizeof(text), "%s (default: %s)", o->help,
                     o->dflt_help);
        else if (o->dflt)
            snprintf(text, sizeof(text), "%s (default: %s)", o->help, o->dflt);
        else
            snprintf(text, sizeof(text), "%s", o->help);
        wrap(out, text, col, col);
    }
    fputs("\n"
          "Each option can also be set in the environment as BENEATH_NAME "
          "(dashes\n"
          "as underscores: BENEATH_ACCESS_LOG=off) and in the --config file "
          "as\n"
          "\"name = value\" (one per line, # comments, \"quotes\" keep "
          "spaces).\n"
          "Precedence: command line > environment > file > default. A "
          "repeatable\n"
          "option given in a higher source replaces the lower one's list.\n"
          "On/off options: --listing alone means on; --listing on|off and\n"
          "--listing=off also work; values on/off, true/false, yes/no, "
          "1/0.\n"
          "A BENEATH_ variable that looks like a misspelt option is an error.\n"
          "-h is --help.\n",
          out);
}

const char *conf_option_name(size_t i)
{
    return i < N_OPTS ? opts[i].name : NULL;
}

void conf_free(struct conf *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < N_OPTS; i++)
        opts[i].type->reset(&opts[i], c);
}

void conf_diag_free(struct conf_diag *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->n; i++)
        free(d->msgs[i]);
    free(d->msgs);
    d->msgs = NULL;
    d->n = 0;
}
