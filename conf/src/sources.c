/* SPDX-License-Identifier: MIT */
/*
 * sources.c - the four sources of a configuration, applied in order: the
 * defaults, the file (conf_parse), the environment (BENEATH_NAME) and the
 * command line, each overwriting the one before. Nothing here knows an option
 * by name except conf_load, for --config, --help/--version and the positional
 * PORT and ROOT.
 *
 * A repeatable option is reset the first time a source names it, so a higher
 * source replaces the list and repeats within one source append (--port shares
 * --listen's list and its count of uses). Every problem becomes one message in
 * the struct conf_diag; parsing goes on after an error so one run shows them
 * all.
 */
#include "access_checks.h"
#include "acme_checks.h"
#include "common/handed.h"
#include "internal.h"
#include "lexer.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Uses of each option in one source, by opt_slot. */
struct uses {
    unsigned n[OPTS_MAX];
};

/*
 * Set @o from @val, one use in the source whose counts are @u: a repeatable
 * option is emptied at its first use in a source.
 */
static int apply(const struct opt *o, struct conf *c, const char *val,
                 struct uses *u, const char *place, struct conf_diag *d)
{
    size_t slot = opt_slot(o);
    char err[ERR_MAX];
    int r;

    if ((o->flags & OPT_REPEAT) && u->n[slot] == 0)
        o->type->reset(o, c);
    u->n[slot]++;
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
    struct uses u = {{0}};
    struct conf_diag d = {0};
    char buf[32];
    int r = 0;

    memset(c, 0, sizeof(*c));
    for (size_t i = 0; i < n_opts; i++) {
        const char *v = opts[i].dflt;

        if (opts[i].dflt_fn)
            v = opts[i].dflt_fn(buf, sizeof(buf));
        if (v)
            worst(&r, apply(&opts[i], c, v, &u, "default: ", &d));
    }
    worst(&r, headers_finish(c));
    /* a default the table rejects is a bug in the table: tests catch it */
    conf_diag_free(&d);
    return r;
}

void conf_free(struct conf *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < n_opts; i++)
        opts[i].type->reset(&opts[i], c);
}

/* ---- the file ---- */

/* "access_log" and "access-log" name the same key in the file */
static void dashes(char *s)
{
    for (; *s; s++) {
        if (*s == '_')
            *s = '-';
    }
}

struct file {
    const char *name;
    unsigned lineno;
    struct uses uses;
    unsigned first_line[OPTS_MAX];
};

/*
 * Options an earlier version had, with what to use now: named in the
 * message instead of "unknown", so an upgrade that breaks a configuration
 * says how to mend it.
 */
static const struct {
    const char *name, *now;
} retired[] = {
    {"tls-priority", "it was a GnuTLS priority string, and beneath speaks "
                     "TLS with OpenSSL now: --tls-ciphers takes an OpenSSL "
                     "cipher list (docs/tls.md)"},
};

/* What to use instead of the retired option @name, or NULL. */
static const char *retired_now(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof retired / sizeof retired[0]; i++)
        if (strlen(retired[i].name) == len &&
            strncmp(retired[i].name, name, len) == 0)
            return retired[i].now;
    return NULL;
}

/* The row a file key names, or NULL after a message. */
static const struct opt *file_key(struct file *f, char *key, const char *place,
                                  struct conf_diag *diag, int *r)
{
    const struct opt *o, *g;

    dashes(key);
    o = opt_find(key, strlen(key));
    if (o == NULL && retired_now(key, strlen(key))) {
        worst(r, diag_add(diag, "%skey '%s' is gone: %s", place, key,
                          retired_now(key, strlen(key))));
        return NULL;
    }
    if (o == NULL) {
        g = opt_closest(key, strlen(key));
        if (g)
            worst(r,
                  diag_add(diag, "%sunknown key '%.64s' (did you mean '%s'?)",
                           place, key, g->name));
        else
            worst(r, diag_add(diag, "%sunknown key '%.64s'", place, key));
        return NULL;
    }
    if (o->flags & OPT_CLI_ONLY) {
        worst(r, diag_add(diag,
                          "%s'%s' is a command-line action (--%s), not a "
                          "setting",
                          place, o->name, o->name));
        return NULL;
    }
    if (o->flags & OPT_NO_FILE) {
        worst(r, diag_add(diag,
                          "%s'%s' cannot be set in a file (use --%s or "
                          "BENEATH_CONFIG)",
                          place, o->name, o->name));
        return NULL;
    }
    if (!(o->flags & OPT_REPEAT) && f->uses.n[o - opts]) {
        worst(r, diag_add(diag, "%sduplicate key '%s' (first at line %u)",
                          place, o->name, f->first_line[o - opts]));
        return NULL;
    }
    if (!f->uses.n[o - opts])
        f->first_line[o - opts] = f->lineno;
    return o;
}

/* One line of @len bytes (no newline); the worst result goes to *r. */
static void file_line(struct file *f, char *line, size_t len, struct conf *c,
                      struct conf_diag *diag, int *r)
{
    struct lexer_line ln;
    const struct opt *o;
    char err[ERR_MAX], place[ERR_MAX];

    snprintf(place, sizeof(place), "%s:%u: ", f->name, f->lineno);
    if (memchr(line, '\0', len)) {
        worst(r, diag_add(diag, "%sNUL byte in line", place));
        return;
    }
    switch (lexer_split(line, len, &ln, err, sizeof(err))) {
    case LEXER_BLANK:
        return;
    case LEXER_ERROR:
        worst(r, diag_add(diag, "%s%s", place, err));
        return;
    case LEXER_PAIR:
        break;
    }
    o = file_key(f, ln.key, place, diag, r);
    if (o == NULL)
        return;
    snprintf(place, sizeof(place), "%s:%u: %s: ", f->name, f->lineno, o->name);
    if (ln.hash_kept)
        worst(r, diag_warn(diag,
                           "%swarning: '#' in '%.64s' is part of the value (a "
                           "comment needs a space before '#'; quote the "
                           "value to keep it)",
                           place, ln.val));
    worst(r, apply(o, c, ln.val, &f->uses, place, diag));
}

int conf_parse(FILE *in, const char *name, struct conf *c,
               struct conf_diag *diag)
{
    struct file f = {.name = name};
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int r = 0;

    while ((len = getline(&line, &cap, in)) >= 0) {
        f.lineno++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        file_line(&f, line, (size_t)len, c, diag, &r);
    }
    if (ferror(in))
        worst(&r, diag_add(diag, "%s: %s", name, strerror(errno)));
    free(line);
    worst(&r, headers_finish(c));
    return r;
}

/* A configuration file is small text: anything larger is a mistake. */
#define CONF_FILE_MAX ((off_t)1 << 20)

static int read_file(const char *path, struct conf *c, struct conf_diag *diag)
{
    /* a regular file only: a FIFO must not wait for a writer */
    int fd = handed_open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    FILE *f;
    int r;

    if (fd < 0)
        return diag_add(diag, "%s: %s", path, handed_strerror(errno));
    if (fstat(fd, &st) != 0) {
        r = errno;
        close(fd);
        return diag_add(diag, "%s: %s", path, strerror(r));
    }
    if (st.st_size > CONF_FILE_MAX) {
        close(fd);
        return diag_add(diag, "%s: larger than %lld bytes", path,
                        (long long)CONF_FILE_MAX);
    }
    f = fdopen(fd, "r");
    if (f == NULL) {
        close(fd);
        return diag_add(diag, "%s: %s", path, strerror(errno));
    }
    r = conf_parse(f, path, c, diag);
    fclose(f);
    return r;
}

/* ---- environment and command line: collected first, applied in order ---- */

struct item {
    const struct opt *o;
    const char *val;
    const char *place; /* for a positional argument, else NULL */
};

struct items {
    struct item *v;
    size_t n;
};

static int items_push(struct items *it, const struct opt *o, const char *val,
                      const char *place)
{
    struct item *nv = realloc(it->v, (it->n + 1) * sizeof(*nv));

    if (nv == NULL)
        return -ENOMEM;
    it->v = nv;
    it->v[it->n++] = (struct item){o, val, place};
    return 0;
}

/* BENEATH_LISTN: an error when it resembles an option, else not ours. */
static int env_unknown(const char *e, const char *eq, struct conf_diag *diag)
{
    const char *p = e + strlen("BENEATH_");
    char name[64], want[64];
    size_t n = 0;
    const struct opt *g;

    for (; p < eq && n + 1 < sizeof(name); p++)
        name[n++] = *p == '_' ? '-' : (char)tolower((unsigned char)*p);
    name[n] = '\0';
    if (retired_now(name, n))
        return diag_add(diag, "%.*s is gone: %s",
                        (int)(eq - e > 64 ? 64 : eq - e), e,
                        retired_now(name, n));
    g = opt_closest(name, n);
    if (g == NULL)
        return 0;
    opt_env_name(g, want, sizeof(want));
    return diag_add(diag, "%.*s: unknown variable (did you mean %s?)",
                    (int)(eq - e > 64 ? 64 : eq - e), e, want);
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

        if (strncmp(e, "BENEATH_", 8) != 0 || eq == NULL)
            continue;
        for (size_t j = 0; j < n_opts && o == NULL; j++) {
            opt_env_name(&opts[j], want, sizeof(want));
            if (strlen(want) == (size_t)(eq - e) &&
                strncmp(want, e, (size_t)(eq - e)) == 0)
                o = &opts[j];
        }
        if (o == NULL) {
            worst(&r, env_unknown(e, eq, diag));
            continue;
        }
        if (o->flags & OPT_CLI_ONLY) {
            worst(&r, diag_add(diag,
                               "%s: --%s is a command-line action, not a "
                               "setting",
                               want, o->name));
            continue;
        }
        worst(&r, items_push(it, o, eq + 1, NULL));
    }
    return r;
}

struct cli {
    int argc;
    char *const *argv;
    int i; /* the argument being read */
    struct items it;
    const char *root_arg; /* the positional ROOT */
    const char *port_arg; /* the positional PORT */
    bool help_or_version;
};

/*
 * The value of @o, whose name was argv[i] (@attached: text after '=' or
 * after a short name, or NULL). NULL after a message.
 */
static const char *cli_value(struct cli *cli, const struct opt *o,
                             const char *attached, struct conf_diag *diag,
                             int *r)
{
    bool b;

    if (o->type->flags & TYPE_NO_VALUE) {
        if (attached) {
            worst(r, diag_add(diag, "--%s: takes no value", o->name));
            return NULL;
        }
        if (strcmp(o->name, "help") == 0 || strcmp(o->name, "version") == 0)
            cli->help_or_version = true;
        return "on";
    }
    if (attached)
        return attached;
    if (o->type->flags & TYPE_BOOL) {
        /* "--listing" alone is on; a following on/off word is its value
         * (or "auto" for an option that takes it) */
        if (cli->i + 1 < cli->argc &&
            (bool_word(cli->argv[cli->i + 1], &b) == 0 ||
             (o->type == &t_switch &&
              strcmp(cli->argv[cli->i + 1], "auto") == 0)))
            return cli->argv[++cli->i];
        return "on";
    }
    if (cli->i + 1 < cli->argc)
        return cli->argv[++cli->i];
    worst(r, diag_add(diag, "--%s: missing value (%s)", o->name,
                      o->metavar ? o->metavar : o->type->metavar));
    return NULL;
}

/* "--name", "--name=value" or "--name value". */
static void cli_long(struct cli *cli, const char *a, struct conf_diag *diag,
                     int *r)
{
    const char *name = a + 2, *eq = strchr(name, '='), *val;
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const struct opt *o = opt_find(name, len), *g;

    if (o == NULL) {
        const char *now = retired_now(name, len);

        g = now ? NULL : opt_closest(name, len);
        if (now)
            worst(r, diag_add(diag, "--%.*s is gone: %s", (int)len, name, now));
        else if (g)
            worst(r,
                  diag_add(diag, "--%.*s: unknown option (did you mean --%s?)",
                           (int)(len > 64 ? 64 : len), name, g->name));
        else
            worst(r, diag_add(diag, "--%.*s: unknown option",
                              (int)(len > 64 ? 64 : len), name));
        /* its value, most likely: not a second ROOT to complain about */
        if (!eq && cli->i + 1 < cli->argc && cli->argv[cli->i + 1][0] != '-')
            cli->i++;
        return;
    }
    val = cli_value(cli, o, eq ? eq + 1 : NULL, diag, r);
    if (val)
        worst(r, items_push(&cli->it, o, val, NULL));
    if (strcmp(o->name, "probe") == 0) /* a probe needs only its URL */
        cli->help_or_version = true;
}

/* "-p 8000", "-p8000", "-h", "-V". */
static void cli_short(struct cli *cli, const char *a, struct conf_diag *diag,
                      int *r)
{
    const struct opt *o = opt_find_short(a[1]);
    const char *val;
    char list[64];
    size_t n = 0;

    if (o == NULL || (a[2] && (o->type->flags & (TYPE_NO_VALUE | TYPE_BOOL)))) {
        for (size_t i = 0; i < n_opts && n + 6 < sizeof(list); i++) {
            if (opts[i].short_name)
                n += (size_t)snprintf(list + n, sizeof(list) - n, "%s-%c",
                                      n ? ", " : "", opts[i].short_name);
        }
        worst(r, diag_add(diag,
                          "%.64s: unknown option (short options: %s; the "
                          "others are --name; see --help)",
                          a, list));
        return;
    }
    val = cli_value(cli, o, a[2] ? a + 2 : NULL, diag, r);
    if (val)
        worst(r, items_push(&cli->it, o, val, NULL));
}

/* ROOT, or PORT when it is a number: "beneath 8000" as python3 -m http.server
 */
static void cli_positional(struct cli *cli, const char *a,
                           struct conf_diag *diag, int *r)
{
    bool number = *a && a[strspn(a, "0123456789")] == '\0';

    if (number && cli->port_arg) {
        worst(r, diag_add(diag,
                          "PORT: more than one port ('%.64s', '%.64s'); a "
                          "directory named by a number is written ./%.64s",
                          cli->port_arg, a, a));
    } else if (number) {
        cli->port_arg = a;
        worst(r, items_push(&cli->it, opt_find("port", 4), a, "PORT: "));
    } else if (cli->root_arg) {
        worst(r, diag_add(diag,
                          "ROOT: more than one document root ('%.64s', "
                          "'%.64s')",
                          cli->root_arg, a));
    } else {
        cli->root_arg = a;
    }
}

static int cli_scan(int argc, char *const argv[], struct cli *cli,
                    struct conf_diag *diag)
{
    bool options = true;
    int r = 0;

    cli->argc = argc;
    cli->argv = argv;
    for (cli->i = 1; cli->i < argc; cli->i++) {
        const char *a = argv[cli->i];

        if (!options || a[0] != '-' || a[1] == '\0')
            cli_positional(cli, a, diag, &r);
        else if (strcmp(a, "--") == 0)
            options = false;
        else if (a[1] == '-')
            cli_long(cli, a, diag, &r);
        else
            cli_short(cli, a, diag, &r);
    }
    return r;
}

/* BENEATH_LISTEN="127.0.0.1:8080 [::1]:8080": one use per word */
static int apply_words(const struct opt *o, struct conf *c, const char *val,
                       struct uses *u, const char *place,
                       struct conf_diag *diag)
{
    const char *sep = " \t";
    char *copy, *word, *save = NULL;
    int r = 0;

    if (val[strspn(val, sep)] == '\0')
        return apply(o, c, "", u, place, diag);
    copy = strdup(val);
    if (copy == NULL)
        return -ENOMEM;
    for (word = strtok_r(copy, sep, &save); word;
         word = strtok_r(NULL, sep, &save))
        worst(&r, apply(o, c, word, u, place, diag));
    free(copy);
    return r;
}

static int apply_items(const struct items *it, struct conf *c, bool cli,
                       struct conf_diag *diag)
{
    struct uses u = {{0}};
    char place[96];
    int r = 0;

    for (size_t i = 0; i < it->n; i++) {
        const struct opt *o = it->v[i].o;

        if (it->v[i].place) {
            snprintf(place, sizeof(place), "%s", it->v[i].place);
        } else if (cli) {
            snprintf(place, sizeof(place), "--%s: ", o->name);
        } else {
            char env[64];

            opt_env_name(o, env, sizeof(env));
            snprintf(place, sizeof(place), "%s: ", env);
        }
        if (!cli && (o->flags & OPT_ENV_SPLIT))
            worst(&r, apply_words(o, c, it->v[i].val, &u, place, diag));
        else
            worst(&r, apply(o, c, it->v[i].val, &u, place, diag));
    }
    return r;
}

/* The file named by --config, else by BENEATH_CONFIG, or NULL. */
static const char *config_named(const struct items *env, const struct cli *cli)
{
    const char *config = NULL;

    for (size_t i = 0; i < env->n; i++) {
        if (strcmp(env->v[i].o->name, "config") == 0)
            config = env->v[i].val;
    }
    for (size_t i = 0; i < cli->it.n; i++) {
        if (strcmp(cli->it.v[i].o->name, "config") == 0)
            config = cli->it.v[i].val;
    }
    return config;
}

/* The positional ROOT, unless --root was given too. */
static int apply_root_arg(const struct cli *cli, struct conf *c,
                          struct conf_diag *diag)
{
    struct uses u = {{0}};

    for (size_t i = 0; i < cli->it.n; i++) {
        if (strcmp(cli->it.v[i].o->name, "root") == 0)
            return diag_add(diag, "ROOT: '%.64s' given together with --root",
                            cli->root_arg);
    }
    return apply(opt_find("root", 4), c, cli->root_arg, &u, "ROOT: ", diag);
}

/* Whether @it names the option @name. */
static bool names(const struct items *it, const char *name)
{
    for (size_t i = 0; i < it->n; i++)
        if (strcmp(it->v[i].o->name, name) == 0)
            return true;
    return false;
}

/*
 * The quick form of python3 -m http.server: a positional PORT or ROOT, and
 * no configuration file, --listen or vhost (a server set up to be reached
 * from elsewhere, a unit's or a container's, does not list unless told): a
 * directory without an index is listed, as it does, unless the environment
 * or the command line says --listing. Which directory is the root does not
 * matter: "beneath 8000 site" lists what "cd site && beneath 8000" lists.
 */
static void quick_listing(const struct cli *cli, const struct items *env,
                          const char *config, struct conf *c)
{
    if ((cli->port_arg || cli->root_arg) && !(config && *config) &&
        c->vhost.n == 0 && c->root && !names(env, "listing") &&
        !names(&cli->it, "listing") && !names(env, "listen") &&
        !names(&cli->it, "listen")) {
        c->listing_quick = !c->listing;
        c->listing = true;
    }
}

int conf_load(struct conf *c, int argc, char *const argv[], char *const envp[],
              struct conf_diag *diag)
{
    struct cli cli = {0};
    struct items env = {0};
    const char *config = NULL;
    int r;

    r = conf_defaults(c);
    if (r < 0)
        return r;
    worst(&r, cli_scan(argc, argv, &cli, diag));
    /* --help and --version answer whatever the file or environment say */
    if (!cli.help_or_version) {
        worst(&r, env_scan(envp, &env, diag));
        config = config_named(&env, &cli);
        if (config && *config)
            worst(&r, read_file(config, c, diag));
        worst(&r, apply_items(&env, c, false, diag));
    }
    worst(&r, apply_items(&cli.it, c, true, diag));
    if (cli.root_arg)
        worst(&r, apply_root_arg(&cli, c, diag));
    /* The current directory, unless virtual hosts or --sites stand
     * without a root: then a Host none of them names is answered 421. */
    if (!c->root && c->vhost.n == 0 && !c->sites && !(c->root = strdup(".")))
        worst(&r, -ENOMEM);
    quick_listing(&cli, &env, config, c);
    worst(&r, headers_finish(c));
    worst(&r, conf_follow_into_finish(c, diag));
    if (!cli.help_or_version)
        worst(&r, conf_acme_finish(c, diag));
    free(env.v);
    free(cli.it.v);
    return r;
}
