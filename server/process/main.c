// SPDX-License-Identifier: MIT
/*
 * main.c - beneath's start-up, privilege drop and signal loop.
 *
 * Phases: conf_load (every message, exit 2) -> checks that need the OS, all
 * errors collected (root, backend, listeners bound, user, log; exit 2) ->
 * --check prints the configuration (it binds nothing and creates no file: a
 * port in use or a log file still to be created are no errors there) ->
 * drop privileges -> start the daemons
 * -> start-up lines on stderr -> signals: SIGHUP reads the configuration
 * again and applies it (reload.c; a bad one is refused, the old one stays),
 * SIGTERM/SIGINT drain requests in flight (bounded) and exit 0. The TLS key
 * is read with the other checks, before privileges are dropped.
 * Signals are blocked in every thread and read from a signalfd here.
 */
#include "access/access.h"
#include "conf.h"
#include "files/etag_cache.h"
#include "observe/log.h"
#include "observe/metrics.h"
#include "process/acme_conf.h"
#include "process/acme_serve.h"
#include "process/certs.h"
#include "process/fd_budget.h"
#include "process/generation.h"
#include "process/keeper.h"
#include "process/listen.h"
#include "process/notify.h"
#include "process/reload.h"
#include "process/sandbox.h"
#include "resolver.h"
#include "runtime/live.h"
#include "runtime/root.h"
#include "transport/daemon.h"
#include "transport/metrics_server.h"
#include "transport/probe.h"

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
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define EXIT_CONF 2

extern char **environ;

/* The backend sentence of the start-up lines; false if it cannot serve. */
static bool backend_line(enum resolver_backend b, char *buf, size_t n)
{
    const char *why = NULL;
    enum resolver_backend a = resolver_auto_backend(&why);
    char who[512];

    /* a filter, not the kernel, refused openat2: say which and what to do */
    if (a != RESOLVER_BACKEND_KERNEL &&
        sandbox_who("openat2", resolver_auto_errno(), who, sizeof who))
        why = who;

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

static int64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The start-up lines: one per listener, then the root, the backend that
 * serves and why, and the confinement flags. All in one write(2), so whoever
 * waits for "listening on" sees the whole block at once.
 */
static void print_startup(const struct conf *c, const struct listeners *ls,
                          const char *backend, const struct access *a,
                          const char *murl, const char *real)
{
    char *buf = NULL, flags[256];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bool same = !c->root || !real[0] || strcmp(real, c->root) == 0;

    if (!f)
        return;
    resolver_flags_format(c->confine, flags, sizeof flags);
    for (size_t i = 0; i < ls->n; i++)
        fprintf(f, "beneath: listening on %s\n", ls->v[i].url);
    if (c->root)
        fprintf(f, "beneath: root %s%s%s%s\n", c->root, same ? "" : " (",
                same ? "" : real, same ? "" : ")");
    access_startup(a, f);
    if (c->listing_quick)
        fprintf(f, "beneath: listing directories without an index file, as "
                   "python3 -m http.server does (--listing off: 403)\n");
    if (murl[0])
        fprintf(f, "beneath: metrics on %s\n", murl);
    if (murl[0] && access_addresses(a))
        fprintf(f, "beneath: metrics: --allow/--deny apply to their listener "
                   "too\n");
    fprintf(f, "beneath: resolver %s\n", backend);
    fprintf(f, "beneath: confine %s\n", flags);
    if (fclose(f) == 0) {
        ssize_t n = write(STDERR_FILENO, buf, len);
        (void)n;
    }
    free(buf);
}

/*
 * Under a keeper (@kfd >= 0), the serving process takes no signal: the
 * keeper's records say reload and stop (a standard signal sent by the
 * keeper could merge with one sent to both by pkill or a terminal's ^C,
 * which are the keeper's to act on, once).
 */
static bool signal_stops(int sfd, bool kept)
{
    struct signalfd_siginfo si;

    return read(sfd, &si, sizeof si) == sizeof si && !kept &&
           si.ssi_signo != SIGHUP;
}

/* Drain: stop accepting, wait for requests in flight up to the timeout;
 * a second stop (a signal, or the keeper's record) stops at once. */
static void drain(struct daemon *h, int sfd, unsigned timeout, int kfd)
{
    int64_t deadline = mono_ms() + (int64_t)timeout * 1000;

    daemon_quiesce(h);
    while (daemon_in_flight(h) > 0) {
        int64_t left = deadline - mono_ms();
        if (left <= 0) {
            fprintf(stderr,
                    "beneath: shutdown-timeout: closing %u requests in "
                    "flight\n",
                    daemon_in_flight(h));
            break;
        }
        struct pollfd p[2] = {{.fd = sfd, .events = POLLIN},
                              {.fd = kfd, .events = POLLIN}};
        if (poll(p, 2, left < 20 ? (int)left : 20) <= 0)
            continue;
        bool now = (p[0].revents & POLLIN) && signal_stops(sfd, kfd >= 0);
        if (p[1].revents) {
            struct keeper_msg m;
            int r = keeper_recv(kfd, &m);

            now = now || (r > 0 && m.type == KEEPER_STOP);
            if (r <= 0 && r != -ENOMEM)
                kfd = -1; /* the keeper is gone: the drain stays bounded */
            keeper_msg_release(&m);
        }
        if (now) {
            fprintf(stderr, "beneath: second signal: stopping now\n");
            break;
        }
    }
}

/* Everything the server holds; released by server_close. */
struct server {
    struct conf c; /* until the first generation takes it over */
    struct listeners ls;
    struct root *root;     /* NULL: virtual hosts only */
    struct access *access; /* sites and access rules (access.h) */
    unsigned dir_cache;    /* directories per thread's resolver cache */
    unsigned h2_files;     /* HTTP/2 file streams beyond one a connection */
    struct daemon *d;
    struct metrics metrics;
    int metrics_fd;              /* --metrics-listen, until served */
    char metrics_url[96];        /* its URL, for the start-up lines */
    struct metrics_server *msrv; /* serving it */
    struct etag_cache *etags;
    struct compress_cache *compress; /* bodies compressed on the fly */
    struct mime_map mime;            /* --mime-types, --mime */
    struct respond_base base;
    struct generation *boot; /* the start-up configuration, kept */
    struct live *live;       /* the current generation, for the workers */
    struct acme_challenges *acme_ch; /* --acme: answered while serving */
    struct acme_serve *acme;         /* --acme: the manager */
    struct reload reload;
    uid_t uid;
    gid_t gid;
    int sfd;
    pid_t keeper;             /* the keeper (keeper.h), or 0: one process */
    int keeper_fd;            /* the socket to it, or -1 */
    char backend[768];        /* the resolver's start-up sentence */
    char real_root[PATH_MAX]; /* the root resolved, before the sandbox */
};

/*
 * Phase 1: the configuration. Returns -1 to go on, else the exit status
 * (--help, --version, or an error already printed).
 */
static int phase_conf(struct server *s, int argc, char *argv[])
{
    struct conf_diag d = {0};
    int err = conf_load(&s->c, argc, argv, environ, &d);

    for (size_t i = 0; i < d.n_warnings; i++)
        fprintf(stderr, "beneath: %s\n", d.warnings[i]);
    for (size_t i = 0; i < d.n; i++)
        fprintf(stderr, "beneath: %s\n", d.msgs[i]);
    conf_diag_free(&d);
    if (err == -ENOMEM)
        fprintf(stderr, "beneath: out of memory\n");
    if (err)
        return EXIT_CONF;
    if (s->c.probe)
        return probe_run(s->c.probe);
    if (s->c.help) {
        conf_help(stdout, "beneath");
        return 0;
    }
    if (s->c.version) {
        printf("beneath %s\n", BENEATH_VERSION);
        return 0;
    }
    return -1;
}

/* The resolver backend and the root; the number of problems. */
static int check_root(struct server *s)
{
    const struct conf *c = &s->c;
    int errors = 0, err;

    resolver_set_backend(c->resolver);
    if (!backend_line(c->resolver, s->backend, sizeof s->backend)) {
        fprintf(stderr,
                "beneath: --resolver kernel: openat2 is not usable: %s\n",
                s->backend);
        errors++;
    }
    struct fd_budget budget;
    fd_budget_fit(&s->c, &budget);
    unsigned dir_cache = budget.dir_cache;
    s->h2_files = budget.h2_files;
    if (c->resolver == RESOLVER_BACKEND_EMULATED ||
        (c->resolver == RESOLVER_BACKEND_AUTO &&
         resolver_auto_backend(NULL) == RESOLVER_BACKEND_EMULATED)) {
        size_t n = strlen(s->backend);
        if (dir_cache)
            snprintf(s->backend + n, sizeof s->backend - n,
                     "; directory cache: %u per worker", dir_cache);
        else
            snprintf(s->backend + n, sizeof s->backend - n,
                     "; no directory cache (--resolver-cache 0)");
    }
    s->dir_cache = dir_cache;
    /* now: the sandbox refuses getcwd, which realpath needs */
    if (!c->root || !realpath(c->root, s->real_root))
        s->real_root[0] = '\0';
    err = c->root ? root_open(c->root, dir_cache, &s->root) : 0;
    if (err) {
        fprintf(stderr, "beneath: root %s: %s\n", c->root, strerror(-err));
        errors++;
    }
    return errors;
}

/* --user: who to become; the number of problems. */
static int check_user(struct server *s)
{
    const char *user = s->c.user;
    struct passwd *pw;

    if (!user)
        return 0;
    pw = getpwnam(user);
    if (!pw) {
        fprintf(stderr, "beneath: --user %s: no such user\n", user);
        return 1;
    }
    if (geteuid() != 0 && pw->pw_uid != geteuid()) {
        fprintf(stderr, "beneath: --user %s: switching needs root\n", user);
        return 1;
    }
    s->uid = pw->pw_uid;
    s->gid = pw->pw_gid;
    return 0;
}

/* The access log, the TLS material and the ETag cache; problems. */
static void count_resolve(void *arg, enum resolver_backend backend, uint64_t ns,
                          int ret)
{
    metrics_count_resolve(arg, backend, ns, ret);
}

/*
 * --check creates no file, and neither does a start that already failed: the
 * access log is only looked at (@note: say that a start would create it).
 */
static int check_log(const struct conf *c, bool note)
{
    int err = log_check(c->access_log);

    if (err == 1 && note)
        fprintf(stderr,
                "beneath: access-log %s: does not exist yet (a start creates "
                "it)\n",
                c->access_log);
    else if (err)
        fprintf(stderr, "beneath: access-log %s: %s\n", c->access_log,
                strerror(-err));
    return err < 0 ? 1 : 0;
}

/* The ETag cache's counters, for the metrics. */
static void etag_counts(void *arg, uint64_t *hits, uint64_t *misses)
{
    struct etag_cache_stats st;

    etag_cache_stats(arg, &st);
    *hits = st.hits;
    *misses = st.misses;
}

static void compress_counts(void *arg, uint64_t *hits, uint64_t *misses)
{
    struct compress_cache_stats st;

    compress_cache_stats(arg, &st);
    *hits = st.hits;
    *misses = st.misses;
}

/* --mime-types and --mime, read once; problems (-ENOMEM: out of memory). */
static int check_mime(struct server *s)
{
    struct conf_diag d = {0};
    int err = conf_mime_load(&s->c, &s->mime, &d);

    for (size_t i = 0; i < d.n_warnings; i++)
        fprintf(stderr, "beneath: %s\n", d.warnings[i]);
    for (size_t i = 0; i < d.n; i++)
        fprintf(stderr, "beneath: %s\n", d.msgs[i]);
    conf_diag_free(&d);
    return err == -ENOMEM ? err : err ? 1 : 0;
}

/* The TLS material, the ETag cache and --metrics-listen; problems. */
static int check_outputs(struct server *s)
{
    const struct conf *c = &s->c;
    int errors = 0, err;

    /* The key is read now, before privileges are dropped. */
    int tls_errors = certs_check(c, "");
    errors += tls_errors;
    if (!tls_errors && certs_wanted(c) &&
        (certs_open(c) != 0 || certs_load(c, "") != 0))
        errors++;
    struct etag_cache_config ec = {
        .mode = c->etag == CONF_ETAG_MTIME ? ETAG_MODE_MTIME
                : c->etag == CONF_ETAG_OFF ? ETAG_MODE_OFF
                                           : ETAG_MODE_CONTENT,
    };
    err = etag_cache_new(&s->etags, &ec);
    if (err) {
        fprintf(stderr, "beneath: etag cache: %s\n", strerror(-err));
        errors++;
    } else {
        metrics_add_cache(&s->metrics, "etag", etag_counts, s->etags);
    }
    if (c->metrics_listen && !c->check) {
        s->metrics_fd = metrics_server_bind(c->metrics_listen, s->metrics_url,
                                            sizeof s->metrics_url);
        if (s->metrics_fd < 0) {
            fprintf(stderr, "beneath: --metrics-listen %s: %s\n",
                    c->metrics_listen, strerror(-s->metrics_fd));
            errors++;
        }
    }
    struct compress_cache_config cc = {.budget = c->compress_cache};
    err = compress_cache_new(&s->compress, &cc);
    if (err) {
        fprintf(stderr, "beneath: compress cache: %s\n", strerror(-err));
        errors++;
    } else {
        metrics_add_cache(&s->metrics, "compress", compress_counts,
                          s->compress);
    }
    return errors;
}

/*
 * The first configuration generation: the conf moves into it (with its
 * access log), and main keeps a reference for the restart-only values.
 * The number of problems.
 */
static int check_generation(struct server *s)
{
    struct generation *g;
    char *log = s->c.access_log;
    int err;

    s->base = (struct respond_base){
        .etags = s->etags,
        .compress_cache = s->compress,
        .metrics = &s->metrics,
        .resolved = count_resolve,
        .resolved_arg = &s->metrics,
        .error_pages = access_error_pages(s->access),
        .mime = &s->mime,
        .access = s->access,
        .root = s->root,
        .acme = s->acme_ch,
    };
    err = generation_new(&s->c, &s->base, NULL, &g);
    if (err) {
        fprintf(stderr, "beneath: access-log %s: %s\n", log, strerror(-err));
        return 1;
    }
    if (live_new(g, generation_unref, &s->live) != 0) {
        fprintf(stderr, "beneath: out of memory\n");
        generation_unref(g);
        return 1;
    }
    s->boot = generation_ref(g);
    return 0;
}

/*
 * Phase 2: checks that need the OS, every error of the run collected.
 * --check binds nothing and creates no file: a port in use is a warning
 * there, a log file still to be created a note. A start with an error
 * creates no file either. Returns 0, or -1 after the
 * messages (-ENOMEM: out of memory).
 */
static int phase_check(struct server *s)
{
    bool check = s->c.check;
    int errors = check_root(s) + check_user(s), err;

    /* vhosts, address rules, htpasswd, rule files, error pages: from the
     * start-up configuration (their files are re-read on SIGHUP) */
    err = access_open(&s->c, s->root, s->dir_cache, &s->metrics, &s->access);
    if (err == -ENOMEM)
        return -ENOMEM;
    errors += err;

    err = check_mime(s);
    if (err == -ENOMEM)
        return -ENOMEM;
    errors += err;

    err = check ? listen_check(&s->c) : listen_open(&s->c, &s->ls);
    if (err == -ENOMEM)
        return -ENOMEM;
    errors += err;
    errors += check_outputs(s);
    if (!check && s->c.acme.n && !(s->acme_ch = acme_challenges_new()))
        return -ENOMEM;
    /* The log file is created last, once everything else can run. */
    if (check || errors)
        errors +=
            check_log(&s->c, check) + (check ? acme_conf_check(&s->c) : 0);
    else
        errors += check_generation(s);
    return errors ? -1 : 0;
}

/* Signals are read from a signalfd: blocked from before the split on. */
static void block_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, set, NULL);
}

/*
 * Phase 3: privileges dropped, signals blocked (before any thread exists,
 * so every thread inherits the mask) and read from a signalfd. 0 or -1.
 */
static int phase_lockdown(struct server *s)
{
    const char *user = s->boot->c.user;
    sigset_t set;

    if (user && drop_privileges(s->uid, s->gid, user) != 0)
        return -1;
    block_signals(&set);
    /* A closed stdout (access log "-") must not kill the server. */
    signal(SIGPIPE, SIG_IGN);
    s->sfd = signalfd(-1, &set, SFD_CLOEXEC);
    if (s->sfd < 0) {
        fprintf(stderr, "beneath: signalfd: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

/*
 * Phase 3b, --acme: the stored certificates into the store (no network),
 * as the serving user, before any handshake. 0 or -1.
 */
static int phase_acme(struct server *s)
{
    const struct conf *c = &s->boot->c;
    bool shown = c->metrics || c->metrics_listen;

    return acme_serve_open(c, certs_store(), s->acme_ch,
                           shown ? &s->metrics : NULL, s->keeper != 0,
                           &s->acme) == 0
               ? 0
               : -1;
}

/* Phase 4: the daemons start; the listening sockets pass to them. */
static int phase_serve(struct server *s, struct daemon_conf *dc)
{
    const struct conf *c = &s->boot->c;
    int *fds = calloc(s->ls.n ? s->ls.n : 1, sizeof *fds);
    bool *tls = calloc(s->ls.n ? s->ls.n : 1, sizeof *tls);
    int err = -ENOMEM;

    *dc = (struct daemon_conf){
        .access = s->access,
        .threads = c->threads,
        .max_connections = c->max_connections,
        .max_connections_per_ip = c->max_connections_per_ip,
        .timeout = c->timeout,
        .header_timeout = c->header_timeout,
        .max_header_size = c->max_header_size,
        .http2 = c->http2,
        .h2_files = s->h2_files,
        .tls = certs_store(),
        .metrics = c->metrics || c->metrics_listen ? &s->metrics : NULL,
    };
    if (fds && tls) {
        for (size_t i = 0; i < s->ls.n; i++) {
            fds[i] = s->ls.v[i].fd;
            tls[i] = !s->ls.activated && s->ls.v[i].tls;
            s->ls.v[i].fd = -1; /* the daemons own them now */
        }
        err = daemon_new(dc, s->live, s->root, fds, tls, s->ls.n, &s->d);
    } else {
        fprintf(stderr, "beneath: out of memory\n");
    }
    free(tls);
    free(fds);
    if (err)
        return -1;
    if (s->metrics_fd >= 0) {
        err = metrics_server_start(s->metrics_fd, &s->metrics, s->access,
                                   &s->msrv);
        s->metrics_fd = -1;
        if (err) {
            fprintf(stderr, "beneath: --metrics-listen: cannot serve: %s\n",
                    strerror(-err));
            return -1;
        }
    }
    print_startup(c, &s->ls, s->backend, s->access, s->metrics_url,
                  s->real_root);
    daemon_started();
    notify_ready();
    return 0;
}

/* SIGHUP's work: the configuration again, applied if it is right. */
static void reload(struct server *s)
{
    notify_reloading();
    reload_run(&s->reload);
    access_reload(s->access);
    notify_ready();
}

/* What a record from the keeper asks of the serving process's loop. */
enum kept { KEPT_ON, KEPT_STOP, KEPT_GONE };

/*
 * A record from the keeper: files collect in @files until "reload"; ACME
 * records are applied and acknowledged; "stop" (its SIGTERM or SIGINT,
 * @signo) ends the loop, and so does the keeper's end.
 */
static enum kept keeper_record(struct server *s, struct handed_set *files,
                               int *signo)
{
    struct keeper_msg m;
    int r = keeper_recv(s->keeper_fd, &m);
    enum kept k = KEPT_ON;

    if (r <= 0 && r != -ENOMEM) {
        fprintf(stderr, "beneath: the keeper (pid %ld) is gone: stopping\n",
                (long)s->keeper);
        return KEPT_GONE;
    }
    if (r > 0 && m.type == KEEPER_FILE) {
        (void)handed_add(files, m.data, m.fd >= 0 ? m.fd : m.val);
        m.fd = -1; /* the set owns it */
    } else if (r > 0 && m.type == KEEPER_RELOAD) {
        handed_begin(files);
        reload(s);
        handed_end(); /* the keeper's descriptors are closed here */
    } else if (r > 0 && m.type == KEEPER_STOP) {
        *signo = m.val;
        k = KEPT_STOP;
    } else if (r > 0 && acme_serve_take(s->acme, s->acme_ch, &m) && m.val > 0) {
        (void)keeper_send(s->keeper_fd, KEEPER_ACK, m.val, NULL, 0, -1);
    }
    keeper_msg_release(&m);
    return k;
}

/*
 * Phase 5: signals until SIGTERM or SIGINT (under a keeper: its records
 * until "stop"). The exit status.
 */
static int phase_loop(struct server *s, int argc, char *argv[])
{
    struct handed_set files = {0};
    int status = 0, signo = 0;

    s->reload = (struct reload){
        .argc = argc,
        .argv = argv,
        .boot = s->boot,
        .cur = s->boot,
        .live = s->live,
        .root = s->root,
        .base = &s->base,
    };
    while (!signo) {
        struct pollfd p[2] = {{.fd = s->sfd, .events = POLLIN},
                              {.fd = s->keeper_fd, .events = POLLIN}};
        struct signalfd_siginfo si;

        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "beneath: poll: %s\n", strerror(errno));
            status = 1;
            break;
        }
        if (p[1].revents) {
            enum kept k = keeper_record(s, &files, &signo);
            if (k == KEPT_GONE) {
                status = 1;
                break;
            }
        }
        if (signo || !(p[0].revents & POLLIN))
            continue;
        ssize_t n = read(s->sfd, &si, sizeof si);
        if (n != sizeof si) {
            if (n < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            fprintf(stderr, "beneath: signalfd read: %s\n", strerror(errno));
            status = 1;
            break;
        }
        if (s->keeper) {
            /* SIGTERM and SIGINT sent to both (pkill, timeout, ^C) reach
             * the keeper too; a SIGHUP here alone would be lost */
            if (si.ssi_signo == SIGHUP)
                fprintf(stderr,
                        "beneath: SIGHUP from pid %ld ignored by the serving "
                        "process: signal the keeper, pid %ld\n",
                        (long)si.ssi_pid, (long)s->keeper);
        } else if (si.ssi_signo == SIGHUP) {
            reload(s);
        } else {
            signo = (int)si.ssi_signo;
        }
    }
    if (signo)
        fprintf(stderr, "beneath: %s: stopping\n",
                signo == SIGINT ? "SIGINT" : "SIGTERM");
    handed_clear(&files);
    notify_stopping();
    drain(s->d, s->sfd, s->reload.cur->c.shutdown_timeout, s->keeper_fd);
    return status;
}

static void server_close(struct server *s)
{
    /* the manager first: it installs into the store and writes challenges */
    acme_serve_close(s->acme);
    metrics_server_stop(s->msrv);
    if (s->metrics_fd >= 0)
        close(s->metrics_fd);
    daemon_free(s->d);
    if (s->sfd >= 0)
        close(s->sfd);
    if (s->keeper_fd >= 0)
        close(s->keeper_fd);
    listen_close(&s->ls);
    /* No front runs any more: no handshake can use a certificate. */
    certs_close();
    /* No worker thread is left: every generation but the current is freed. */
    live_free(s->live);
    generation_unref(s->boot);
    etag_cache_free(s->etags);
    compress_cache_free(s->compress);
    acme_challenges_free(s->acme_ch); /* no worker reads it any more */
    mime_map_free(&s->mime);
    access_free(s->access); /* it borrows the root */
    root_close(s->root);
    conf_free(&s->c);
}

/* The serving process's states go to its keeper, which tells systemd. */
static int told_fd = -1;

static void tell_keeper(const char *state)
{
    if (strncmp(state, "READY=1", 7) == 0)
        keeper_tell(told_fd, KEEPER_READY);
}

/*
 * Phase 2b: with the sandbox on, part into the keeper and the serving
 * process (keeper.h). Returns 0 in the serving process (or the only one),
 * the child's PID in the keeper, or -1 after a message.
 */
static pid_t phase_split(struct server *s)
{
    const struct conf *c = &s->boot->c;
    sigset_t set;
    pid_t child;
    int fd, err;

    block_signals(&set);
    if (c->sandbox == CONF_SANDBOX_OFF)
        return 0;
    err = keeper_split(&child, &fd);
    if (err) {
        fprintf(stderr, "beneath: keeper: cannot fork: %s\n", strerror(-err));
        return -1;
    }
    s->keeper_fd = fd;
    if (child)
        return child;
    s->keeper = getppid();
    /* no socket of its own for systemd: its keeper tells (no connect) */
    unsetenv("NOTIFY_SOCKET");
    told_fd = fd;
    notify_through(tell_keeper);
    /* on once the keeper's start-up line is out (or stop) */
    struct keeper_msg m;
    err = keeper_recv(fd, &m);
    bool go = err > 0 && m.type == KEEPER_GO;
    keeper_msg_release(&m);
    return go ? 0 : -1;
}

/*
 * The keeper's side of the split: release everything the serving process
 * holds (the unix sockets' paths are its to remove), drop privileges like
 * it, raise the keeper's own seccomp list, and wait. The exit status.
 */
static int keeper_main(struct server *s, pid_t child, int argc, char *argv[])
{
    const char *user = s->boot->c.user;
    struct acme_serve *acme = NULL;
    int fd = s->keeper_fd, status = 1, calls = -1;

    for (size_t i = 0; i < s->ls.n; i++) {
        free(s->ls.v[i].unix_path);
        s->ls.v[i].unix_path = NULL;
    }
    s->keeper_fd = -1;
    if (!user || drop_privileges(s->uid, s->gid, user) == 0)
        calls = sandbox_keeper();
    if (calls >= 0)
        fprintf(stderr,
                "beneath: keeper: pid %ld reads the configuration, TLS keys "
                "and htpasswd files and hands them to the serving process, "
                "pid %ld; no landlock, seccomp deny-list (%d calls: exec, "
                "ptrace, bind/listen/accept, mounts and namespaces, modules, "
                "identity changes; EPERM)%s\n",
                (long)getpid(), (long)child, calls,
                geteuid() == 0 ? "; as root, only the capabilities to read "
                                 "and write files (dac_override, "
                                 "dac_read_search)"
                               : "");
    /* the serving process goes on once the line is out: one order */
    keeper_tell(fd, calls >= 0 ? KEEPER_GO : KEEPER_STOP);
    /* --acme: the manager writes --acme-dir as the serving user */
    bool ok = calls >= 0 && acme_serve_keep(&s->boot->c, fd, &acme) == 0;
    server_close(s);
    if (ok && acme_serve_start(acme) == 0) {
        status = keeper_run(fd, child, argc, argv);
    } else {
        keeper_stop(fd);
        (void)keeper_run(fd, child, argc, argv);
    }
    acme_serve_close(acme);
    return status;
}

int main(int argc, char *argv[])
{
    static struct server s; /* zero; the metrics are large */
    struct daemon_conf dc;
    int status, err;

    s.sfd = -1;
    s.metrics_fd = -1;
    s.keeper_fd = -1;
    status = phase_conf(&s, argc, argv);
    if (status >= 0) {
        conf_free(&s.c);
        return status;
    }
    status = EXIT_CONF;
    err = phase_check(&s);
    if (err == -ENOMEM)
        fprintf(stderr, "beneath: out of memory\n");
    if (err)
        goto out;
    if (s.c.check) {
        conf_print(stdout, &s.c);
        status = 0;
        goto out;
    }
    status = 1;
    pid_t child = phase_split(&s);
    if (child > 0)
        return keeper_main(&s, child, argc, argv);
    if (child == 0 && phase_lockdown(&s) == 0 && phase_acme(&s) == 0 &&
        sandbox_apply(&s.boot->c, &s.ls, s.keeper) == 0 &&
        phase_serve(&s, &dc) == 0 && acme_serve_start(s.acme) == 0)
        status = phase_loop(&s, argc, argv);
out:
    server_close(&s);
    return status;
}
