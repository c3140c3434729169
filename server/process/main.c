// SPDX-License-Identifier: MIT
/*
 * main.c - beneath's start-up: the configuration (conf_load, every message,
 * exit 2), then --check in this one process, or the keeper (keeper_main.c)
 * which binds the listeners and starts the serving processes - each a new
 * image of this binary, which comes back here with SPAWN_ENV set and runs
 * the serving process's phases: what the keeper hands over (listeners,
 * files) -> checks that need the OS, all errors collected (root, backend,
 * access rules, TLS material, log; exit 2) -> signals blocked -> the
 * sandbox -> the daemons -> "ready" to the keeper -> its records until
 * "drain" (a newer generation serves: stop accepting, finish within
 * --drain-timeout) or "stop" (SIGTERM/SIGINT: finish the requests in
 * flight within --shutdown-timeout). A serving process takes no signal.
 */
#include "access/access.h"
#include "common/mono.h"
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
#include "process/keeper_main.h"
#include "process/listen.h"
#include "process/notify.h"
#include "process/sandbox.h"
#include "process/say.h"
#include "process/spawn.h"
#include "resolver.h"
#include "runtime/live.h"
#include "runtime/root.h"
#include "tls/keyless.h"
#include "transport/daemon.h"
#include "transport/h1/metrics_server.h"
#include "transport/h1/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
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

/*
 * The start-up lines: one per listener, then the root, the backend that
 * serves and why, and the confinement flags. All in one write(2), so whoever
 * waits for "listening on" sees the whole block at once.
 */
static void print_startup(const struct conf *c, const struct listeners *ls,
                          const char *backend, const struct access *a,
                          const char *murl, const char *real, unsigned gen)
{
    char *buf = NULL, flags[256];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bool same = !c->root || !real[0] || strcmp(real, c->root) == 0;

    if (!f)
        return;
    resolver_flags_format(c->confine, flags, sizeof flags);
    /* a later generation's lines say what it serves (the listeners stay) */
    for (size_t i = 0; i < ls->n && gen <= 1; i++)
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
    if (fclose(f) == 0)
        say_block(buf, len);
    free(buf);
}

/*
 * The end of a serving process, after the keeper's "stop" (SIGTERM, SIGINT:
 * the requests in flight, within --shutdown-timeout) or "drain" (a newer
 * generation serves: every connection, within --drain-timeout). Either
 * way it stops accepting first, and a "stop" during it stops at once if a
 * stop began it, or turns a drain into a stop. Returns when done.
 */
static void drain(struct daemon *h, const struct conf *c, int kfd, bool all,
                  unsigned gen)
{
    int64_t deadline = mono_ms() + 1000 * (int64_t)(all ? c->drain_timeout
                                                        : c->shutdown_timeout);
    int64_t began = mono_ms();

    daemon_drain(h);
    if (all && kfd >= 0)
        keeper_tell(kfd, KEEPER_DRAINING); /* the newer one takes them all */
    for (;;) {
        unsigned left_n = all ? daemon_connections(h) : daemon_in_flight(h);
        int64_t left = deadline - mono_ms();

        if (left_n == 0)
            break;
        if (left <= 0) {
            fprintf(stderr,
                    all ? "beneath: drain-timeout: closing %u connections\n"
                        : "beneath: shutdown-timeout: closing %u requests in "
                          "flight\n",
                    left_n);
            daemon_abort(h);
            break;
        }
        struct pollfd p = {.fd = kfd, .events = POLLIN};
        if (poll(&p, 1, left < 20 ? (int)left : 20) <= 0 || !p.revents)
            continue;
        struct keeper_msg m;
        int r = keeper_recv(kfd, &m);
        bool stop = r > 0 && m.type == KEEPER_STOP;

        if (r <= 0 && r != -ENOMEM)
            kfd = -1; /* the keeper is gone: the drain stays bounded */
        keeper_msg_release(&m);
        if (stop && !all) {
            fprintf(stderr, "beneath: second signal: stopping now\n");
            break;
        }
        if (stop) {
            /* the server stops: what is left gets --shutdown-timeout */
            int64_t d = mono_ms() + 1000 * (int64_t)c->shutdown_timeout;
            deadline = d < deadline ? d : deadline;
            all = false;
        }
    }
    if (all)
        fprintf(stderr, "beneath: generation %u (pid %ld) drained in %.1f s\n",
                gen, (long)getpid(), (double)(mono_ms() - began) / 1000);
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
    struct daemon_conf dc; /* the daemon's, borrowed until daemon_free */
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
    struct acme_serve *acme;         /* --acme: the keeper's, applied */
    struct handed_set files;         /* the keeper's, until start-up ends */
    struct keeper_msg *early;        /* ACME records before the store */
    size_t n_early;
    unsigned gen; /* this serving process's generation (1: the first) */
    int sfd;
    int keeper_fd;     /* the socket to the keeper */
    pid_t keeper;      /* its pid (getppid is not among the calls allowed) */
    char backend[768]; /* the resolver's start-up sentence */
    char real_root[PATH_MAX]; /* the root resolved, before the sandbox */
};

/*
 * Phase 1: the configuration. Returns -1 to go on, else the exit status
 * (--help, --version, or an error already printed). A serving process
 * (@serving) loads the file the keeper loaded and said the warnings of.
 */
static int phase_conf(struct server *s, int argc, char *argv[], bool serving)
{
    struct conf_diag d = {0};
    int err = conf_load(&s->c, argc, argv, environ, &d);

    for (size_t i = 0; i < d.n_warnings && !serving; i++)
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

/* The TLS material, the ETag and compression caches; problems. */
static int check_outputs(struct server *s)
{
    const struct conf *c = &s->c;
    int errors = 0, err;

    /* The key is read now, from the keeper's descriptor. */
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
    struct compress_cache_config cc = {.budget = c->compress_cache};
    err = compress_cache_new(&s->compress, &cc);
    if (err) {
        fprintf(stderr, "beneath: compress cache: %s\n", strerror(-err));
        errors++;
    } else {
        metrics_add_cache(&s->metrics, "compress", compress_counts,
                          s->compress);
    }
    if (c->sites)
        metrics_add_cache(&s->metrics, "sites", access_sites_counts, s->access);
    return errors;
}

/* The port of the first https:// listener the keeper handed over, or 0
 * (--https-redirect sends clients there). */
static unsigned https_port(const struct listeners *ls)
{
    for (size_t i = 0; i < ls->n; i++) {
        const char *colon = strrchr(ls->v[i].url, ':');

        if (ls->v[i].tls && !ls->activated && colon)
            return (unsigned)strtoul(colon + 1, NULL, 10);
    }
    return 0;
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
        .https_port = https_port(&s->ls),
    };
    err = generation_new(&s->c, &s->base, &g);
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
 * creates no file either. A serving process is given its listeners by the
 * keeper, which bound them. Returns 0, or -1 after the messages (-ENOMEM:
 * out of memory).
 */
static int phase_check(struct server *s)
{
    bool check = s->c.check;
    int errors = check_root(s), err;

    if (check)
        errors += keeper_check_user(&s->c, NULL, NULL);
    /* vhosts, address rules, htpasswd, rule files, error pages */
    err = access_open(&s->c, s->root, s->dir_cache, &s->metrics, &s->access);
    if (err == -ENOMEM)
        return -ENOMEM;
    errors += err;

    err = check_mime(s);
    if (err == -ENOMEM)
        return -ENOMEM;
    errors += err;

    if (check)
        errors += listen_check(&s->c);
    errors += check_outputs(s);
    if (!check && (s->c.acme.n || s->c.acme_on_demand) &&
        !(s->acme_ch = acme_challenges_new()))
        return -ENOMEM;
    /* --acme-dir writable (the keeper checks it before it binds) */
    if (check)
        errors += acme_conf_check(&s->c);
    /* The log file is created last, once everything else can run. */
    if (check || errors)
        errors += check_log(&s->c, check);
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
 * Phase 3: signals blocked (before any thread exists, so every thread
 * inherits the mask) and read from a signalfd: a serving process takes
 * none (its keeper is the one to signal). 0 or -1.
 */
static int phase_lockdown(struct server *s)
{
    sigset_t set;

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

static bool acme_record(const struct server *s, const struct keeper_msg *m);

/*
 * Phase 3b, --acme: the names held in the store until their certificates
 * come, and the records the keeper gave before the store existed. 0 or -1.
 */
static int phase_acme(struct server *s)
{
    const struct conf *c = &s->boot->c;
    bool shown = c->metrics || c->metrics_listen;

    if (acme_serve_open(c, certs_store(), s->acme_ch,
                        shown ? &s->metrics : NULL, s->access, s->keeper_fd,
                        &s->acme) != 0)
        return -1;
    for (size_t i = 0; i < s->n_early; i++) {
        (void)acme_record(s, &s->early[i]);
        keeper_msg_release(&s->early[i]);
    }
    free(s->early);
    s->early = NULL;
    s->n_early = 0;
    return 0;
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
                  s->real_root, s->gen);
    daemon_started();
    return 0;
}

/* An ACME record from the keeper, applied and acknowledged. */
static bool acme_record(const struct server *s, const struct keeper_msg *m)
{
    if (!acme_serve_take(s->acme, s->acme_ch, m))
        return false;
    if (m->val > 0)
        (void)keeper_send(s->keeper_fd, KEEPER_ACK, m->val, NULL, 0, -1);
    return true;
}

/* What a record from the keeper asks of the serving process's loop. */
enum kept { KEPT_ON, KEPT_STOP, KEPT_DRAIN, KEPT_GONE };

static enum kept keeper_record(struct server *s, int *signo)
{
    struct keeper_msg m;
    int r = keeper_recv(s->keeper_fd, &m);
    enum kept k = KEPT_ON;

    if (r <= 0 && r != -ENOMEM) {
        fprintf(stderr, "beneath: the keeper is gone: stopping\n");
        return KEPT_GONE;
    }
    if (r > 0 && m.type == KEEPER_STOP) {
        *signo = m.val;
        k = KEPT_STOP;
    } else if (r > 0 && m.type == KEEPER_DRAIN) {
        k = KEPT_DRAIN;
    } else if (r > 0) {
        (void)acme_record(s, &m);
    }
    keeper_msg_release(&m);
    return k;
}

/*
 * Phase 5: the keeper's records until "stop" or "drain"; a signal sent to
 * the serving process alone is pointed at the keeper. The exit status.
 */
static int phase_loop(struct server *s)
{
    enum kept k = KEPT_ON;
    int status = 0, signo = 0;

    say_prefix_end();
    keeper_tell(s->keeper_fd, KEEPER_READY);
    while (k == KEPT_ON) {
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
        if (p[1].revents)
            k = keeper_record(s, &signo);
        if (!(p[0].revents & POLLIN) ||
            read(s->sfd, &si, sizeof si) != sizeof si)
            continue;
        /* SIGTERM and SIGINT sent to both (pkill, timeout, ^C) reach the
         * keeper too, which says stop; a SIGHUP here alone would be lost */
        if (si.ssi_signo == SIGHUP)
            fprintf(stderr,
                    "beneath: SIGHUP from pid %ld ignored by the serving "
                    "process: signal the keeper, pid %ld\n",
                    (long)si.ssi_pid, (long)s->keeper);
    }
    if (k == KEPT_GONE)
        status = 1;
    if (signo)
        fprintf(stderr, "beneath: %s: stopping\n",
                signo == SIGINT ? "SIGINT" : "SIGTERM");
    if (k == KEPT_DRAIN)
        metrics_server_stop(s->msrv); /* the newer one answers */
    if (k == KEPT_DRAIN)
        s->msrv = NULL;
    drain(s->d, &s->boot->c, k == KEPT_GONE ? -1 : s->keeper_fd,
          k == KEPT_DRAIN, s->gen);
    return status;
}

static void server_close(struct server *s)
{
    metrics_server_stop(s->msrv);
    if (s->metrics_fd >= 0)
        close(s->metrics_fd);
    /* The front first: a handshake waiting for a certificate on demand
     * asks acme_serve's table until its thread is joined. */
    daemon_free(s->d);
    acme_serve_close(s->acme);
    if (s->sfd >= 0)
        close(s->sfd);
    if (s->keeper_fd >= 0)
        close(s->keeper_fd);
    listen_close(&s->ls);
    handed_clear(&s->files);
    for (size_t i = 0; i < s->n_early; i++)
        keeper_msg_release(&s->early[i]);
    free(s->early);
    /* No front runs any more: no handshake can use a certificate. */
    certs_close();
    keyless_disconnect();
    keyless_registry_free();
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

/* A listener the keeper hands over (fields: URL, "tls" or "plain"). */
static int take_listener(struct listeners *ls, const struct keeper_msg *m)
{
    const char *url = keeper_field(m, 0), *kind = keeper_field(m, 1);
    struct listener *v = realloc(ls->v, (ls->n + 1) * sizeof *v);

    if (!v)
        return -ENOMEM;
    ls->v = v;
    v[ls->n] = (struct listener){.fd = m->fd};
    v[ls->n].tls = kind && strcmp(kind, "tls") == 0;
    snprintf(v[ls->n].url, sizeof v[ls->n].url, "%s", url ? url : "?");
    ls->n++;
    return 0;
}

/* Keep an ACME record until the store exists (phase_acme). */
static int keep_early(struct server *s, struct keeper_msg *m)
{
    struct keeper_msg *v = realloc(s->early, (s->n_early + 1) * sizeof *v);

    if (!v)
        return -ENOMEM;
    s->early = v;
    s->early[s->n_early++] = *m;
    *m = (struct keeper_msg){.fd = -1};
    return 0;
}

/*
 * Phase 0 of a serving process: what the keeper hands over, until "go":
 * the files its configuration names (read through handed_open from then
 * on), the listening sockets, the ACME records in force. 0 or -1.
 */
static int phase_intake(struct server *s, const char *fd_text)
{
    int err = 0;

    s->keeper_fd = (int)strtol(fd_text, NULL, 10);
    s->keeper = getppid();
    unsetenv(SPAWN_ENV);
    (void)fcntl(s->keeper_fd, F_SETFD, FD_CLOEXEC);
    while (err == 0) {
        struct keeper_msg m;
        int r = keeper_recv(s->keeper_fd, &m);

        if (r <= 0) {
            err = r == 0 ? -EPIPE : r;
            break;
        }
        if (m.type == KEEPER_GO) {
            const char *filters = keeper_field(&m, 0);

            s->gen = m.val > 0 ? (unsigned)m.val : 1;
            sandbox_who_keeper(filters ? (int)strtol(filters, NULL, 10) : 0);
            keeper_msg_release(&m);
            break;
        }
        if (m.type == KEEPER_FILE) {
            err = handed_add(&s->files, m.data, m.fd >= 0 ? m.fd : m.val);
            m.fd = -1; /* the set owns it */
        } else if (m.type == KEEPER_LISTENER && m.fd >= 0) {
            err = take_listener(&s->ls, &m);
            m.fd = err ? m.fd : -1;
        } else if (m.type == KEEPER_KEY) {
            const char *pem = keeper_field(&m, 1), *why = keeper_field(&m, 2);
            err = keyless_register(m.data, pem && pem[0] ? pem : NULL, why);
        } else if (m.type == KEEPER_SIGNER && m.fd >= 0) {
            err = keyless_connect(m.fd);
            m.fd = err ? m.fd : -1;
        } else if (m.type == KEEPER_METRICS && m.fd >= 0) {
            snprintf(s->metrics_url, sizeof s->metrics_url, "%s",
                     keeper_field(&m, 0) ? keeper_field(&m, 0) : "");
            s->metrics_fd = m.fd;
            m.fd = -1;
        } else {
            err = keep_early(s, &m);
        }
        keeper_msg_release(&m);
    }
    if (err) {
        fprintf(stderr, "beneath: from the keeper: %s\n", strerror(-err));
        return -1;
    }
    handed_begin(&s->files);
    return 0;
}

/* The serving process: a new image the keeper started (spawn.h). */
static int serving_main(struct server *s, int argc, char *argv[],
                        const char *fd_text)
{
    int status = EXIT_CONF, err;

    if (phase_intake(s, fd_text) != 0)
        return 1;
    /* a later generation's start-up says it is a SIGHUP's */
    if (s->gen > 1)
        say_prefix_begin("SIGHUP: ");
    if (phase_conf(s, argc, argv, true) >= 0)
        return EXIT_CONF;
    err = phase_check(s);
    /* what the keeper handed over has been read: closed now */
    handed_end();
    if (err == -ENOMEM)
        fprintf(stderr, "beneath: out of memory\n");
    if (err)
        return status;
    status = 1;
    if (phase_lockdown(s) == 0 && phase_acme(s) == 0 &&
        sandbox_apply(&s->boot->c, &s->ls, s->keeper) == 0 &&
        phase_serve(s, &s->dc) == 0)
        status = phase_loop(s);
    return status;
}

int main(int argc, char *argv[])
{
    static struct server s; /* zero; the metrics are large */
    const char *serving = getenv(SPAWN_ENV);
    int status, err;

    s.sfd = -1;
    s.metrics_fd = -1;
    s.keeper_fd = -1;
    if (serving) {
        status = serving_main(&s, argc, argv, serving);
        server_close(&s);
        say_prefix_end();
        return status;
    }
    status = phase_conf(&s, argc, argv, false);
    if (status >= 0) {
        conf_free(&s.c);
        return status;
    }
    if (!s.c.check)
        return keeper_main(&s.c, argc, argv);
    /* --check: every check in this one process, nothing bound or created */
    status = EXIT_CONF;
    err = phase_check(&s);
    if (err == -ENOMEM)
        fprintf(stderr, "beneath: out of memory\n");
    if (err == 0) {
        conf_print(stdout, &s.c);
        status = 0;
    }
    server_close(&s);
    return status;
}
