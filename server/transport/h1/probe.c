/* SPDX-License-Identifier: MIT */
/*
 * probe.c - the --probe self-check: parse a URL, connect (TCP, TLS over TCP,
 * or a unix socket), send "GET PATH HTTP/1.1" with Connection: close, read
 * the status line, print one line and return the exit status.
 *
 * It runs instead of the server, before anything else, and in places with
 * nothing around it (a FROM scratch container: no resolver configuration, no
 * curl). So: numeric addresses only ("localhost" is 127.0.0.1), and one
 * deadline for the whole exchange, enforced twice: socket timeouts for each
 * call and an alarm that ends the process with status 1 if the peer trickles.
 */
#include "transport/h1/probe.h"

#include "common/mono.h"

#include <errno.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct target {
    bool tls;
    bool unix_socket;
    char host[256]; /* numeric, without brackets; the socket path for unix */
    char port[8];
    const char *path; /* "/..." inside the URL */
};

static char alarm_msg[512];
static size_t alarm_len;

static void on_alarm(int sig)
{
    ssize_t n = write(STDERR_FILENO, alarm_msg, alarm_len);

    (void)sig;
    (void)n;
    _exit(1);
}

/* Split @url into @t; on error a message in @err, returns -1. */
static int parse(const char *url, struct target *t, char *err, size_t errlen)
{
    const char *p, *host, *end;
    size_t host_len;

    memset(t, 0, sizeof *t);
    if (strncmp(url, "unix:", 5) == 0) {
        if (strlen(url + 5) == 0 || strlen(url + 5) >= sizeof t->host ||
            strlen(url + 5) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
            snprintf(err, errlen, "unix: needs a socket path");
            return -1;
        }
        t->unix_socket = true;
        snprintf(t->host, sizeof t->host, "%s", url + 5);
        t->path = "/";
        return 0;
    }
    if (strncmp(url, "http://", 7) == 0) {
        p = url + 7;
    } else if (strncmp(url, "https://", 8) == 0) {
        p = url + 8;
        t->tls = true;
    } else {
        snprintf(err, errlen,
                 "not an http://, https:// or unix: URL (as in "
                 "http://127.0.0.1:8080/healthz)");
        return -1;
    }
    if (*p == '[') {
        host = p + 1;
        end = strchr(host, ']');
        if (!end) {
            snprintf(err, errlen, "missing ']' after the IPv6 address");
            return -1;
        }
        host_len = (size_t)(end - host);
        end++;
    } else {
        host = p;
        end = p + strcspn(p, ":/");
        host_len = (size_t)(end - host);
    }
    if (host_len == 0 || host_len >= sizeof t->host) {
        snprintf(err, errlen, "missing host");
        return -1;
    }
    memcpy(t->host, host, host_len);
    t->host[host_len] = '\0';
    if (strcmp(t->host, "localhost") == 0)
        snprintf(t->host, sizeof t->host, "127.0.0.1");
    snprintf(t->port, sizeof t->port, "%s", t->tls ? "443" : "80");
    if (*end == ':') {
        size_t n = strcspn(end + 1, "/");

        if (n == 0 || n >= sizeof t->port ||
            strspn(end + 1, "0123456789") != n) {
            snprintf(err, errlen, "bad port");
            return -1;
        }
        memcpy(t->port, end + 1, n);
        t->port[n] = '\0';
        end += 1 + n;
    }
    if (*end != '\0' && *end != '/') {
        snprintf(err, errlen, "expected '/' after the host");
        return -1;
    }
    t->path = *end ? end : "/";
    for (const char *c = t->path; *c; c++) {
        if ((unsigned char)*c <= ' ' || *c == 0x7f) {
            snprintf(err, errlen, "space or control character in the path");
            return -1;
        }
    }
    return 0;
}

static int set_timeouts(int fd)
{
    struct timeval tv = {.tv_sec = PROBE_TIMEOUT};

    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0)
        return -1;
    return 0;
}

/* A connected socket, or -1 with a message in @err. */
static int connect_to(const struct target *t, char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    int fd, gai;

    if (t->unix_socket) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};

        memcpy(sa.sun_path, t->host, strlen(t->host) + 1);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || set_timeouts(fd) != 0 ||
            connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
            snprintf(err, errlen, "connect: %s", strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        return fd;
    }
    gai = getaddrinfo(t->host, t->port, &hints, &res);
    if (gai) {
        snprintf(err, errlen, "%s: %s", t->host,
                 gai == EAI_NONAME ? "not a numeric address (a probe does "
                                     "not look names up; localhost works)"
                                   : gai_strerror(gai));
        return -1;
    }
    fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || set_timeouts(fd) != 0 ||
        connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
        int e = errno;

        snprintf(err, errlen, "connect: %s",
                 e == EINPROGRESS ? "timed out" : strerror(e));
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

/* The status line's bytes, read until CRLF; 0, or -1 with a message. */
static int exchange(int fd, SSL *ssl, const char *req, char *line, size_t size,
                    char *err, size_t errlen)
{
    size_t len = strlen(req), done = 0, have = 0;

    while (done < len) {
        int n = ssl ? SSL_write(ssl, req + done, (int)(len - done))
                    : (int)send(fd, req + done, len - done, MSG_NOSIGNAL);
        if (n <= 0) {
            snprintf(err, errlen, "send: %s",
                     ssl ? "TLS write failed" : strerror(errno));
            return -1;
        }
        done += (size_t)n;
    }
    while (have + 1 < size) {
        int n = ssl ? SSL_read(ssl, line + have, (int)(size - 1 - have))
                    : (int)recv(fd, line + have, size - 1 - have, 0);
        if (n < 0 && !ssl && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(err, errlen, "%s",
                     n == 0 || ssl ? "connection closed before a status line"
                     : errno == EAGAIN ? "no answer in time"
                                       : strerror(errno));
            return -1;
        }
        have += (size_t)n;
        line[have] = '\0';
        if (strstr(line, "\r\n"))
            break;
    }
    line[strcspn(line, "\r\n")] = '\0';
    return 0;
}

int probe_run(const char *url)
{
    struct target t;
    char err[512] = "", line[256] = "", req[1024];
    SSL_CTX *ctx = NULL;
    SSL *ssl = NULL;
    int fd = -1, status = 0, ok = 0;
    int64_t start = mono_ms();

    alarm_len = (size_t)snprintf(alarm_msg, sizeof alarm_msg,
                                 "beneath: probe %.400s: no answer within "
                                 "%d s\n",
                                 url, PROBE_TIMEOUT);
    if (alarm_len >= sizeof alarm_msg)
        alarm_len = sizeof alarm_msg - 1;
    signal(SIGALRM, on_alarm);
    alarm(PROBE_TIMEOUT);

    if (parse(url, &t, err, sizeof err) != 0)
        goto out_print;
    fd = connect_to(&t, err, sizeof err);
    if (fd < 0)
        goto out_print;
    if (t.tls) {
        ctx = SSL_CTX_new(TLS_client_method());
        ssl = ctx ? SSL_new(ctx) : NULL;
        /* no SNI: the host is an address, which SNI may not carry */
        if (!ssl || !SSL_set_fd(ssl, fd) || SSL_connect(ssl) != 1) {
            unsigned long e = ERR_get_error();

            snprintf(err, sizeof err, "TLS handshake: %s",
                     e ? ERR_reason_error_string(e) : "failed");
            goto out_close;
        }
    }
    const char *host = t.unix_socket ? "localhost" : t.host;
    bool v6 = strchr(host, ':') != NULL;
    snprintf(req, sizeof req,
             "GET %s HTTP/1.1\r\nHost: %s%s%s\r\nUser-Agent: beneath-probe\r\n"
             "Connection: close\r\n\r\n",
             t.path, v6 ? "[" : "", host, v6 ? "]" : "");
    if (exchange(fd, ssl, req, line, sizeof line, err, sizeof err) != 0)
        goto out_close;
    /* "HTTP/1.x NNN ...": three digits, 100..599 */
    if (strncmp(line, "HTTP/1.", 7) != 0 ||
        (line[7] != '0' && line[7] != '1') || line[8] != ' ' ||
        strspn(line + 9, "0123456789") != 3 ||
        (line[12] != ' ' && line[12] != '\0') || line[9] < '1' ||
        line[9] > '5') {
        snprintf(err, sizeof err, "not an HTTP status line: '%.64s'", line);
        goto out_close;
    }
    status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
    ok = status >= 200 && status < 400;
out_close:
    if (ssl) {
        SSL_shutdown(ssl);
        SSL_free(ssl);
    }
    SSL_CTX_free(ctx);
    close(fd);
out_print:
    alarm(0);
    if (ok)
        printf("beneath: probe %s: %s (%lld ms)\n", url, line + 9,
               (long long)(mono_ms() - start));
    else if (status)
        fprintf(stderr, "beneath: probe %s: %s (%lld ms)\n", url, line + 9,
                (long long)(mono_ms() - start));
    else
        fprintf(stderr, "beneath: probe %s: %s\n", url, err);
    return ok ? 0 : 1;
}
