/* SPDX-License-Identifier: MIT */
/*
 * help.c - what conf writes: the effective configuration in the file syntax
 * (conf_print, read back by conf_parse) and the --help text, both walked from
 * the option table, so neither can drift from what is parsed. The man page and
 * the example configuration are generated from the same output.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void conf_print(FILE *out, const struct conf *c)
{
    fputs("# beneath effective configuration\n", out);
    if (c->config)
        fprintf(out, "# read from %s\n", c->config);
    for (size_t i = 0; i < n_opts; i++) {
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

/* One option: "  -p, --port PORT" padded to @col, then the wrapped help. */
static void help_row(FILE *out, const struct opt *o, size_t col)
{
    char head[128], meta[96], text[512], shrt[8] = "";
    const char *mv = o->metavar ? o->metavar : o->type->metavar;
    size_t at;
    int n;

    if (mv == NULL && o->names) {
        names_join(o->names, "|", "|", meta, sizeof(meta));
        mv = meta;
    }
    if (o->short_name)
        snprintf(shrt, sizeof(shrt), "-%c, ", o->short_name);
    n = snprintf(head, sizeof(head), "  %s--%s%s%s", shrt, o->name,
                 mv ? " " : "", mv ? mv : "");
    at = n < 0 ? 0 : (size_t)n;
    fputs(head, out);
    if (at + 2 > col)
        fprintf(out, "\n%*s", (int)col, "");
    else
        fprintf(out, "%*s", (int)(col - at), "");
    if (o->dflt_help)
        snprintf(text, sizeof(text), "%s (default: %s)", o->help, o->dflt_help);
    else if (o->dflt)
        snprintf(text, sizeof(text), "%s (default: %s)", o->help, o->dflt);
    else
        snprintf(text, sizeof(text), "%s", o->help);
    wrap(out, text, col, col);
}

const char conf_usage_operands[] = "[OPTIONS] [PORT] [ROOT]";
const char conf_sighup_help[] =
    "starts a new serving process with the configuration as it is now (its "
    "roots, files, certificates and access log opened anew; only --listen, "
    "--metrics-listen and --user need a restart), and the old one finishes "
    "what it holds (--drain-timeout) and exits; a configuration with an "
    "error keeps the old one serving, and the log says what changed";

void conf_help(FILE *out, const char *progname)
{
    fprintf(out,
            "Usage: %s %s\n"
            "Serve the static files beneath ROOT (default: the current "
            "directory) over\n"
            "HTTP on 127.0.0.1:PORT; every path is resolved confined to ROOT "
            "by the\n"
            "kernel (openat2) or its emulation.\n\n"
            "Options:\n",
            progname ? progname : "beneath", conf_usage_operands);
    for (size_t i = 0; i < n_opts; i++)
        help_row(out, &opts[i], 30);
    fputs("\n"
          "Each option can also be set in the environment as BENEATH_NAME "
          "(dashes\n"
          "as underscores: BENEATH_ACCESS_LOG=off) and in the --config file "
          "as\n"
          "\"name = value\" (one per line; # starts a comment at the start of "
          "a line\n"
          "or after a space; \"quotes\" keep spaces and #).\n"
          "Precedence: command line > environment > file > default. A "
          "repeatable\n"
          "option given in a higher source replaces the lower one's list.\n"
          "On/off options: --listing alone means on; --listing on|off and\n"
          "--listing=off also work; values on/off, true/false, yes/no, "
          "1/0.\n"
          "A BENEATH_ variable that looks like a misspelt option is an error.\n"
          "A lone number is a PORT: 'beneath 8000' serves the current "
          "directory on\n"
          "127.0.0.1:8000; a directory named by a number is written ./8000.\n"
          "Given so (a positional PORT or ROOT; no --config, --listen or\n"
          "--vhost), directories without an index file are listed, as\n"
          "python3 -m http.server does, unless --listing says otherwise.\n",
          out);
    char sighup[sizeof conf_sighup_help + 16];
    snprintf(sighup, sizeof sighup, "SIGHUP %s.", conf_sighup_help);
    wrap(out, sighup, 0, 0);
}

const char *conf_option_name(size_t i)
{
    return i < n_opts ? opts[i].name : NULL;
}

/* One row as conf_print writes it, into a new string (NULL: no memory). */
static char *row_text(const struct opt *o, const struct conf *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    if (f == NULL)
        return NULL;
    o->type->print(f, o, c);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

int conf_diff(const struct conf *a, const struct conf *b,
              void (*fn)(const char *name, void *arg), void *arg)
{
    int n = 0;

    for (size_t i = 0; i < n_opts; i++) {
        char *x, *y;
        bool same;

        if (opts[i].flags & (OPT_CLI_ONLY | OPT_NO_FILE))
            continue;
        x = row_text(&opts[i], a);
        y = row_text(&opts[i], b);
        same = x && y && strcmp(x, y) == 0;
        if (x == NULL || y == NULL) {
            free(x);
            free(y);
            return -ENOMEM;
        }
        free(x);
        free(y);
        if (!same) {
            fn(opts[i].name, arg);
            n++;
        }
    }
    return n;
}

int conf_option_doc(size_t i, struct conf_option_doc *d)
{
    const struct opt *o;

    if (i >= n_opts)
        return -ENOENT;
    o = &opts[i];
    memset(d, 0, sizeof(*d));
    d->name = o->name;
    d->metavar = o->metavar ? o->metavar : o->type->metavar;
    if (d->metavar == NULL && o->names) {
        names_join(o->names, "|", "|", d->meta, sizeof(d->meta));
        d->metavar = d->meta;
    }
    d->dflt = o->dflt;
    d->dflt_help = o->dflt_help ? o->dflt_help : o->dflt;
    d->help = o->help;
    d->short_name = o->short_name;
    d->repeat = o->flags & OPT_REPEAT;
    d->in_file = !(o->flags & (OPT_CLI_ONLY | OPT_NO_FILE));
    d->in_env = !(o->flags & OPT_CLI_ONLY);
    opt_env_name(o, d->env, sizeof(d->env));
    return 0;
}
