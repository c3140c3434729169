/* SPDX-License-Identifier: MIT */
/*
 * conf.h - beneath's configuration: one option table, four sources.
 *
 * Every option has one row in the table in conf/src/options.c. The same row is
 * read from
 * the command line (--name VALUE, --name=VALUE, -p VALUE for the few with a
 * short name), the environment (BENEATH_NAME, dashes as underscores) and a
 * "key = value" file, and prints the --help text. Precedence: command line >
 * environment > file > default. A repeatable option given in a higher source
 * replaces the lower source's list as a whole; repeated in one source it
 * appends.
 *
 * The library depends on libc, on resolver.h (names of backends and flags,
 * one table for both), and on syntax/'s parsers (libc only), which turn
 * the Cache-Control rules, response headers, precompressed encodings,
 * origins and the rest into the typed values the server uses, and judge
 * ACME names and CA URLs; it includes nothing of server/. It never prints on
 * its own and never exits: messages are collected in a struct conf_diag, one
 * per problem, every problem of a run, each already prefixed with its place
 * ("FILE:LINE: key: ",
 * "--flag: ", "BENEATH_X: ").
 */
#ifndef BENEATH_CONF_H
#define BENEATH_CONF_H

#include "resolver.h"
#include "syntax/cache_rules.h"
#include "syntax/coding.h"
#include "syntax/headers_opt.h"
#include "syntax/mime.h"
#include "syntax/origins.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A list of owned strings. */
struct conf_strv {
    char **v;
    size_t n;
};

/* The host of "listen = PORT", --port and a lone number on the command line. */
#define CONF_LOOPBACK "127.0.0.1"

enum conf_listen_kind {
    CONF_LISTEN_TCP,
    CONF_LISTEN_UNIX,
};

/*
 * One --listen value, syntax-checked: "HOST:PORT", "[V6]:PORT", "PORT" alone
 * (127.0.0.1, also from --port), "http://HOST:PORT", "https://HOST:PORT",
 * "unix:/path".
 */
struct conf_listen {
    enum conf_listen_kind kind;
    bool tls;   /* https:// prefix */
    char *host; /* numeric or name, without brackets; NULL for unix */
    unsigned port;
    char *path; /* unix socket path; NULL for tcp */
};

enum conf_dotfiles {
    CONF_DOTFILES_DENY,
    CONF_DOTFILES_ALLOW,
};

enum conf_etag {
    CONF_ETAG_CONTENT, /* SHA-256 of the bytes */
    CONF_ETAG_MTIME,   /* "mtime-size" */
    CONF_ETAG_OFF,
};

/* The precompressed sidecars to try, in the server's order of preference. */
struct conf_encodings {
    enum coding v[CODING_N];
    size_t n; /* 0: off */
};

enum conf_acme_challenge {
    CONF_ACME_HTTP01,
    CONF_ACME_TLSALPN01,
};

enum conf_sandbox {
    CONF_SANDBOX_ON,     /* Landlock and seccomp as far as the kernel goes */
    CONF_SANDBOX_OFF,    /* neither */
    CONF_SANDBOX_STRICT, /* both required; a refused system call kills */
};

/* An on|off option whose default depends on others ("auto"). */
enum conf_switch {
    CONF_SWITCH_AUTO,
    CONF_SWITCH_ON,
    CONF_SWITCH_OFF,
};

struct conf {
    char *root; /* document root path (also the positional ROOT); NULL
                   only with vhost items and no root given */
    struct conf_listen *listen;
    size_t n_listen;
    enum resolver_backend resolver; /* AUTO, KERNEL, EMULATED or LEXICAL */
    unsigned resolver_cache;        /* directories per thread; 0: none */
    uint64_t confine;               /* RESOLVER_* flags, checked */
    char *config;                   /* the file that was read, or NULL */
    unsigned threads;               /* >= 1; default: online CPUs */
    struct conf_strv index;         /* index file names, in order */
    bool listing;
    bool listing_quick; /* listing on because of the quick form ("beneath
                           8000", "beneath 8000 site"), no source naming
                           --listing */
    enum conf_dotfiles dotfiles;
    char *access_log; /* a path, "-" (stdout) or "off" */
    char *log_format; /* combined, combined+duration, json or a template */
    char *user;       /* drop privileges to this user after binding, or NULL */
    enum conf_sandbox
        sandbox; /* server/process/sandbox.c: Landlock + seccomp */

    /* limits */
    unsigned max_connections;        /* total */
    unsigned max_connections_per_ip; /* 0: unlimited */
    unsigned timeout;                /* s of inactivity before close */
    unsigned header_timeout;         /* s to receive a request's headers */
    size_t max_header_size;          /* bytes of request line + headers */
    unsigned shutdown_timeout;       /* s to drain requests on SIGTERM */
    unsigned drain_timeout;          /* s for an old generation's connections */
    unsigned sites_cache;            /* --sites: site directories kept open */

    /* HTTPS and validators */
    /* "[NAME=]FILE" items (conf_tls_item): NAME a --vhost name, chosen by
       SNI; without NAME the default certificate */
    struct conf_strv tls_cert;              /* PEM chains, leaf first */
    struct conf_strv tls_key;               /* PEM keys */
    struct conf_strv tls_key_password_file; /* first lines decrypt keys */
    bool tls_self_signed; /* make (or reuse) a localhost cert */
    char *state_dir;      /* --state-dir, "off", or NULL: the default */
    char *tls_ciphers;    /* OpenSSL cipher list (TLS 1.2), or NULL */
    bool http2;           /* h2 by ALPN and by prior knowledge */
    unsigned hsts;        /* Strict-Transport-Security max-age; 0 off */
    enum conf_etag etag;
    enum conf_switch https_redirect; /* plain HTTP -> 308 https:// (see
                                        conf_https_redirect) */
    unsigned https_redirect_port; /* its Location's port; 0: the listener's */

    /* docs hosting: typed values, parsed by syntax/ */
    struct conf_encodings precompressed; /* sidecars tried, in order */
    struct conf_encodings compress;      /* on-the-fly codings, in order */
    size_t compress_cache;               /* bytes of compressed bodies */
    struct cache_rules cache;            /* cache rules; .dflt: cache-default */
    struct headers_opt headers; /* every header option in order, then (with
                                   security_headers) the security set */
    size_t n_headers_given;     /* headers.v[0..n): from header options */
    struct origins cors;        /* origins that may read responses */
    char *fallback; /* root-relative file served (200) for GETs that would
                       404, or NULL */
    char *health;   /* root-relative URL path answering 200, or NULL */
    char *metrics;  /* root-relative URL path of Prometheus metrics, or NULL */
    char *metrics_listen; /* HOST:PORT of a metrics-only listener, or NULL */
    char *probe; /* --probe URL: check a running server, exit (an action) */
    /*
     * Access (docs/access.md); syntax-checked here, loaded by the server.
     * Files the server opens by path, which a sandbox must allow: the
     * HTPASSWD of each auth item, the ROOT of each vhost item and the DIR
     * of each mount item (all conf_item_path), redirects and headers_file.
     */
    struct conf_strv auth;          /* "GLOBS=HTPASSWD", first match wins */
    char *auth_realm;               /* the Basic realm */
    struct conf_strv allow;         /* "CIDR[,CIDR...]" each */
    struct conf_strv deny;          /* "CIDR[,CIDR...]" each */
    struct conf_strv trusted_proxy; /* "CIDR[,CIDR...][=HEADER]" each */
    struct conf_strv vhost;         /* "NAME=ROOT" */
    struct conf_strv mount;         /* "/URL/PREFIX=DIR" (or =FILE) */
    struct conf_strv follow_into;   /* DIR: a link out may lead in there */
    char *sites;                    /* DIR: the Host names DIR/HOST */
    char *redirects;                /* a _redirects-syntax file, or NULL */
    char *headers_file;             /* a _headers-syntax file, or NULL */
    struct conf_strv error_page;    /* "CODES=FILE" */

    /* media types over the built-in table (conf_mime_load) */
    char *mime_types;      /* a mime.types file or "off" */
    char *default_type;    /* Content-Type of unknown extensions */
    struct conf_strv mime; /* "EXT=TYPE", each later one winning */

    /*
     * ACME (docs/acme.md): certificates from a CA. Checked here (syntax,
     * names, across options); the server's --check reads acme_ca_root.
     */
    struct conf_strv acme; /* "DOMAIN[,DOMAIN...]": one certificate each */
    char *acme_email;      /* the account's contact, or NULL */
    char *acme_ca;         /* https:// URL, letsencrypt, letsencrypt-staging */
    char *acme_ca_root;    /* PEM trust anchor of the CA's HTTPS, or NULL */
    char *acme_dir;        /* account, keys, certificates, state */
    char *acme_challenge;  /* "http-01", "tls-alpn-01" or NULL: see
                              conf_acme_challenge */
    bool acme_on_demand;   /* a certificate for DIR/NAME of --sites at the
                              first handshake that names it */

    bool security_headers; /* add the built-in security header set */
    bool try_html;         /* /guide -> guide.html when guide is absent */
    bool server_timing;    /* Server-Timing: resolve;dur=MS */
    bool site_files; /* access: read /_redirects, /_headers from each root */

    /* actions */
    bool check;
    bool help;
    bool version;
};

/*
 * Collected messages, each a complete line without the trailing newline:
 * errors (the configuration is refused) and warnings (it is used, but
 * something in it is probably not what was meant).
 */
struct conf_diag {
    char **msgs;
    size_t n;
    char **warnings;
    size_t n_warnings;
};

/*
 * conf_defaults - fill @c with every option's default. Owns memory: release
 * with conf_free.
 *
 * Returns 0 or -ENOMEM.
 */
int conf_defaults(struct conf *c);

/*
 * conf_load - build the effective configuration: defaults, then the file
 * named by --config or BENEATH_CONFIG (if any), then @envp, then @argv
 * (argv[0] is the program name and skipped).
 * @c is initialised by this call (do not call conf_defaults first) and must be
 * released with conf_free whatever the result.
 *
 * A lone number among the arguments is a port (as --port), any other is ROOT.
 * That quick form of python3 -m http.server (a positional PORT or ROOT:
 * "beneath 8000", "beneath 8000 site", "beneath .", and no --config file,
 * --listen or --vhost) lists directories without an index (listing_quick)
 * unless a source names --listing.
 *
 * Returns 0 (warnings may have been added to @diag), or -EINVAL when at least
 * one error was added to @diag (all problems of all sources are reported, not
 * just the first), or -ENOMEM.
 */
int conf_load(struct conf *c, int argc, char *const argv[], char *const envp[],
              struct conf_diag *diag);

/*
 * conf_parse - apply a "key = value" file read from @f onto @c, which holds
 * defaults or an earlier source. @name is used in messages ("NAME:LINE: ").
 * Blank lines are ignored; '#' starts a comment at the start of a line or
 * after a space or tab outside quotes (a '#' elsewhere in a bare value is kept,
 * with a warning); values may be quoted with "..." to keep leading or trailing
 * spaces and '#'.
 *
 * Returns 0 (warnings may have been added), -EINVAL when errors were added to
 * @diag, or -ENOMEM.
 */
int conf_parse(FILE *f, const char *name, struct conf *c,
               struct conf_diag *diag);

/*
 * conf_print - write the effective configuration in the file syntax that
 * conf_parse reads back (for --check).
 */
void conf_print(FILE *out, const struct conf *c);

/*
 * conf_diff - the options whose values differ between @a and @b, compared as
 * conf_print writes them; @fn is called with each one's name, in table order
 * (for what SIGHUP changed).
 *
 * Returns the number of options that differ, or -ENOMEM.
 */
int conf_diff(const struct conf *a, const struct conf *b,
              void (*fn)(const char *name, void *arg), void *arg);

/* conf_help - write the --help text, generated from the option table. */
void conf_help(FILE *out, const char *progname);

/*
 * What --help says that the man page says too (deploy/gen-doc.c writes its
 * SYNOPSIS and SIGNALS from them): the operands after the program's name
 * ("[OPTIONS] [PORT] [ROOT]"), and what SIGHUP does, a sentence without its
 * subject ("reads the configuration again ...").
 */
extern const char conf_usage_operands[];
extern const char conf_sighup_help[];

/*
 * conf_option_name - the name of the option in row @i of the table (sorted),
 * for tests and documentation generators.
 *
 * Returns the name, or NULL when @i is past the last row.
 */
const char *conf_option_name(size_t i);

/* One row of the option table, as documentation generators read it. */
struct conf_option_doc {
    const char *name;
    const char *metavar;   /* "PATH", "on|off", "a|b|c"; NULL: no value */
    const char *dflt;      /* default in file syntax, or NULL */
    const char *dflt_help; /* default as --help says it, or NULL */
    const char *help;
    char short_name; /* 'p' for -p, or 0 */
    bool repeat;     /* every use appends */
    bool in_file;    /* may be set in the config file */
    bool in_env;     /* may be set as env[] */
    char env[64];    /* BENEATH_NAME */
    char meta[128];  /* storage behind metavar for enums */
};

/*
 * conf_option_doc - describe row @i of the option table (sorted), for the man
 * page and example configuration generators: the same rows --help prints.
 *
 * Returns 0, or -ENOENT when @i is past the last row.
 */
int conf_option_doc(size_t i, struct conf_option_doc *d);

/*
 * conf_item_path - the path of an auth ("GLOBS=HTPASSWD"), vhost
 * ("NAME=ROOT") or mount ("/URL/PREFIX=DIR") item: what follows its first
 * '=' (checked to exist).
 */
const char *conf_item_path(const char *item);

/* The default mime-types file: Debian's media-types package. */
#define CONF_MIME_TYPES "/etc/mime.types"

/*
 * conf_mime_load - the media types @c adds to the built-in table: its
 * mime-types file (CONF_MIME_TYPES read only when present, its bad lines
 * warnings; any other file must be there and right), then its mime items,
 * into @out (overwritten; release it with mime_map_free whatever the
 * result). Messages to @d, each with its place ("FILE:LINE: why",
 * "mime-types: FILE: why", "mime ITEM: why").
 *
 * Returns 0 (warnings may have been added), -EINVAL or -ENOMEM.
 */
int conf_mime_load(const struct conf *c, struct mime_map *out,
                   struct conf_diag *d);

/*
 * conf_acme_challenge - the ACME challenge to answer: --acme-challenge, or
 * by default tls-alpn-01 when a listener is on port 443, else http-01.
 */
enum conf_acme_challenge conf_acme_challenge(const struct conf *c);

/*
 * conf_acme_check - the ACME options beyond their syntax (the trust anchor
 * file is a readable PEM certificate; --acme-dir can be made and written:
 * not on a read-only mount, writable by this user), for --check and for a
 * start before it binds, contacting no CA and creating nothing. The first
 * problem goes to @d.
 *
 * Returns 0, -EINVAL or -ENOMEM.
 */
int conf_acme_check(const struct conf *c, struct conf_diag *d);

/*
 * conf_https_redirect - whether plain-HTTP requests are redirected to
 * https:// (--https-redirect): on or off as given; "auto" (the default) is
 * on with --acme or --acme-on-demand, whose certificates are for that,
 * and off otherwise.
 */
bool conf_https_redirect(const struct conf *c);

/*
 * conf_tls_item - split a --tls-cert, --tls-key or
 * --tls-key-password-file item: "NAME=FILE" when the text before its first
 * '=' is a host name or pattern (no '/'), else "FILE" (the default
 * certificate's). @name (HOST_MAX bytes) gets NAME normalised, or "".
 *
 * Returns the FILE part.
 */
const char *conf_tls_item(const char *item, char *name);

/*
 * conf_reread_files - call @fn with each file @c names that the server reads
 * again on SIGHUP, and the option naming it ("config", "auth", "redirects",
 * "headers-file", "tls-cert", "tls-key", "tls-key-password-file"): the set
 * the keeper opens and hands over at each SIGHUP (common/handed.h), and
 * that the serving process's Landlock gives no right to.
 */
void conf_reread_files(const struct conf *c,
                       void (*fn)(const char *what, const char *path,
                                  void *arg),
                       void *arg);

/* conf_free - release everything @c owns; @c may be zeroed or NULL. */
void conf_free(struct conf *c);

/*
 * conf_diag_free - release collected messages and warnings; @d may be zeroed
 * or NULL.
 */
void conf_diag_free(struct conf_diag *d);

#endif
