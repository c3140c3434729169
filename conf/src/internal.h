/* SPDX-License-Identifier: MIT */
/*
 * internal.h - the contract between conf's own files (not installed).
 *
 * A value type (struct type) knows how to parse, print and reset one kind of
 * field; a row of the option table (struct opt, options.c) names an option
 * and points at its type and field. types.c, types_http.c and listen.c hold
 * the types; options.c the table alone; diag.c messages, name lookup and
 * suggestions; sources.c the defaults, the file, the environment and the
 * command line; help.c conf_print and --help. Includes point one way:
 * every file includes this header, this header includes only conf.h.
 */
#ifndef BENEATH_CONF_INTERNAL_H
#define BENEATH_CONF_INTERNAL_H

#include "common/elems.h"
#include "conf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define ERR_MAX 512
/* Rows the table may grow to; options.c checks it at compile time. */
#define OPTS_MAX 128

struct opt;

/*
 * struct type - how one kind of value is parsed, printed and released.
 * parse writes a message without the place prefix into err (ERR_MAX bytes)
 * and returns -EINVAL, or returns 0 or -ENOMEM. For a repeatable option
 * parse appends; reset empties the field (also what conf_free uses).
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

#define OPT_REPEAT 0x1    /* every use appends; see sources.c */
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
    const char *same_list; /* another row whose field and uses this one shares
                              (--port adds to --listen's list) */
    unsigned flags;
    char short_name; /* -p for --port, or 0 */
};

static inline void *field(const struct opt *o, struct conf *c)
{
    return (char *)c + o->off;
}

static inline const void *cfield(const struct opt *o, const struct conf *c)
{
    return (const char *)c + o->off;
}

/* ---- the table (options.c) ---- */

extern const struct opt opts[];
extern const size_t n_opts;

/* ---- value types (types.c, types_http.c, listen.c) ---- */

extern const struct type t_string, t_path, t_bool, t_switch, t_action, t_uint,
    t_size, t_seconds, t_enum, t_backend, t_confine, t_list;
extern const struct type t_encodings, t_cache, t_cache_default, t_headers,
    t_urlpath, t_root_file, t_cors;
extern const struct type t_listen, t_port;

/* "name = value", quoted when the bare form would not read back the same. */
void print_str(FILE *out, const char *name, const char *s);
/* print_str of a value made from @fmt; out of memory, "name = ?": a line
 * that fails loudly if read back. */
void print_strf(FILE *out, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* print_str of a value that @build(f, @arg) writes into memory; out of
 * memory, "name = @bad": a line that fails loudly if read back. */
void print_built(FILE *out, const char *name, const char *bad,
                 void (*build)(FILE *f, const void *arg), const void *arg);
/* 0, or -EINVAL with a message: a control character in @val. */
int check_text(const char *val, char *err);
/* on/true/yes/1 and off/false/no/0; 0 or -EINVAL. */
int bool_word(const char *val, bool *out);
/* "a, b or c" (@sep between, @last before the last) into @buf. */
void names_join(const char *const *names, const char *sep, const char *last,
                char *buf, size_t size);

/*
 * headers_finish - after the last source: the security header set follows
 * the --header list when security-headers is on (idempotent).
 * Returns 0 or -ENOMEM.
 */
int headers_finish(struct conf *c);

/* ---- diagnostics and names (diag.c) ---- */

/* Add a message; returns -EINVAL (or -ENOMEM when it could not). */
__attribute__((format(printf, 2, 3))) int diag_add(struct conf_diag *d,
                                                   const char *fmt, ...);
/* Add a warning; returns 0 (or -ENOMEM when it could not). */
__attribute__((format(printf, 2, 3))) int diag_warn(struct conf_diag *d,
                                                    const char *fmt, ...);
/* Keep the worst result in *acc: -ENOMEM over -EINVAL over 0. */
void worst(int *acc, int r);
/* The row named @name (@len bytes), or NULL. */
const struct opt *opt_find(const char *name, size_t len);
/* The row with short name @ch, or NULL. */
const struct opt *opt_find_short(char ch);
/* The row whose name is nearest @name, when near enough to guess, or NULL. */
const struct opt *opt_closest(const char *name, size_t len);
/* The index of the use counter @o shares (its same_list row, or its own). */
size_t opt_slot(const struct opt *o);
/* BENEATH_ACCESS_LOG for access-log. */
void opt_env_name(const struct opt *o, char *buf, size_t n);

#endif
