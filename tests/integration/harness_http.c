/* SPDX-License-Identifier: MIT */
/*
 * harness_http.c - responses and the two clients of the e2e tests: a
 * raw-socket client that sends exact bytes and reads one response within a
 * bound (Content-Length, chunked, or to EOF), and libcurl for ordinary
 * requests. Every response received is scanned for the forbidden strings.
 */
#include "harness_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* --- responses ---------------------------------------------------------- */

bool http_value_eq(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return false;
    for (;;) {
        while (*a == ' ' || *a == '\t')
            a++;
        while (*b == ' ' || *b == '\t')
            b++;
        if (*a == '\0' || *b == '\0')
            return *a == *b;
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;
        if (x != y)
            return false;
        a++;
        b++;
    }
}

const char *http_header(const struct http_response *r, const char *name)
{
    for (size_t i = 0; i < r->n_headers; i++)
        if (strcasecmp(r->headers[i].name, name) == 0)
            return r->headers[i].value;
    return NULL;
}

size_t http_header_count(const struct http_response *r, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_headers; i++)
        if (strcasecmp(r->headers[i].name, name) == 0)
            n++;
    return n;
}

/* Parse status line and headers from r->head (already NUL-terminated). */
static bool parse_head(struct http_response *r)
{
    char *p = r->head;
    if (strncmp(p, "HTTP/1.", 7) != 0 || strlen(p) < 12 || p[8] != ' ')
        return false;
    r->status = (int)strtol(p + 9, NULL, 10);
    char *eol = strstr(p, "\r\n");
    if (eol == NULL)
        return false;
    p = eol + 2;
    size_t cap = 8;
    r->headers = harness_alloc(cap * sizeof(*r->headers));
    while (*p && strncmp(p, "\r\n", 2) != 0) {
        eol = strstr(p, "\r\n");
        if (eol == NULL)
            return false;
        char *colon = memchr(p, ':', (size_t)(eol - p));
        if (colon == NULL)
            return false;
        char *v = colon + 1;
        while (v < eol && (*v == ' ' || *v == '\t'))
            v++;
        char *ve = eol;
        while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
            ve--;
        if (r->n_headers == cap) {
            /* arena blocks are never realloc'd: copy into a bigger one */
            struct http_header *n = harness_alloc(cap * 2 * sizeof(*n));
            memcpy(n, r->headers, cap * sizeof(*n));
            r->headers = n;
            cap *= 2;
        }
        r->headers[r->n_headers].name = hmem(p, (size_t)(colon - p));
        r->headers[r->n_headers].value = hmem(v, (size_t)(ve - v));
        r->n_headers++;
        p = eol + 2;
    }
    return true;
}

static bool header_has_token(const struct http_response *r, const char *name,
                             const char *token)
{
    for (size_t i = 0; i < r->n_headers; i++)
        if (strcasecmp(r->headers[i].name, name) == 0 &&
            strcasestr(r->headers[i].value, token) != NULL)
            return true;
    return false;
}

/* --- raw-socket client -------------------------------------------------- */

struct raw_conn *raw_connect_from(const char *src, const char *host,
                                  unsigned port)
{
    const struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
                                   .ai_socktype = SOCK_STREAM};
    struct addrinfo *ai, *from = NULL;
    char service[16];

    snprintf(service, sizeof(service), "%u", port);
    if (getaddrinfo(host, service, &hints, &ai) != 0)
        return NULL;
    if (src && getaddrinfo(src, "0", &hints, &from) != 0) {
        freeaddrinfo(ai);
        return NULL;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int err = fd < 0 ? errno : 0;
    if (fd >= 0 && ((from && bind(fd, from->ai_addr, from->ai_addrlen) != 0) ||
                    connect(fd, ai->ai_addr, ai->ai_addrlen) != 0)) {
        err = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    if (from)
        freeaddrinfo(from);
    if (fd < 0) {
        errno = err;
        return NULL;
    }
    struct raw_conn *c = calloc(1, sizeof(*c));
    if (c == NULL)
        harness_die_oom();
    c->fd = fd;
    harness_add_conn(c);
    return c;
}

struct raw_conn *raw_connect_host(const char *host, unsigned port)
{
    return raw_connect_from(NULL, host, port);
}

struct raw_conn *raw_connect(unsigned port)
{
    return raw_connect_host("127.0.0.1", port);
}

int raw_send(struct raw_conn *c, const void *data, size_t len)
{
    const char *d = data;
    long long deadline = now_ms() + 10000;
    while (len > 0) {
        ssize_t n = send(c->fd, d, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            d += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return -errno;
        long long left = deadline - now_ms();
        if (left <= 0)
            return -ETIMEDOUT;
        struct pollfd pf = {.fd = c->fd, .events = POLLOUT};
        poll(&pf, 1, (int)left);
    }
    return 0;
}

int raw_send_str(struct raw_conn *c, const char *s)
{
    return raw_send(c, s, strlen(s));
}

/* Read more bytes into c->buf until @deadline. Returns >0, 0 (EOF), -errno. */
static ssize_t fill(struct raw_conn *c, long long deadline)
{
    if (c->eof)
        return 0;
    if (c->cap - c->len < 65536) {
        size_t ncap = c->cap ? c->cap * 2 : (size_t)65536 * 2;
        char *nb = realloc(c->buf, ncap);
        if (nb == NULL)
            harness_die_oom();
        c->buf = nb;
        c->cap = ncap;
    }
    for (;;) {
        long long left = deadline - now_ms();
        if (left < 0)
            left = 0;
        struct pollfd pf = {.fd = c->fd, .events = POLLIN};
        int pr = poll(&pf, 1, (int)left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            return -ETIMEDOUT;
        ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len - 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0) {
            c->eof = true;
            return 0;
        }
        c->len += (size_t)n;
        c->buf[c->len] = '\0';
        return n;
    }
}

static void consume(struct raw_conn *c, size_t n)
{
    memmove(c->buf, c->buf + n, c->len - n);
    c->len -= n;
}

/* Wait until c->buf holds @n bytes; false on EOF/error (r->error set). */
static bool need(struct raw_conn *c, size_t n, long long deadline,
                 struct http_response *r)
{
    while (c->len < n) {
        ssize_t got = fill(c, deadline);
        if (got <= 0) {
            r->error = got == 0 ? EPIPE : (int)-got;
            return false;
        }
    }
    return true;
}

static ssize_t find_crlf(const struct raw_conn *c, size_t from)
{
    for (size_t i = from; i + 1 < c->len; i++)
        if (c->buf[i] == '\r' && c->buf[i + 1] == '\n')
            return (ssize_t)i;
    return -1;
}

static bool read_chunked(struct raw_conn *c, long long deadline,
                         struct http_response *r)
{
    size_t cap = 4096, n = 0;
    char *body = malloc(cap);
    if (body == NULL)
        harness_die_oom();
    for (;;) {
        ssize_t eol;
        while ((eol = find_crlf(c, 0)) < 0) {
            ssize_t got = fill(c, deadline);
            if (got <= 0) {
                r->error = got == 0 ? EPIPE : (int)-got;
                goto out_fail;
            }
        }
        char *end;
        unsigned long sz = strtoul(c->buf, &end, 16);
        if (end == c->buf) {
            r->error = EPROTO;
            goto out_fail;
        }
        consume(c, (size_t)eol + 2);
        if (sz == 0) {
            /* trailers until an empty line */
            for (;;) {
                while ((eol = find_crlf(c, 0)) < 0) {
                    ssize_t got = fill(c, deadline);
                    if (got <= 0) {
                        r->error = got == 0 ? EPIPE : (int)-got;
                        goto out_fail;
                    }
                }
                consume(c, (size_t)eol + 2);
                if (eol == 0)
                    break;
            }
            break;
        }
        if (!need(c, sz + 2, deadline, r))
            goto out_fail;
        if (n + sz + 1 > cap) {
            while (n + sz + 1 > cap)
                cap *= 2;
            char *nb = realloc(body, cap);
            if (nb == NULL)
                harness_die_oom();
            body = nb;
        }
        memcpy(body + n, c->buf, sz);
        n += sz;
        consume(c, sz + 2);
    }
    r->body = hmem(body, n);
    r->body_len = n;
    free(body);
    return true;
out_fail:
    r->body = hmem(body, n);
    r->body_len = n;
    free(body);
    return false;
}

struct http_response *raw_read(struct raw_conn *c, bool head_req, int ms)
{
    struct http_response *r = harness_alloc(sizeof(*r));
    long long deadline = now_ms() + ms;
    char *hend;

    r->head = hfmt("%s", "");
    r->body = hfmt("%s", "");
    for (;;) {
        hend = c->len ? memmem(c->buf, c->len, "\r\n\r\n", 4) : NULL;
        if (hend)
            break;
        ssize_t got = fill(c, deadline);
        if (got <= 0) {
            r->error = got == 0 ? (c->len ? EPROTO : ECONNRESET) : (int)-got;
            r->closed = got == 0;
            if (c->len) {
                r->head = hmem(c->buf, c->len);
                r->head_len = c->len;
            }
            harness_check_forbidden(r);
            return r;
        }
    }
    size_t hl = (size_t)(hend - c->buf) + 4;
    r->head = hmem(c->buf, hl);
    r->head_len = hl;
    consume(c, hl);
    if (!parse_head(r)) {
        r->error = EPROTO;
        harness_check_forbidden(r);
        return r;
    }
    bool bodyless = head_req || r->status == 204 || r->status == 304 ||
                    (r->status >= 100 && r->status < 200);
    const char *cl = http_header(r, "Content-Length");
    if (bodyless) {
        /* nothing */
    } else if (header_has_token(r, "Transfer-Encoding", "chunked")) {
        read_chunked(c, deadline, r);
    } else if (cl) {
        size_t want = (size_t)strtoull(cl, NULL, 10);
        bool ok = need(c, want, deadline, r);
        size_t have = ok ? want : c->len;
        r->body = hmem(c->buf, have);
        r->body_len = have;
        consume(c, have);
    } else {
        while (fill(c, deadline) > 0)
            ;
        r->body = hmem(c->buf, c->len);
        r->body_len = c->len;
        consume(c, c->len);
        r->closed = true;
    }
    if (header_has_token(r, "Connection", "close"))
        r->closed = true;
    harness_check_forbidden(r);
    return r;
}

bool raw_wait_closed(struct raw_conn *c, int ms)
{
    long long deadline = now_ms() + ms;
    for (;;) {
        c->len = 0; /* discard anything sent meanwhile */
        ssize_t got = fill(c, deadline);
        if (got == 0 || got == -ECONNRESET || got == -EPIPE)
            return true;
        if (got == -ETIMEDOUT)
            return false;
        if (got < 0)
            return true;
    }
}

void raw_close(struct raw_conn *c)
{
    if (c == NULL)
        return;
    harness_drop_conn(c);
    if (c->fd >= 0)
        close(c->fd);
    free(c->buf);
    free(c);
}

struct raw_conn *raw_open(unsigned port)
{
    struct raw_conn *c = raw_connect(port);
    EXPECT(c != NULL, "connect 127.0.0.1:%u: %s", port, strerror(errno));
    return c;
}

struct raw_conn *raw_held(const struct server *s)
{
    struct raw_conn *c = raw_open(s->port);
    raw_send_str(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    struct http_response *r = raw_read(c, false, 5000);
    EXPECT_STATUS(r, 200, "a held connection's first request");
    EXPECT(!r->closed, "the held connection was closed (no keep-alive)");
    return c;
}

struct http_response *raw_request(unsigned port, const char *req, int ms)
{
    struct raw_conn *c = raw_open(port);
    int rc = raw_send_str(c, req);
    EXPECT(rc == 0, "send: %s", strerror(-rc));
    bool head = strncmp(req, "HEAD ", 5) == 0;
    struct http_response *r = raw_read(c, head, ms);
    raw_close(c);
    return r;
}

struct http_response *raw_get(unsigned port, const char *target)
{
    return raw_request(
        port, hfmt("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", target),
        10000);
}

struct http_response *raw_get_host(const struct server *s, const char *target,
                                   const char *host)
{
    return raw_request(
        s->port,
        host ? hfmt("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
                    target, host)
             : hfmt("GET %s HTTP/1.0\r\n\r\n", target),
        10000);
}

struct http_response *expect_get(const struct server *s, const char *target,
                                 int status, const char *what)
{
    struct http_response *r = raw_get(s->port, target);
    EXPECT_STATUS(r, status, what ? what : hfmt("GET %s", target));
    return r;
}

struct http_response *expect_get_body(const struct server *s,
                                      const char *target, const char *body,
                                      const char *what)
{
    struct http_response *r = raw_get(s->port, target);
    EXPECT_BODY(r, body, what ? what : hfmt("GET %s", target));
    return r;
}

/* --- libcurl client ----------------------------------------------------- */

size_t http_write(char *data, size_t size, size_t nmemb, void *ud)
{
    struct http_buf *b = ud;
    size_t len = size * nmemb;
    if (b->n + len + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 4096;
        while (b->n + len + 1 > ncap)
            ncap *= 2;
        char *np = realloc(b->p, ncap);
        if (np == NULL)
            return 0;
        b->p = np;
        b->cap = ncap;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
    b->p[b->n] = '\0';
    return len;
}

/* curl reports every header block; keep only the last (final) one. */
static size_t head_cb(char *data, size_t size, size_t nmemb, void *ud)
{
    struct http_buf *b = ud;
    size_t len = size * nmemb;
    if (len >= 5 && strncmp(data, "HTTP/", 5) == 0)
        b->n = 0;
    return http_write(data, size, nmemb, ud);
}

CURL *http_easy(void)
{
    CURL *e = curl_easy_init();
    ck_assert_msg(e != NULL, "curl_easy_init");
    harness_add_easy(e);
    return e;
}

struct http_response *http_do(CURL *easy, const struct server *s,
                              const char *method, const char *path,
                              const char **headers)
{
    struct http_response *r = harness_alloc(sizeof(*r));
    struct http_buf hb = {0}, bb = {0};
    struct curl_slist *hl = NULL;
    CURL *e = easy ? easy : curl_easy_init();

    ck_assert_msg(e != NULL, "curl_easy_init");

    for (const char **h = headers; h && *h; h++) {
        struct curl_slist *n = curl_slist_append(hl, *h);
        if (n == NULL)
            harness_die_oom();
        hl = n;
    }
    curl_easy_setopt(e, CURLOPT_URL, server_url(s, 0, path));
    curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 15000L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, head_cb);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &hb);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, http_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &bb);
    if (strcmp(method, "HEAD") == 0) {
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, NULL);
    } else {
        curl_easy_setopt(e, CURLOPT_NOBODY, 0L);
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST,
                         strcmp(method, "GET") == 0 ? NULL : method);
    }
    CURLcode rc = curl_easy_perform(e);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(hl);

    r->head = hmem(hb.p, hb.n);
    r->head_len = hb.n;
    r->body = hmem(bb.p, bb.n);
    r->body_len = bb.n;
    free(hb.p);
    free(bb.p);
    if (rc != CURLE_OK) {
        fprintf(stderr, "harness: curl %s %s: %s\n", method, path,
                curl_easy_strerror(rc));
        r->error = rc == CURLE_OPERATION_TIMEDOUT ? ETIMEDOUT : EIO;
    }
    if (r->head_len && !parse_head(r) && r->error == 0)
        r->error = EPROTO;
    curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &r->num_connects);
    if (easy == NULL)
        curl_easy_cleanup(e); /* a fresh handle closes its connection */
    if (header_has_token(r, "Connection", "close"))
        r->closed = true;
    harness_check_forbidden(r);
    return r;
}

struct http_response *http_get(const struct server *s, const char *path)
{
    return http_do(NULL, s, "GET", path, NULL);
}
