// SPDX-License-Identifier: MIT
/*
 * main.c - beneath's start-up, privilege drop and signal loop.
 *
 * Phases: conf_load (every message, exit 2) -> checks that need the OS, all
 * errors collected (root, backend, listeners bound, user, log; exit 2) ->
 * --check prints the configuration -> drop privileges -> start the daemons
 * -> start-up lines on stderr -> signals: SIGHUP reloads the root, the log
 * and the TLS certificate (a bad one is refused, the old one stays),
 * SIGTERM/SIGINT drain requests in flight (bounded) and exit 0. The TLS key
 * is read with the other checks, before privileges are dropped.
 * Signals are blocked in every thread and read from a signalfd here.
 */
#include "cache_rules.h"
#include "conf.h"
#include "etag_cache.h"
#include "headers_opt.h"
#include "http.h"
#include "log.h"
#include "metrics.h"
#include "negotiate.h"
#include "notify.h"
#include "probe.h"
#include "resolver.h"
#include "root.h"
#include "tls.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define EXIT_CONF 2

extern char **environ;

/* One bound listening socket and how to show it. */
struct listener {
    int fd;
    char url[INET6_ADDRSTRLEN + 128];
    char *unix_path; /* unlinked at exit, or NULL */
};

static int bind_tcp(const struct conf_listen *l, struct listener *out,
                    char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char port[16];
    int fd = -1, e = 0;

    snprintf(port, sizeof port, "%u", l->port);
    int gai = getaddrinfo(l->host, port, &hints, &res);
    if (gai) {
        snprintf(err, errlen, "%s", gai_strerror(gai));
        return -1;
    }
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        int one = 1;
        fd = socket(ai->ai_family,
                    ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) {
            e = errno;
            continue;
        }
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (ai->ai_family == AF_INET6)
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 1024) == 0)
            break;
        e = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "%s", strerror(e));
        return -1;
    }

    struct sockaddr_storage ss = {0};
    socklen_t sl = sizeof ss;
    char host[INET6_ADDRSTRLEN];
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0 ||
        getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, port,
                    sizeof port, NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(err, errlen, "getsockname: %s", strerror(errno));
        close(fd);
        return -1;
    }
    snprintf(out->url, sizeof out->url, "%s://%s%s%s:%s",
             l->tls ? "https" : "http", ss.ss_family == AF_INET6 ? "[" : "",
             host, ss.ss_family == AF_INET6 ? "]" : "", port);
    out->fd = fd;
    return 0;
}

static int bind_unix(const struct conf_listen *l, struct listener *out,
                     char *err, size_t errlen)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    struct stat st;
    int fd;

    if (strlen(l->path) >= sizeof sa.sun_path) {
        snprintf(err, errlen, "socket path too long");
        return -1;
    }
    memcpy(sa.sun_path, l->path, strlen(l->path) + 1);
    /* A stale socket from an earlier run is replaced, nothing else is. */
    if (lstat(l->path, &st) == 0 && S_ISSOCK(st.st_mode))
        unlink(l->path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(fd, 1024) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    out->unix_path = strdup(l->path);
    snprintf(out->url, sizeof out->url, "unix:%s", l->path);
    out->fd = fd;
    return 0;
}

/* The URL of an inherited listening socket, from its own address. */
static int socket_url(int fd, char *buf, size_t n)
{
    struct sockaddr_storage ss = {0};
    socklen_t sl = sizeof ss;
    char host[INET6_ADDRSTRLEN], port[16];

    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0)
        return -errno;
    if (ss.ss_family == AF_UNIX) {
        const struct sockaddr_un *su = (const void *)&ss;
        snprintf(buf, n, "unix:%s",
                 su->sun_path[0] ? su->sun_path : "(unnamed)");
        return 0;
    }
    if (getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, port,
                    sizeof port, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        return -EINVAL;
    snprintf(buf, n, "http://%s%s%s:%s", ss.ss_family == AF_INET6 ? "[" : "",
             host, ss.ss_family == AF_INET6 ? "]" : "", port);
    return 0;
}

/*
 * systemd-style socket activation: LISTEN_PID is our pid and LISTEN_FDS=N
 * sockets wait at fds 3..3+N-1. They replace the --listen addresses. The
 * variables are removed so nothing started later inherits them.
 * Returns N (0: not activated), or -1 after a message.
 */
static int activated(struct listener **out)
{
    const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
    char *end;
    long n;

    if (!pid || !fds)
        return 0;
    errno = 0;
    long p = strtol(pid, &end, 10);
    if (errno || *end || p != (long)getpid())
        return 0; /* meant for another process */
    errno = 0;
    n = strtol(fds, &end, 10);
    if (errno || *end || n < 1 || n > 64) {
        fprintf(stderr, "beneath: LISTEN_FDS=%s: expected 1..64 sockets\n",
                fds);
        return -1;
    }
    unsetenv("LISTEN_PID");
    unsetenv("LISTEN_FDS");
    unsetenv("LISTEN_FDNAMES");
    struct listener *ls = calloc((size_t)n, sizeof *ls);
    if (!ls) {
        fprintf(stderr, "beneath: out of memory\n");
        return -1;
    }
    for (int i = 0; i < n; i++)
        ls[i].fd = -1;
    for (int i = 0; i < n; i++) {
        int fd = 3 + i, acc = 0;
        socklen_t al = sizeof acc;
        int fl = fcntl(fd, F_GETFL);

        if (fl < 0 ||
            getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al) != 0 || !acc ||
            socket_url(fd, ls[i].url, sizeof ls[i].url) != 0) {
            fprintf(stderr,
                    "beneath: LISTEN_FDS: fd %d is not a listening socket\n",
                    fd);
            for (int j = 0; j < i; j++)
                close(ls[j].fd);
            free(ls);
            return -1;
        }
        /* ours now: not inherited, never blocking a worker in accept */
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
        ls[i].fd = fd;
    }
    *out = ls;
    return (int)n;
}

/* Docs-hosting options (issue 5), checked in depth: every error printed. */
struct docs {
    enum negotiate_encoding precompressed[NEGOTIATE_N_ENCODINGS];
    size_t n_precompressed;
    struct cache_rules cache;
    struct headers_opt headers;
    const char *fallback, *health, *metrics;
};

static const char *root_relative(const char *p)
{
    if (!p)
        return NULL;
    while (*p == '/')
        p++;
    return p;
}

static int docs_load(const struct conf *c, struct docs *d)
{
    char err[256];
    const char *bad = NULL;
    size_t bad_len = 0;
    int errors = 0, n;

    n = negotiate_prefs_parse(c->precompressed, d->precompressed, &bad,
                              &bad_len);
    if (n < 0) {
        fprintf(stderr,
                "beneath: precompressed %s: '%.*s' is not br, zst or gz (or "
                "the list is off)\n",
                c->precompressed, (int)bad_len, bad);
        errors++;
    } else {
        d->n_precompressed = (size_t)n;
    }
    for (size_t i = 0; i < c->cache.n; i++) {
        int r = cache_rules_add(&d->cache, c->cache.v[i], err, sizeof err);
        if (r == -ENOMEM)
            return -ENOMEM;
        if (r < 0) {
            fprintf(stderr, "beneath: cache %s: %s\n", c->cache.v[i], err);
            errors++;
        }
    }
    if (c->cache_default) {
        int r = cache_rules_set_default(&d->cache, c->cache_default, err,
                                        sizeof err);
        if (r == -ENOMEM)
            return -ENOMEM;
        if (r < 0) {
            fprintf(stderr, "beneath: cache-default %s: %s\n", c->cache_default,
                    err);
            errors++;
        }
    }
    for (size_t i = 0; i < c->header.n; i++) {
        int r = headers_opt_add(&d->headers, c->header.v[i], err, sizeof err);
        if (r == -ENOMEM)
            return -ENOMEM;
        if (r < 0) {
            fprintf(stderr, "beneath: header %s: %s\n", c->header.v[i], err);
            errors++;
        }
    }
    if (c->security_headers && headers_opt_add_security(&d->headers) < 0)
        return -ENOMEM;
    d->fallback = root_relative(c->fallback);
    d->health = root_relative(c->health);
    d->metrics = root_relative(c->metrics);
    if (d->fallback && !*d->fallback) {
        fprintf(stderr, "beneath: fallback %s: names the root, not a file\n",
                c->fallback);
        errors++;
    }
    return errors ? -EINVAL : 0;
}

static void docs_free(struct docs *d)
{
    cache_rules_free(&d->cache);
    headers_opt_free(&d->headers);
}

static void listener_label(const struct conf_listen *l, char *buf, size_t n)
{
    if (l->kind == CONF_LISTEN_UNIX)
        snprintf(buf, n, "unix:%s", l->path);
    else
        snprintf(buf, n, "%s%s%s%s:%u", l->tls ? "https://" : "",
                 strchr(l->host, ':') ? "[" : "", l->host,
                 strchr(l->host, ':') ? "]" : "", l->port);
}

/* The backend sentence of the start-up lines; false if it cannot serve. */
static bool backend_line(enum resolver_backend b, char *buf, size_t n)
{
    const char *why = NULL;
    enum resolver_backend a = resolver_auto_backend(&why);

    switch (b) {
    case RESOLVER_BACKEND_KERNEL:
        snprintf(buf, n, "kernel (forced by --resolver kernel; %s)", why);
        return a == RESOLVER_BACKEND_KERNEL;
    case RESOLVER_BACKEND_EMULATED:
        snprintf(buf, n, "emulated (forced by --resolver emulated)");
        return true;
    case RESOLVER_BACKEND_LEXICAL:
        snprintf(buf, n,
                 "lexical (UNSAFE: string checks and plain openat, symlinks "
                 "are followed out of the root; a benchmark baseline only)");
        return true;
    default:
        snprintf(buf, n, "%s (auto: %s)", resolver_backend_name(a), why);
        return true;
    }
}

static int drop_privileges(uid_t uid, gid_t gid, const char *user)
{
    if (setgroups(1, &gid) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
        fprintf(stderr, "beneath: --user %s: cannot switch: %s\n", user,
                strerror(errno));
        return -1;
    }
    if (uid != 0 && (setuid(0) == 0 || geteuid() != uid || getegid() != gid)) {
        fprintf(stderr, "beneath: --user %s: privileges were not dropped\n",
                user);
        return -1;
    }
    return 0;
}

/*
 * The fds the server may hold at once: a socket and an open file per
 * connection, a margin for listeners, logs and the ETag thread, and each
 * worker's resolver directory cache (its directories and 3 event fds).
 * Raise the soft RLIMIT_NOFILE to the hard one; if that is still short,
 * shrink the caches to fit and say so. Returns the cache size to use.
 */
static unsigned fd_budget(const struct conf *c)
{
    const rlim_t fixed = 2 * (rlim_t)c->max_connections + 64;
    unsigned cache = c->resolver_cache;
    struct rlimit rl;
    rlim_t per_thread;

    if (cache == 0 || getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return cache;
    if (rl.rlim_cur < rl.rlim_max) {
        struct rlimit want = {rl.rlim_max, rl.rlim_max};

        if (setrlimit(RLIMIT_NOFILE, &want) == 0)
            rl.rlim_cur = rl.rlim_max;
    }
    per_thread =
        rl.rlim_cur > fixed ? (rl.rlim_cur - fixed) / (c->threads + 1) : 0;
    if (per_thread >= (rlim_t)cache + 3)
        return cache;
    cache = per_thread > 3 ? (unsigned)(per_thread - 3) : 0;
    fprintf(stderr,
            "beneath: warning: --resolver-cache lowered from %u to %u per "
            "thread: RLIMIT_NOFILE is %llu and %u connections may need "
            "%llu\n",
            c->resolver_cache, cache, (unsigned long long)rl.rlim_cur,
            c->max_connections, (unsigned long long)fixed);
    return cache;
}

static int64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool any_tls(const struct conf *c)
{
    for (size_t i = 0; i < c->n_listen; i++)
        if (c->listen[i].tls)
            return true;
    return false;
}

/* Which TLS options go together; each problem one line, counted. */
static int tls_check_options(const struct conf *c)
{
    int errors = 0;

    if (!c->tls_cert != !c->tls_key) {
        fprintf(stderr, "beneath: --tls-cert and --tls-key go together\n");
        errors++;
    }
    if (c->tls_key_password_file && !c->tls_key) {
        fprintf(stderr, "beneath: --tls-key-password-file needs --tls-key\n");
        errors++;
    }
    if (c->tls_self_signed && c->tls_cert) {
        fprintf(stderr, "beneath: --tls-self-signed and --tls-cert exclude "
                        "each other\n");
        errors++;
    }
    if (any_tls(c) && !c->tls_cert && !c->tls_self_signed) {
        fprintf(stderr, "beneath: an https:// listener needs --tls-cert and "
                        "--tls-key, or --tls-self-signed\n");
        errors++;
    }
    if (!any_tls(c) && (c->tls_cert || c->tls_self_signed))
        fprintf(stderr, "beneath: warning: no https:// listener: the TLS "
                        "certificate is not used\n");
    return errors;
}

/*
 * Load (or make) the certificate and hand it to GnuTLS; @when prefixes the
 * messages ("" at start-up, "SIGHUP: " on reload). Returns 0 or -errno.
 */
static int tls_setup(const struct conf *c, const char *when)
{
    struct tls_source src = {
        .cert = c->tls_cert,
        .key = c->tls_key,
        .password_file = c->tls_key_password_file,
        .self_signed = c->tls_self_signed,
    };
    struct tls_material_diag d;
    char fp[TLS_MATERIAL_FINGERPRINT_LEN];
    int err = tls_load(&src, &d, fp);

    if (err) {
        fprintf(stderr, "beneath: %stls: %s%s\n", when, d.error,
                when[0] ? "; keeping the old certificate" : "");
        return err;
    }
    if (d.warning[0])
        fprintf(stderr, "beneath: %stls: warning: %s\n", when, d.warning);
    if (c->tls_self_signed)
        fprintf(stderr,
                "beneath: tls: self-signed certificate for localhost, "
                "127.0.0.1, ::1 (valid %d days); SHA-256 fingerprint %s\n",
                TLS_MATERIAL_SELF_SIGNED_DAYS, fp);
    else
        fprintf(stderr,
                "beneath: %stls: certificate %s loaded; SHA-256 "
                "fingerprint %s\n",
                when, c->tls_cert, fp);
    return 0;
}

static void reload(struct root *root, struct log *log, const struct conf *c)
{
    int err = root_reload(root);

    if (err)
        fprintf(stderr,
                "beneath: SIGHUP: cannot reopen the root %s: %s; keeping the "
                "old root\n",
                c->root, strerror(-err));
    else
        fprintf(stderr, "beneath: SIGHUP: root %s reopened\n", c->root);
    err = log_reopen(log);
    if (err)
        fprintf(stderr,
                "beneath: SIGHUP: cannot reopen the access log %s: %s; "
                "keeping the old file\n",
                c->access_log, strerror(-err));
    /* A self-signed certificate stays: a new one would change for nothing. */
    if (any_tls(c) && !c->tls_self_signed)
        tls_setup(c, "SIGHUP: ");
}

/*
 * The start-up lines: one per listener, then the root, the backend that
 * serves and why, and the confinement flags. All in one write(2), so whoever
 * waits for "listening on" sees the whole block at once.
 */
static void print_startup(const struct conf *c, const struct listener *ls,
                          size_t n_ls, const char *backend)
{
    char *buf = NULL, real[PATH_MAX], flags[256];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bool same = !realpath(c->root, real) || strcmp(real, c->root) == 0;

    if (!f)
        return;
    resolver_flags_format(c->confine, flags, sizeof flags);
    for (size_t i = 0; i < n_ls; i++)
        fprintf(f, "beneath: listening on %s\n", ls[i].url);
    fprintf(f, "beneath: root %s%s%s%s\n", c->root, same ? "" : " (",
            same ? "" : real, same ? "" : ")");
    fprintf(f, "beneath: resolver %s\n", backend);
    fprintf(f, "beneath: confine %s\n", flags);
    if (fclose(f) == 0) {
        ssize_t n = write(STDERR_FILENO, buf, len);
        (void)n;
    }
    free(buf);
}

/* Drain: stop accepting, wait for requests in flight up to the timeout. */
static void drain(struct http *h, int sfd, unsigned timeout)
{
    int64_t deadline = mono_ms() + (int64_t)timeout * 1000;

    http_quiesce(h);
    while (http_in_flight(h) > 0) {
        int64_t left = deadline - mono_ms();
        if (left <= 0) {
            fprintf(stderr,
                    "beneath: shutdown-timeout: closing %u requests in "
                    "flight\n",
                    http_in_flight(h));
            break;
        }
        struct pollfd p = {.fd = sfd, .events = POLLIN};
        if (poll(&p, 1, left < 20 ? (int)left : 20) > 0) {
            struct signalfd_siginfo si;
            if (read(sfd, &si, sizeof si) == sizeof si &&
                si.ssi_signo != SIGHUP) {
                fprintf(stderr, "beneath: second signal: stopping now\n");
                break;
            }
        }
    }
}

int main(int argc, char *argv[])
{
    struct conf c;
    struct conf_diag d = {0};
    struct listener *ls = NULL;
    struct root *root = NULL;
    struct log *log = NULL;
    struct http *h = NULL;
    static struct metrics metrics; /* zero: static storage */
    struct docs docs = {0};
    struct etag_cache *etags = NULL;
    size_t n_ls = 0;
    int status = EXIT_CONF, errors = 0, sfd = -1, err, act;
    uid_t uid = 0;
    gid_t gid = 0;
    char line[512];

    err = conf_load(&c, argc, argv, environ, &d);
    for (size_t i = 0; i < d.n; i++)
        fprintf(stderr, "beneath: %s\n", d.msgs[i]);
    conf_diag_free(&d);
    if (err == -ENOMEM) {
        fprintf(stderr, "beneath: out of memory\n");
        goto out_conf;
    }
    if (err)
        goto out_conf;
    if (c.probe) {
        status = probe_run(c.probe);
        goto out_conf;
    }
    if (c.help) {
        conf_help(stdout, "beneath");
        status = 0;
        goto out_conf;
    }
    if (c.version) {
        printf("beneath %s\n", BENEATH_VERSION);
        status = 0;
        goto out_conf;
    }

    /* Checks that need the OS: every error of the run, then exit 2. */
    resolver_set_backend(c.resolver);
    if (!backend_line(c.resolver, line, sizeof line)) {
        fprintf(stderr,
                "beneath: --resolver kernel: openat2 is not usable: %s\n",
                line);
        errors++;
    }
    unsigned dir_cache = fd_budget(&c);
    if (c.resolver == RESOLVER_BACKEND_EMULATED ||
        (c.resolver == RESOLVER_BACKEND_AUTO &&
         resolver_auto_backend(NULL) == RESOLVER_BACKEND_EMULATED)) {
        size_t n = strlen(line);
        if (dir_cache)
            snprintf(line + n, sizeof line - n,
                     "; directory cache: %u per worker", dir_cache);
        else
            snprintf(line + n, sizeof line - n,
                     "; no directory cache (--resolver-cache 0)");
    }
    err = root_open(c.root, dir_cache, &root);
    if (err) {
        fprintf(stderr, "beneath: root %s: %s\n", c.root, strerror(-err));
        errors++;
    }
    if (c.user) {
        struct passwd *pw = getpwnam(c.user);
        if (!pw) {
            fprintf(stderr, "beneath: --user %s: no such user\n", c.user);
            errors++;
        } else if (geteuid() != 0 && pw->pw_uid != geteuid()) {
            fprintf(stderr, "beneath: --user %s: switching needs root\n",
                    c.user);
            errors++;
        } else {
            uid = pw->pw_uid;
            gid = pw->pw_gid;
        }
    }
    err = docs_load(&c, &docs);
    if (err == -ENOMEM) {
        fprintf(stderr, "beneath: out of memory\n");
        goto out_close;
    }
    if (err)
        errors++;
    act = activated(&ls);
    if (act < 0) {
        errors++;
    } else if (act > 0) {
        n_ls = (size_t)act;
    } else {
        ls = calloc(c.n_listen ? c.n_listen : 1, sizeof *ls);
        if (!ls) {
            fprintf(stderr, "beneath: out of memory\n");
            goto out_close;
        }
        n_ls = c.n_listen;
    }
    for (size_t i = 0; act == 0 && i < c.n_listen; i++) {
        const struct conf_listen *l = &c.listen[i];
        char label[512], why[256];
        ls[i].fd = -1;
        listener_label(l, label, sizeof label);
        if ((l->kind == CONF_LISTEN_UNIX ? bind_unix : bind_tcp)(
                l, &ls[i], why, sizeof why) != 0) {
            fprintf(stderr, "beneath: listen %s: %s\n", label, why);
            errors++;
        }
    }
    err =
        log_open(c.access_log,
                 c.log_format == CONF_LOG_JSON ? LOG_JSON : LOG_COMBINED, &log);
    if (err) {
        fprintf(stderr, "beneath: access-log %s: %s\n", c.access_log,
                strerror(-err));
        errors++;
    }
    /* The key is read now, before privileges are dropped. */
    int tls_errors = tls_check_options(&c);
    errors += tls_errors;
    if (!tls_errors && any_tls(&c) && tls_setup(&c, "") != 0)
        errors++;
    struct etag_cache_config ec = {
        .mode = c.etag == CONF_ETAG_MTIME ? ETAG_MODE_MTIME
                : c.etag == CONF_ETAG_OFF ? ETAG_MODE_OFF
                                          : ETAG_MODE_CONTENT,
    };
    err = etag_cache_create(&etags, &ec);
    if (err) {
        fprintf(stderr, "beneath: etag cache: %s\n", strerror(-err));
        errors++;
    }
    if (errors)
        goto out_close;
    if (c.check) {
        conf_print(stdout, &c);
        status = 0;
        goto out_close;
    }

    status = 1;
    if (c.user && drop_privileges(uid, gid, c.user) != 0)
        goto out_close;

    /* Blocked before any thread exists, so every thread inherits it. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    /* A closed stdout (access log "-") must not kill the server. */
    signal(SIGPIPE, SIG_IGN);
    sfd = signalfd(-1, &set, SFD_CLOEXEC);
    if (sfd < 0) {
        fprintf(stderr, "beneath: signalfd: %s\n", strerror(errno));
        goto out_close;
    }

    struct http_conf hc = {
        .files =
            {
                .confine = c.confine,
                .index = c.index.v,
                .n_index = c.index.n,
                .listing = c.listing,
                .dotfiles = c.dotfiles == CONF_DOTFILES_ALLOW,
                .etags = etags,
                .hsts = c.hsts,
                .precompressed = docs.precompressed,
                .n_precompressed = docs.n_precompressed,
                .cache = &docs.cache,
                .headers = &docs.headers,
                .try_html = c.try_html,
                .fallback = docs.fallback,
                .health = docs.health,
                .metrics_path = docs.metrics,
                .metrics = &metrics,
                .server_timing = c.server_timing,
            },
        .threads = c.threads,
        .max_connections = c.max_connections,
        .max_connections_per_ip = c.max_connections_per_ip,
        .timeout = c.timeout,
        .header_timeout = c.header_timeout,
        .max_header_size = c.max_header_size,
    };
    int *fds = calloc(n_ls ? n_ls : 1, sizeof *fds);
    bool *tls = calloc(n_ls ? n_ls : 1, sizeof *tls);
    if (!fds || !tls) {
        free(fds);
        free(tls);
        fprintf(stderr, "beneath: out of memory\n");
        goto out_close;
    }
    for (size_t i = 0; i < n_ls; i++) {
        fds[i] = ls[i].fd;
        /* Socket-activated listeners (act > 0) are plain HTTP. */
        tls[i] = act == 0 && i < c.n_listen && c.listen[i].tls;
        ls[i].fd = -1; /* http_start owns them now */
    }
    err = http_start(&hc, root, log, fds, tls, n_ls, &h);
    free(tls);
    free(fds);
    if (err)
        goto out_close;

    print_startup(&c, ls, n_ls, line);
    http_started();
    notify_ready();

    for (;;) {
        struct signalfd_siginfo si;
        ssize_t n = read(sfd, &si, sizeof si);
        if (n != sizeof si) {
            if (n < 0 && errno == EINTR)
                continue;
            fprintf(stderr, "beneath: signalfd read: %s\n", strerror(errno));
            break;
        }
        if (si.ssi_signo == SIGHUP) {
            notify_reloading();
            reload(root, log, &c);
            notify_ready();
            continue;
        }
        fprintf(stderr, "beneath: %s: stopping\n",
                si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
        notify_stopping();
        drain(h, sfd, c.shutdown_timeout);
        status = 0;
        break;
    }
    http_stop(h);

out_close:
    if (sfd >= 0)
        close(sfd);
    for (size_t i = 0; ls && i < n_ls; i++) {
        if (ls[i].fd >= 0)
            close(ls[i].fd);
        if (ls[i].unix_path) {
            unlink(ls[i].unix_path);
            free(ls[i].unix_path);
        }
    }
    free(ls);
    /* No daemon runs any more: no session can use a certificate. */
    tls_unload();
    etag_cache_destroy(etags);
    log_close(log);
    root_close(root);
    docs_free(&docs);
out_conf:
    conf_free(&c);
    return status;
}
