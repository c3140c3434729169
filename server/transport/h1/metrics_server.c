// SPDX-License-Identifier: MIT
/*
 * metrics_server.c - the metrics' own listener: a libmicrohttpd daemon with
 * one internal thread and a handful of connections, answering GET and HEAD
 * of /metrics with metrics_render_alloc, 404 to any other path and 405 to
 * any other method. It shares nothing with the site's daemons but the
 * counters, which it only reads, and the address rules, which it obeys (a
 * --deny is a deny on every listener of the process).
 */
#include "transport/h1/metrics_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Scrapers are few: more connections than this are closed at accept. */
#define METRICS_SERVER_CONNECTIONS 16

struct metrics_server {
    struct MHD_Daemon *d;
    int fd;
};

int metrics_server_bind(const char *addr, char *url, size_t size)
{
    struct sockaddr_storage ss = {0};
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    const char *colon = strrchr(addr, ':');
    char host[64], shown[INET6_ADDRSTRLEN];
    size_t n = colon ? (size_t)(colon - addr) : 0;
    socklen_t len;
    int fd, one = 1;

    if (!colon || n < 1 || n >= sizeof host)
        return -EINVAL;
    unsigned port = (unsigned)strtoul(colon + 1, NULL, 10);
    if (addr[0] == '[' && n >= 3 && addr[n - 1] == ']') {
        memcpy(host, addr + 1, n - 2);
        host[n - 2] = '\0';
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        if (inet_pton(AF_INET6, host, &v6->sin6_addr) != 1)
            return -EINVAL;
        len = sizeof *v6;
    } else {
        memcpy(host, addr, n);
        host[n] = '\0';
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        if (inet_pton(AF_INET, host, &v4->sin_addr) != 1)
            return -EINVAL;
        len = sizeof *v4;
    }
    fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ss.ss_family == AF_INET6)
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    if (ss.ss_family == AF_INET6) {
        inet_ntop(AF_INET6, &v6->sin6_addr, shown, sizeof shown);
        snprintf(url, size, "http://[%s]:%u/metrics", shown,
                 ntohs(v6->sin6_port));
    } else {
        inet_ntop(AF_INET, &v4->sin_addr, shown, sizeof shown);
        snprintf(url, size, "http://%s:%u/metrics", shown, ntohs(v4->sin_port));
    }
    return fd;
}

/* --allow/--deny at accept, as on the site's listeners. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *sa,
                                     socklen_t len)
{
    return access_accept_direct(cls, sa, len) ? MHD_YES : MHD_NO;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status,
                              char *text, size_t len, bool owned)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        len, text, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret;

    if (!resp) {
        if (owned)
            free(text);
        return MHD_NO;
    }
    MHD_add_response_header(resp, "Content-Type",
                            status == 200
                                ? "text/plain; version=0.0.4; charset=utf-8"
                                : "text/plain; charset=utf-8");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    if (status == 405)
        MHD_add_response_header(resp, "Allow", "GET, HEAD");
    ret = MHD_queue_response(c, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
                               const char *url, const char *method,
                               const char *version, const char *upload_data,
                               size_t *upload_data_size, void **con_cls)
{
    const struct metrics *m = cls;
    static int started;

    (void)version;
    (void)upload_data;
    /* first call: headers only (queuing now would close the connection) */
    if (!*con_cls) {
        *con_cls = &started;
        return MHD_YES;
    }
    if (*upload_data_size) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return answer(c, 405, (char *)(uintptr_t) "GET or HEAD\n", 12, false);
    if (strcmp(url, "/metrics") != 0)
        return answer(c, 404,
                      (char *)(uintptr_t) "not found: the metrics are at "
                                          "/metrics\n",
                      39, false);
    size_t len;
    char *text = metrics_render_alloc(m, &len);
    if (!text)
        return answer(c, 500, (char *)(uintptr_t) "out of memory\n", 14, false);
    return answer(c, 200, text, len, true);
}

int metrics_server_start(int fd, const struct metrics *m, struct access *a,
                         struct metrics_server **out)
{
    struct metrics_server *s = calloc(1, sizeof *s);

    if (!s) {
        close(fd);
        return -ENOMEM;
    }
    s->fd = fd;
    s->d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC, 0,
        accept_policy, a, handler, (void *)(uintptr_t)m,
        MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)METRICS_SERVER_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
        10u, MHD_OPTION_END);
    if (!s->d) {
        close(fd);
        free(s);
        return -EIO;
    }
    *out = s;
    return 0;
}

void metrics_server_stop(struct metrics_server *s)
{
    if (!s)
        return;
    MHD_stop_daemon(s->d); /* closes the listening fd too */
    free(s);
}
