/* SPDX-License-Identifier: MIT */
/*
 * agent_serve.c - the acme_agent's listeners on 127.0.0.1: HTTP-01 from
 * acme_http01_lookup, and a TLS port that, like the server's TLS front
 * will, reads the ClientHello's SNI and ALPN and presents the acme-tls/1
 * certificate (acme_tlsalpn01_lookup) or the installed one. One connection
 * at a time, each bounded by a 5 s socket timeout.
 */
#include "acme_agent.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/tls1.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

void served_clear(struct served *s)
{
    X509_free(s->leaf);
    sk_X509_pop_free(s->chain, X509_free);
    EVP_PKEY_free(s->key);
    *s = (struct served){0};
}

void agent_free(struct agent *ag)
{
    for (size_t i = 0; i < AGENT_MAX_CERTS; i++)
        served_clear(&ag->served[i]);
    if (ag->http_fd > 0)
        close(ag->http_fd);
    if (ag->tls_fd > 0)
        close(ag->tls_fd);
}

static int listen_on(int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)port)};
    int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0 ||
        bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 16) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int agent_listen(struct agent *ag)
{
    ag->http_fd = listen_on(ag->http_port);
    if (ag->http_fd < 0)
        return -1;
    ag->tls_fd = listen_on(ag->tls_port);
    return ag->tls_fd < 0 ? -1 : 0;
}

/* The next connection, or -1 when the agent stops. */
static int next_conn(struct agent *ag, int lfd)
{
    struct pollfd p[2] = {{.fd = lfd, .events = POLLIN},
                          {.fd = ag->stop_pipe[0], .events = POLLIN}};
    struct timeval tv = {.tv_sec = 5};

    for (;;) {
        int fd;

        if (poll(p, 2, -1) < 0 && errno != EINTR)
            return -1;
        if (p[1].revents)
            return -1;
        if (!(p[0].revents & POLLIN))
            continue;
        fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        return fd;
    }
}

static void http_answer(struct agent *ag, int fd)
{
    char req[2048], body[ACME_KEYAUTH_MAX], resp[512];
    const char *prefix = "GET " ACME_HTTP01_PREFIX;
    size_t got = 0;
    int len = -1;

    while (got + 1 < sizeof req) {
        ssize_t n = read(fd, req + got, sizeof req - 1 - got);

        if (n <= 0)
            return;
        got += (size_t)n;
        req[got] = '\0';
        if (strstr(req, "\r\n\r\n"))
            break;
    }
    if (strncmp(req, prefix, strlen(prefix)) == 0) {
        char *token = req + strlen(prefix), *end = strchr(token, ' ');

        if (end) {
            *end = '\0';
            len = acme_http01_lookup(ag->challenges, token, body, sizeof body);
        }
    }
    if (len >= 0 && ag->sabotage)
        body[0] = body[0] == 'x' ? 'y' : 'x';
    if (len >= 0)
        snprintf(resp, sizeof resp,
                 "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                 "Content-Length: %d\r\nConnection: close\r\n\r\n%s",
                 len, body);
    else
        snprintf(resp, sizeof resp,
                 "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
                 "Connection: close\r\n\r\n");
    if (write(fd, resp, strlen(resp)) < 0)
        return;
}

void *agent_http(void *arg)
{
    struct agent *ag = arg;
    int fd;

    while ((fd = next_conn(ag, ag->http_fd)) >= 0) {
        http_answer(ag, fd);
        close(fd);
    }
    return NULL;
}

/* ---- TLS: the certificate chosen from the ClientHello ---- */

/* The SNI host name of the ClientHello, or "". */
static void hello_sni(SSL *ssl, char *name, size_t size)
{
    const unsigned char *p;
    size_t len, n;

    name[0] = '\0';
    if (!SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_server_name, &p, &len) ||
        len < 5 || p[2] != TLSEXT_NAMETYPE_host_name)
        return;
    n = (size_t)p[3] << 8 | p[4];
    if (n + 5 > len || n >= size)
        return;
    memcpy(name, p + 5, n);
    name[n] = '\0';
}

/* Whether the ClientHello offers ALPN acme-tls/1. */
static bool hello_acme(SSL *ssl)
{
    static const char proto[] = ACME_TLSALPN01_PROTOCOL;
    const unsigned char *p;
    size_t len, i;

    if (!SSL_client_hello_get0_ext(
            ssl, TLSEXT_TYPE_application_layer_protocol_negotiation, &p,
            &len) ||
        len < 2)
        return false;
    for (i = 2; i < len; i += 1 + (size_t)p[i]) {
        if (p[i] == sizeof proto - 1 && i + 1 + p[i] <= len &&
            memcmp(p + i + 1, proto, sizeof proto - 1) == 0)
            return true;
    }
    return false;
}

static int on_hello(SSL *ssl, int *alert, void *arg)
{
    struct agent *ag = arg;
    char name[256];
    X509 *x = NULL;
    EVP_PKEY *k = NULL;
    int ok = 0;

    hello_sni(ssl, name, sizeof name);
    if (hello_acme(ssl)) {
        if (ag->sabotage ||
            acme_tlsalpn01_lookup(ag->challenges, name, &x, &k) < 0)
            goto refuse;
        ok = SSL_use_cert_and_key(ssl, x, k, NULL, 1);
        X509_free(x);
        EVP_PKEY_free(k);
        return ok == 1 ? SSL_CLIENT_HELLO_SUCCESS : SSL_CLIENT_HELLO_ERROR;
    }
    pthread_mutex_lock(&ag->mu);
    for (size_t i = 0; i < AGENT_MAX_CERTS && !ok; i++) {
        struct served *s = &ag->served[i];

        for (size_t j = 0; j < s->n_names && !ok && s->leaf; j++) {
            if (strcasecmp(s->names[j], name) == 0)
                ok = SSL_use_cert_and_key(ssl, s->leaf, s->key, s->chain, 1);
        }
    }
    pthread_mutex_unlock(&ag->mu);
    if (ok == 1)
        return SSL_CLIENT_HELLO_SUCCESS;
refuse:
    *alert = SSL_AD_UNRECOGNIZED_NAME;
    return SSL_CLIENT_HELLO_ERROR;
}

static int on_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                   const unsigned char *in, unsigned inlen, void *arg)
{
    static const unsigned char acme[] = "\x0a" ACME_TLSALPN01_PROTOCOL;
    unsigned char *sel;

    (void)ssl;
    (void)arg;
    if (SSL_select_next_proto(&sel, outlen, acme, sizeof acme - 1, in, inlen) !=
        OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK;
    *out = sel;
    return SSL_TLSEXT_ERR_OK;
}

void *agent_tls(void *arg)
{
    static const char hello[] = "HTTP/1.0 200 OK\r\nContent-Length: 6\r\n\r\n"
                                "hello\n";
    struct agent *ag = arg;
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    int fd;

    if (ctx == NULL)
        return NULL;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_client_hello_cb(ctx, on_hello, ag);
    SSL_CTX_set_alpn_select_cb(ctx, on_alpn, ag);
    while ((fd = next_conn(ag, ag->tls_fd)) >= 0) {
        SSL *ssl = SSL_new(ctx);
        const unsigned char *alpn;
        unsigned alen = 0;

        if (ssl && SSL_set_fd(ssl, fd) == 1 && SSL_accept(ssl) == 1) {
            SSL_get0_alpn_selected(ssl, &alpn, &alen);
            /* RFC 8737 3: acme-tls/1 ends after the handshake */
            if (alen == 0 && SSL_write(ssl, hello, sizeof hello - 1) > 0)
                SSL_shutdown(ssl);
        }
        ERR_clear_error();
        SSL_free(ssl);
        close(fd);
    }
    SSL_CTX_free(ctx);
    return NULL;
}
