// SPDX-License-Identifier: MIT
/*
 * listen.c - bind listening sockets ourselves (not libmicrohttpd), so that
 * every address is bound before privileges are dropped and each failure is
 * reported with the address it concerns; or take them from the service
 * manager. --check binds nothing: listen_check looks at the addresses and the
 * kernel's table of listening sockets instead. A user other than root that
 * was given a capability to bind a privileged port (systemd's
 * AmbientCapabilities=CAP_NET_BIND_SERVICE) drops it once all is bound.
 */
#include "process/listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/capability.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

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

/* Whether a server accepts connections on the unix socket @sa. */
static bool socket_alive(const struct sockaddr_un *sa)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    bool alive;

    if (fd < 0)
        return false;
    /* EAGAIN: a full backlog, alive all the same. */
    alive = connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0 ||
            errno == EAGAIN || errno == EINPROGRESS;
    close(fd);
    return alive;
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
    /*
     * A stale socket from an earlier run is replaced, nothing else is: not
     * a file of another type, and not a socket that still accepts (another
     * server's, which would silently lose its address).
     */
    if (lstat(l->path, &st) == 0 && S_ISSOCK(st.st_mode)) {
        if (socket_alive(&sa)) {
            snprintf(err, errlen,
                     "another process is listening on this socket");
            return -1;
        }
        unlink(l->path);
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(fd, 1024) != 0 || lstat(l->path, &st) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    /* Unlinked at exit only while the path is still this socket. */
    out->unix_dev = st.st_dev;
    out->unix_ino = st.st_ino;
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
 * The number of sockets LISTEN_PID/LISTEN_FDS pass to this process: 0 when
 * they are absent or meant for another process, -1 after a message.
 */
static int activation_count(void)
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
    return (int)n;
}

/* Whether @fd is a listening socket; its URL into @buf. */
static bool is_listening(int fd, char *buf, size_t n)
{
    int acc = 0;
    socklen_t al = sizeof acc;

    return fcntl(fd, F_GETFL) >= 0 &&
           getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al) == 0 && acc &&
           socket_url(fd, buf, n) == 0;
}

/*
 * systemd-style socket activation: LISTEN_PID is our pid and LISTEN_FDS=N
 * sockets wait at fds 3..3+N-1. They replace the --listen addresses. The
 * variables are removed so nothing started later inherits them.
 * Returns N (0: not activated), or -1 after a message.
 */
static int activated(struct listener **out)
{
    int n = activation_count();

    if (n <= 0)
        return n;
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
        int fd = 3 + i;

        if (!is_listening(fd, ls[i].url, sizeof ls[i].url)) {
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
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        ls[i].fd = fd;
    }
    *out = ls;
    return n;
}

static void label(const struct conf_listen *l, char *buf, size_t n)
{
    if (l->kind == CONF_LISTEN_UNIX)
        snprintf(buf, n, "unix:%s", l->path);
    else
        snprintf(buf, n, "%s%s%s%s:%u", l->tls ? "https://" : "",
                 strchr(l->host, ':') ? "[" : "", l->host,
                 strchr(l->host, ':') ? "]" : "", l->port);
}

int listen_open(const struct conf *c, struct listeners *out)
{
    int act = activated(&out->v), errors = 0;

    if (act < 0)
        return 1;
    if (act > 0) {
        out->n = (size_t)act;
        out->activated = true;
        return 0;
    }
    out->v = calloc(c->n_listen ? c->n_listen : 1, sizeof *out->v);
    if (!out->v)
        return -ENOMEM;
    out->n = c->n_listen;
    for (size_t i = 0; i < c->n_listen; i++) {
        const struct conf_listen *l = &c->listen[i];
        char name[512], why[256];

        out->v[i].fd = -1;
        out->v[i].tls = l->tls;
        label(l, name, sizeof name);
        if ((l->kind == CONF_LISTEN_UNIX ? bind_unix : bind_tcp)(
                l, &out->v[i], why, sizeof why) != 0) {
            fprintf(stderr, "beneath: listen %s: %s\n", name, why);
            errors++;
        }
    }
    return errors;
}

void listen_close(struct listeners *ls)
{
    for (size_t i = 0; ls->v && i < ls->n; i++) {
        if (ls->v[i].fd >= 0)
            close(ls->v[i].fd);
        if (ls->v[i].unix_path) {
            struct stat st;
            if (lstat(ls->v[i].unix_path, &st) == 0 &&
                st.st_dev == ls->v[i].unix_dev &&
                st.st_ino == ls->v[i].unix_ino)
                unlink(ls->v[i].unix_path);
            free(ls->v[i].unix_path);
        }
    }
    free(ls->v);
    ls->v = NULL;
    ls->n = 0;
}

/*
 * Whether the kernel's table (/proc/net/tcp or tcp6, this network namespace)
 * has a listening socket on @sa's port at @sa's address or a wildcard one
 * (or any address, when @sa is the wildcard). Lines read
 * "sl local_address ... st ...": the address as hex words in host order,
 * ":PORT" in hex, and st 0A for LISTEN.
 */
/*
 * One line of /proc/net/tcp{,6}: "   0: 0100007F:1F90 00000000:0000 0A ...",
 * the local address (hex, @addr of 33 bytes), port and state. False for the
 * header line or anything else.
 */
static bool socket_line(const char *p, char *addr, unsigned *port,
                        unsigned *state)
{
    char *end;
    size_t n;

    p += strspn(p, " ");
    p += strspn(p, "0123456789");
    if (*p++ != ':')
        return false;
    p += strspn(p, " ");
    n = strspn(p, "0123456789ABCDEFabcdef");
    if (n == 0 || n > 32 || p[n] != ':')
        return false;
    memcpy(addr, p, n);
    addr[n] = '\0';
    *port = (unsigned)strtoul(p + n + 1, &end, 16);
    p = end + strspn(end, " ");
    p += strcspn(p, " "); /* the remote address */
    p += strspn(p, " ");
    *state = (unsigned)strtoul(p, &end, 16);
    return end != p;
}

static bool port_taken(const struct sockaddr *sa)
{
    bool v6 = sa->sa_family == AF_INET6, hit = false, want_any = true;
    const struct sockaddr_in *s4 = (const void *)sa;
    const struct sockaddr_in6 *s6 = (const void *)sa;
    unsigned port = ntohs(v6 ? s6->sin6_port : s4->sin_port);
    uint32_t want[4] = {0};
    size_t words = v6 ? 4 : 1;
    FILE *f = fopen(v6 ? "/proc/net/tcp6" : "/proc/net/tcp", "re");
    char line[512];

    if (!f)
        return false;
    memcpy(want,
           v6 ? (const void *)&s6->sin6_addr : (const void *)&s4->sin_addr,
           words * 4);
    for (size_t i = 0; i < words; i++)
        want_any = want_any && want[i] == 0;
    while (!hit && fgets(line, sizeof line, f)) {
        char addr[33];
        unsigned lport, st;
        bool any = true, same = true;

        if (!socket_line(line, addr, &lport, &st) || st != 0x0A ||
            lport != port || strlen(addr) != words * 8)
            continue;
        for (size_t i = 0; i < words; i++) {
            char word[9];
            uint32_t got;

            memcpy(word, addr + i * 8, 8);
            word[8] = '\0';
            got = (uint32_t)strtoul(word, NULL, 16);
            any = any && got == 0;
            same = same && got == want[i];
        }
        hit = same || any || want_any;
    }
    fclose(f);
    return hit;
}

/* One TCP address: resolvable, and is it free? Problems (0 or 1). */
static int check_tcp(const struct conf_listen *l, const char *name)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char port[16];
    bool taken = false;

    snprintf(port, sizeof port, "%u", l->port);
    int gai = getaddrinfo(l->host, port, &hints, &res);
    if (gai) {
        fprintf(stderr, "beneath: listen %s: %s\n", name, gai_strerror(gai));
        return 1;
    }
    for (struct addrinfo *ai = res; ai && l->port; ai = ai->ai_next)
        taken = taken || port_taken(ai->ai_addr);
    freeaddrinfo(res);
    if (taken)
        fprintf(stderr,
                "beneath: warning: listen %s: the address is in use now (by "
                "the server this configuration is for?); a new server could "
                "not bind it while that one runs\n",
                name);
    return 0;
}

/* One unix socket path: a socket may be replaced, nothing else is. */
static int check_unix(const struct conf_listen *l, const char *name)
{
    struct stat st;
    char *copy = strdup(l->path);

    if (!copy) {
        fprintf(stderr, "beneath: out of memory\n");
        return 1;
    }
    const char *dir = dirname(copy);
    int err = 0;
    if (lstat(l->path, &st) == 0 && !S_ISSOCK(st.st_mode))
        err = EEXIST;
    else if (access(dir, W_OK | X_OK) != 0)
        err = errno;
    if (err == EEXIST)
        fprintf(stderr, "beneath: listen %s: exists and is not a socket\n",
                name);
    else if (err)
        fprintf(stderr, "beneath: listen %s: directory %s: %s\n", name, dir,
                strerror(err));
    else if (lstat(l->path, &st) == 0)
        fprintf(stderr,
                "beneath: warning: listen %s: a socket exists there; a new "
                "server replaces it\n",
                name);
    free(copy);
    return err ? 1 : 0;
}

int listen_check(const struct conf *c)
{
    int errors = 0, n = activation_count();

    /* sockets from the service manager replace --listen: look, touch none */
    for (int i = 0; i < n; i++) {
        char url[INET6_ADDRSTRLEN + 128];

        if (!is_listening(3 + i, url, sizeof url)) {
            fprintf(stderr,
                    "beneath: LISTEN_FDS: fd %d is not a listening socket\n",
                    3 + i);
            errors++;
        }
    }
    if (n != 0)
        return n < 0 ? 1 : errors;

    for (size_t i = 0; i < c->n_listen; i++) {
        const struct conf_listen *l = &c->listen[i];
        char name[512];

        label(l, name, sizeof name);
        errors += l->kind == CONF_LISTEN_UNIX ? check_unix(l, name)
                                              : check_tcp(l, name);
    }
    return errors;
}

void listen_caps_drop(void)
{
    struct __user_cap_header_struct h = {.version =
                                             _LINUX_CAPABILITY_VERSION_3};
    struct __user_cap_data_struct d[2] = {{0}};

    /* root: --user's switch clears them, or the keeper keeps its own */
    if (geteuid() == 0 || syscall(SYS_capget, &h, d) != 0 ||
        (d[0].permitted | d[1].permitted | d[0].inheritable |
         d[1].inheritable) == 0)
        return;
    (void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    memset(d, 0, sizeof d);
    if (syscall(SYS_capset, &h, d) != 0)
        fprintf(stderr,
                "beneath: warning: the capabilities this process was given "
                "are kept: capset: %s (systemd: SystemCallFilter= must allow "
                "capset)\n",
                strerror(errno));
}
