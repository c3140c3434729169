/* SPDX-License-Identifier: MIT */
/*
 * types.c - the value types of the option table that need nothing but libc
 * and resolver.h: text and paths, on/off and actions, numbers with units,
 * enums, the resolver backend and confinement flags, comma lists. Each type
 * parses a value into its field of struct conf, prints it back in the file
 * syntax, and resets it. Types whose values are parsed by syntax/ live
 * in types_http.c, listen addresses in listen.c.
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(enum conf_dotfiles) == sizeof(unsigned),
               "enum fields are written as unsigned");
_Static_assert(sizeof(enum conf_etag) == sizeof(unsigned),
               "enum fields are written as unsigned");

/* ---- printing values back in file syntax ---- */

/* Quote when the bare form would not read back the same. */
void print_str(FILE *out, const char *name, const char *s)
{
    size_t len = strlen(s);
    /* '#' anywhere: a bare "a #b" would read back as "a" */
    bool quote = len == 0 || s[0] == '"' || strchr(s, '#') ||
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

void print_strf(FILE *out, const char *name, const char *fmt, ...)
{
    va_list ap;
    char *text = NULL;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fprintf(out, "%s = ?\n", name);
        return;
    }
    print_str(out, name, text);
    free(text);
}

void print_built(FILE *out, const char *name, const char *bad,
                 void (*build)(FILE *f, const void *arg), const void *arg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    if (f == NULL) {
        fprintf(out, "%s = %s\n", name, bad);
        return;
    }
    build(f, arg);
    if (fclose(f) != 0) /* the text may be cut short */
        fprintf(out, "%s = %s\n", name, bad);
    else
        print_str(out, name, text);
    free(text);
}

/* ---- strings and paths ---- */

/* apply() has already refused the empty value, for every type */
int check_text(const char *val, char *err)
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

const struct type t_string = {"TEXT", str_parse, str_print, str_reset, 0};
const struct type t_path = {"PATH", str_parse, str_print, str_reset, 0};

/* ---- booleans and actions ---- */

static const char *const bool_on[] = {"on", "true", "yes", "1"};
static const char *const bool_off[] = {"off", "false", "no", "0"};

int bool_word(const char *val, bool *out)
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

const struct type t_bool = {"on|off", bool_parse, bool_print, bool_reset,
                            TYPE_BOOL};
const struct type t_action = {NULL, bool_parse, action_print, bool_reset,
                              TYPE_NO_VALUE};

/* ---- on, off or auto (enum conf_switch); alone it is on ---- */

static int switch_parse(const struct opt *o, struct conf *c, const char *val,
                        char *err)
{
    enum conf_switch *f = field(o, c);
    bool b;

    if (strcmp(val, "auto") == 0) {
        *f = CONF_SWITCH_AUTO;
        return 0;
    }
    if (bool_word(val, &b) < 0) {
        snprintf(err, ERR_MAX,
                 "'%.64s' is not on, off or auto (also true/false, yes/no, "
                 "1/0)",
                 val);
        return -EINVAL;
    }
    *f = b ? CONF_SWITCH_ON : CONF_SWITCH_OFF;
    return 0;
}

static void switch_print(FILE *out, const struct opt *o, const struct conf *c)
{
    const enum conf_switch *f = cfield(o, c);

    fprintf(out, "%s = %s\n", o->name,
            *f == CONF_SWITCH_ON    ? "on"
            : *f == CONF_SWITCH_OFF ? "off"
                                    : "auto");
}

static void switch_reset(const struct opt *o, struct conf *c)
{
    enum conf_switch *f = field(o, c);

    *f = CONF_SWITCH_AUTO;
}

const struct type t_switch = {"on|off|auto", switch_parse, switch_print,
                              switch_reset, TYPE_BOOL};

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

/* A number with one of @units' suffixes into the option's unsigned. */
static int unsigned_parse(const struct opt *o, struct conf *c, const char *val,
                          const struct unit *units, size_t n_units, char *err)
{
    unsigned long long v;
    int r = number(o, val, units, n_units, &v, err);

    if (r == 0)
        *(unsigned *)field(o, c) = (unsigned)v;
    return r;
}

static int uint_parse(const struct opt *o, struct conf *c, const char *val,
                      char *err)
{
    return unsigned_parse(o, c, val, NULL, 0, err);
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
    return unsigned_parse(o, c, val, second_units, N_ELEMS(second_units), err);
}

const struct type t_uint = {"N", uint_parse, uint_print, uint_reset, 0};
const struct type t_size = {"SIZE", size_parse, size_print, size_reset, 0};
const struct type t_seconds = {"SECONDS", seconds_parse, uint_print, uint_reset,
                               0};

/* ---- enums: one of o->names, stored as its index ---- */

static size_t n_names(const char *const *names)
{
    size_t n = 0;

    while (names[n])
        n++;
    return n;
}

/* "a, b or c" into buf */
void names_join(const char *const *names, const char *sep, const char *last,
                char *buf, size_t size)
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

const struct type t_enum = {NULL, enum_parse, enum_print, uint_reset, 0};

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

const struct type t_backend = {NULL, backend_parse, backend_print,
                               backend_reset, 0};
const struct type t_confine = {"LIST", confine_parse, confine_print,
                               confine_reset, 0};

/* ---- comma lists: each use replaces the list ---- */

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

static void list_build(FILE *f, const void *arg)
{
    const struct conf_strv *v = arg;

    for (size_t i = 0; i < v->n; i++)
        fprintf(f, "%s%s", i ? "," : "", v->v[i]);
}

static void list_print(FILE *out, const struct opt *o, const struct conf *c)
{
    /* quoted when an item holds '#'; "," (an empty item) is refused */
    print_built(out, o->name, ",", list_build, cfield(o, c));
}

static void list_reset(const struct opt *o, struct conf *c)
{
    strv_free(field(o, c));
}

const struct type t_list = {"LIST", list_parse, list_print, list_reset, 0};
