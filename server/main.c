// SPDX-License-Identifier: MIT
/*
 * main.c - beneath's start-up, privilege drop and signal loop.
 *
 * Phases: conf_load (every message, exit 2) -> checks that need the OS, all
 * errors collected (root, backend, listeners bound, user, log; exit 2) ->
 * --check prints the configuration -> drop privileges -> start the daemons
 * -> start-up lines on stderr -> signals: SIGHUP reloads the root and the
 * log, SIGTERM/SIGINT drain requests in flight (bounded) and exit 0.
 * Signals are blocked in every thread and read from a signalfd here.
 */
#include "conf.h"
#include "http.h"
#include "log.h"
#include "resolver.h"
#include "root.h"

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
    snprintf(out->url, sizeof out->url, "http://%s%s%s:%s",
             ss.ss_family == AF_INET6 ? "[" : "", host,
             ss.ss_family == AF_INET6 ? "]" : "", port);
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

static int64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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
}

/*
 * The start-up lines: one per listener, then the root, the backend that
 * serves and why, and the confinement flags. All in one write(2), so whoever
 * waits for "listening on" sees the whole block at once.
 */
static void print_startup(const struct conf *c, const struct listener *ls,
                          const char *backend)
{
    char *buf = NULL, real[PATH_MAX], flags[256];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bool same = !realpath(c->root, real) || strcmp(real, c->root) == 0;

    if (!f)
        return;
    resolver_flags_format(c->confine, flags, sizeof flags);
    for (size_t i = 0; i < c->n_listen; i++)
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
    int status = EXIT_CONF, errors = 0, sfd = -1, err;
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
    err = root_open(c.root, &root);
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
    ls = calloc(c.n_listen ? c.n_listen : 1, sizeof *ls);
    if (!ls) {
        fprintf(stderr, "beneath: out of memory\n");
        goto out_close;
    }
    for (size_t i = 0; i < c.n_listen; i++) {
        const struct conf_listen *l = &c.listen[i];
        char label[512], why[256];
        ls[i].fd = -1;
        listener_label(l, label, sizeof label);
        if (l->tls) {
            fprintf(stderr, "beneath: listen %s: https is not supported yet\n",
                    label);
            errors++;
            continue;
        }
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
            },
        .threads = c.threads,
        .max_connections = c.max_connections,
        .max_connections_per_ip = c.max_connections_per_ip,
        .timeout = c.timeout,
        .header_timeout = c.header_timeout,
        .max_header_size = c.max_header_size,
    };
    int *fds = calloc(c.n_listen ? c.n_listen : 1, sizeof *fds);
    if (!fds) {
        fprintf(stderr, "beneath: out of memory\n");
        goto out_close;
    }
    for (size_t i = 0; i < c.n_listen; i++) {
        fds[i] = ls[i].fd;
        ls[i].fd = -1; /* http_start owns them now */
    }
    err = http_start(&hc, root, log, fds, c.n_listen, &h);
    free(fds);
    if (err)
        goto out_close;

    print_startup(&c, ls, line);
    http_started();

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
            reload(root, log, &c);
            continue;
        }
        fprintf(stderr, "beneath: %s: stopping\n",
                si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
        drain(h, sfd, c.shutdown_timeout);
        status = 0;
        break;
    }
    http_stop(h);

out_close:
    if (sfd >= 0)
        close(sfd);
    for (size_t i = 0; ls && i < c.n_listen; i++) {
        if (ls[i].fd >= 0)
            close(ls[i].fd);
        if (ls[i].unix_path) {
            unlink(ls[i].unix_path);
            free(ls[i].unix_path);
        }
    }
    free(ls);
    log_close(log);
    root_close(root);
out_conf:
    conf_free(&c);
    return status;
}
