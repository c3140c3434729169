/* SPDX-License-Identifier: MIT */
/*
 * gen-doc.c - write beneath(1) and the commented example configuration from
 * the option table, the same rows --help prints, at build time: the man page
 * and the example cannot drift from the binary they ship with.
 *
 *   gen-doc man VERSION OUT DOCDIR      the roff man page; a help text's
 *                                       "docs/X.md" becomes DOCDIR/docs/X.md
 *                                       (the installed documentation; the
 *                                       build passes @MAN_DOCDIR@, which the
 *                                       install step fills in, as roff)
 *   gen-doc conf OUT [NAME=VALUE]...    every file setting with its help and
 *                                       default, commented out; the NAME=VALUE
 *                                       settings are written active instead
 *
 * The output is written under a temporary name and renamed, so an
 * interrupted build never leaves half a page.
 */
#include "conf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* roff text: backslashes escaped, '-' as \-, a leading '.' or '\'' guarded. */
static void roff(FILE *f, const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", f);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
    }
}

/* @before, then @s as roff text, then @after. */
static void roff_between(FILE *f, const char *before, const char *s,
                         const char *after)
{
    fputs(before, f);
    roff(f, s);
    fputs(after, f);
}

/*
 * @s as roff text, each "docs/" that starts a word (the documentation a help
 * text points at, a path of the source tree) as @docdir's "docs/".
 */
static void roff_help(FILE *f, const char *s, const char *docdir)
{
    const char *p = s;

    while (*p) {
        const char *d = strstr(p, "docs/");

        while (d && d > s && d[-1] != ' ' && d[-1] != '(')
            d = strstr(d + 1, "docs/");
        if (!d) {
            roff(f, p);
            return;
        }
        char *part = strndup(p, (size_t)(d - p));
        if (part)
            roff(f, part);
        free(part);
        /* \: lets a line break after a '/' of the long path */
        fprintf(f, "%s/\\:docs/\\:", docdir);
        p = d + 5;
    }
}

static void man_option(FILE *f, const struct conf_option_doc *d,
                       const char *docdir)
{
    fputs(".TP\n", f);
    if (d->short_name)
        fprintf(f, "\\fB\\-%c\\fR, ", d->short_name);
    roff_between(f, "\\fB\\-\\-", d->name, "\\fR");
    if (d->metavar)
        roff_between(f, " \\fI", d->metavar, "\\fR");
    fputc('\n', f);
    /* a long path cannot be spread over a justified line: ragged right */
    bool path = strstr(d->help, "docs/") != NULL;
    if (path)
        fputs(".ad l\n", f);
    roff_help(f, d->help, docdir);
    fputs(".\n", f);
    if (path)
        fputs(".ad\n", f);
    if (d->dflt_help)
        roff_between(f, "Default: ", d->dflt_help, ".\n");
    if (d->in_env) {
        roff_between(f, "Environment: \\fB", d->env, "\\fR");
        if (d->in_file)
            roff_between(f, "; file key: \\fB", d->name, "\\fR");
        fputs(".\n", f);
    } else {
        fputs("Command line only.\n", f);
    }
}

/* --help's operands, "[OPTIONS] [PORT] [ROOT]": each word in italics. */
static void man_operands(FILE *f, const char *ops)
{
    for (; *ops; ops++) {
        if (*ops == '[' || *ops == ']' || *ops == ' ') {
            fputc(*ops, f);
            continue;
        }
        size_t n = strcspn(ops, "[] ");
        fprintf(f, "\\fI%.*s\\fR", (int)n, ops);
        ops += n - 1;
    }
    fputc('\n', f);
}

/* The page's NAME and SYNOPSIS: the usage line of --help. */
static void man_synopsis(FILE *f)
{
    fputs(".SH NAME\n"
          "beneath \\- serve static files confined beneath a directory\n"
          ".SH SYNOPSIS\n"
          ".B beneath\n",
          f);
    man_operands(f, conf_usage_operands);
    fputs(".br\n"
          ".B beneath \\-\\-probe\n"
          "\\fIURL\\fR\n",
          f);
}

/* The page from DESCRIPTION up to the options' list. */
static const char man_head[] =
    ".SH DESCRIPTION\n"
    ".B beneath\n"
    "serves the files beneath \\fIROOT\\fR (default: the current "
    "directory) over HTTP and HTTPS.\n"
    "A lone number is the \\fIPORT\\fR on 127.0.0.1, as with "
    "\\fBpython3 \\-m http.server\\fR: \\fBbeneath 8000\\fR serves the "
    "current directory on http://127.0.0.1:8000 (a directory named by a "
    "number is written \\fB./8000\\fR).\n"
    "Every request path is opened from a directory descriptor of the "
    "root by a confined resolver: the kernel's \\fBopenat2\\fR(2) with "
    "\\fBRESOLVE_*\\fR flags (Linux 5.6 and later), or, where that "
    "system call is missing or blocked (older kernels, container "
    "seccomp profiles), a userspace emulation with the same "
    "semantics.\n"
    "A path that would lead out of the root through \\fB..\\fR, an "
    "absolute path or a symbolic link is refused (403), never "
    "served.\n"
    ".PP\n"
    "On start-up it prints one line per listener, the root, the "
    "resolver backend that serves and why, and the confinement flags, "
    "then one access-log line per request.\n"
    ".SH OPTIONS\n"
    "Each option is also an environment variable and a configuration "
    "file key, unless marked otherwise.\n"
    "On/off options may be given alone (\\fB\\-\\-listing\\fR means "
    "on).\n";

/* The page after the options' list, up to SIGNALS. */
static const char man_tail[] =
    ".SH CONFIGURATION FILE\n"
    "The file named by \\fB\\-\\-config\\fR or \\fBBENEATH_CONFIG\\fR "
    "holds one \\fIname\\fR \\fB=\\fR \\fIvalue\\fR per line; lines "
    "starting with \\fB#\\fR are comments; \"double quotes\" keep "
    "leading and trailing spaces.\n"
    "Precedence: command line, then environment, then file, then "
    "default.\n"
    "A repeatable option given in a higher source replaces the lower "
    "source's list.\n"
    "Errors name \\fIFILE\\fB:\\fILINE\\fR, and every error of a run is "
    "reported.\n"
    ".SH ENVIRONMENT\n"
    ".TP\n"
    ".B BENEATH_\\fINAME\\fR\n"
    "an option, dashes as underscores (\\fBBENEATH_ACCESS_LOG=off\\fR). "
    "A \\fBBENEATH_\\fR variable that looks like a misspelt option is "
    "an error.\n"
    ".TP\n"
    ".B LISTEN_FDS\\fR, \\fBLISTEN_PID\n"
    "socket activation (\\fBsystemd.socket\\fR(5)): the passed sockets "
    "replace the \\fB\\-\\-listen\\fR addresses.\n"
    ".TP\n"
    ".B NOTIFY_SOCKET\n"
    "service manager notification (\\fBsd_notify\\fR(3)): READY=1 once "
    "serving, RELOADING=1 and READY=1 around a reload, STOPPING=1 on "
    "shutdown.\n"
    ".SH SIGNALS\n"
    ".TP\n"
    ".B SIGHUP\n";

/* The page after SIGHUP's sentence. */
static const char man_end[] =
    ".TP\n"
    ".BR SIGTERM \", \" SIGINT\n"
    "stop accepting, let requests in flight finish (at most "
    "\\fB\\-\\-shutdown\\-timeout\\fR), exit 0.\n"
    ".SH EXIT STATUS\n"
    "0 after a clean shutdown, \\fB\\-\\-help\\fR, \\fB\\-\\-version\\fR, "
    "\\fB\\-\\-check\\fR or a successful \\fB\\-\\-probe\\fR; 1 for a "
    "failed probe or a failure while serving; 2 for a configuration "
    "error.\n"
    ".SH FILES\n"
    ".TP\n"
    ".I /etc/beneath/beneath.conf\n"
    "the example configuration that the systemd unit reads.\n"
    ".TP\n"
    ".IR beneath.service \", \" beneath.socket\n"
    "the systemd units: a hardened service (\\fBType=notify\\fR, run "
    "as the system user \\fBbeneath\\fR, with the kernel resolver and "
    "both walls of its sandbox) and its optional socket activation.\n";

/* The page after the documentation's place in FILES. */
static const char man_see_also[] =
    ".SH EXAMPLES\n"
    "Serve the current directory on http://127.0.0.1:8080:\n"
    ".PP\n"
    ".EX\n"
    "beneath .\n"
    ".EE\n"
    ".PP\n"
    "Serve a site on all addresses with a health path, and check it "
    "from a health check:\n"
    ".PP\n"
    ".EX\n"
    "beneath \\-\\-listen 0.0.0.0:8080 \\-\\-health /healthz /srv/www\n"
    "beneath \\-\\-probe http://127.0.0.1:8080/healthz\n"
    ".EE\n"
    ".SH SEE ALSO\n"
    "\\fBbeneath\\-resolve\\fR(1), \\fBopenat2\\fR(2), "
    "\\fBsystemd.service\\fR(5), \\fBsystemd.socket\\fR(5), "
    "\\fBsd_notify\\fR(3)\n";

static int man(FILE *f, const char *version, const char *docdir)
{
    struct conf_option_doc d;

    fprintf(f,
            ".\\\" SPDX-License-Identifier: MIT\n"
            ".\\\" Generated by deploy/gen-doc.c from the option table; do "
            "not edit.\n"
            ".TH BENEATH 1 \"\" \"beneath %s\" \"User Commands\"\n",
            version);
    man_synopsis(f);
    fputs(man_head, f);
    for (size_t i = 0; conf_option_doc(i, &d) == 0; i++)
        man_option(f, &d, docdir);
    fputs(man_tail, f);
    roff_between(f, "", conf_sighup_help, ".\n");
    fputs(man_end, f);
    fprintf(f, ".TP\n.I %s/\\:README.md\n", docdir);
    fputs("what beneath is, and how to start.\n", f);
    fprintf(f, ".TP\n.I %s/\\:docs/\n", docdir);
    fputs("the reference, one page a subject: http.md, tls.md, acme.md, "
          "compression.md, access.md, docs\\-hosting.md, observe.md, "
          "security.md and more (the pages the options above name).\n",
          f);
    fputs(man_see_also, f);
    return 0;
}

/* "# " lines of @text wrapped at 79 columns. */
static void comment(FILE *f, const char *text)
{
    size_t at = 0;

    while (*text) {
        size_t len = strcspn(text, " ");

        if (at == 0) {
            fputs("#", f);
            at = 1;
        }
        if (at > 1 && at + 1 + len > 79) {
            fputs("\n#", f);
            at = 1;
        }
        fputc(' ', f);
        fwrite(text, 1, len, f);
        at += 1 + len;
        text += len;
        while (*text == ' ')
            text++;
    }
    fputc('\n', f);
}

/* The NAME=VALUE setting for @name among @sets, or NULL. */
static const char *setting(const char *name, char **sets, int n)
{
    size_t len = strlen(name);

    for (int i = 0; i < n; i++)
        if (strncmp(sets[i], name, len) == 0 && sets[i][len] == '=')
            return sets[i] + len + 1;
    return NULL;
}

static int example(FILE *f, char **sets, int n_sets)
{
    struct conf_option_doc d;
    int used = 0;

    fputs("# beneath.conf - configuration of beneath(1), read with --config "
          "FILE or\n"
          "# BENEATH_CONFIG=FILE. Generated from the option table, like "
          "--help and the\n"
          "# man page: every setting is listed with its default, commented "
          "out.\n"
          "#\n"
          "# One \"name = value\" per line; '#' starts a comment line; "
          "\"double quotes\"\n"
          "# keep leading and trailing spaces. The command line and "
          "BENEATH_NAME\n"
          "# environment variables override this file. Check it with:\n"
          "#   beneath --config /etc/beneath/beneath.conf --check\n",
          f);
    for (size_t i = 0; conf_option_doc(i, &d) == 0; i++) {
        const char *v = setting(d.name, sets, n_sets);

        if (!d.in_file)
            continue;
        fputc('\n', f);
        comment(f, d.help);
        if (v) {
            fprintf(f, "%s = %s\n", d.name, v);
            used++;
        } else if (d.dflt) {
            fprintf(f, "# %s = %s\n", d.name, d.dflt);
        } else {
            if (d.dflt_help)
                fprintf(f, "# (default: %s)\n", d.dflt_help);
            fprintf(f, "# %s = %s\n", d.name, d.metavar ? d.metavar : "");
        }
    }
    if (used != n_sets) {
        fprintf(stderr, "gen-doc: a NAME=VALUE names no file setting\n");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *out;
    char *tmp = NULL;
    FILE *f;
    int r;

    if (argc == 5 && strcmp(argv[1], "man") == 0)
        out = argv[3];
    else if (argc >= 3 && strcmp(argv[1], "conf") == 0)
        out = argv[2];
    else {
        fprintf(stderr, "usage: gen-doc man VERSION OUT DOCDIR\n"
                        "       gen-doc conf OUT [NAME=VALUE]...\n");
        return 2;
    }
    if (asprintf(&tmp, "%s.tmp.%ld", out, (long)getpid()) < 0)
        return 1;
    f = fopen(tmp, "we");
    if (!f) {
        fprintf(stderr, "gen-doc: %s: %s\n", tmp, strerror(errno));
        free(tmp);
        return 1;
    }
    r = argv[1][0] == 'm' ? man(f, argv[2], argv[4])
                          : example(f, argv + 3, argc - 3);
    if (fclose(f) != 0 || r != 0 || rename(tmp, out) != 0) {
        fprintf(stderr, "gen-doc: %s: cannot write\n", out);
        unlink(tmp);
        free(tmp);
        return 1;
    }
    free(tmp);
    return 0;
}
