// SPDX-License-Identifier: MIT
/*
 * tls.c - certificate material for GnuTLS through libmicrohttpd's certificate
 * callback, swapped atomically on reload; TLS bodies in large blocks.
 *
 * Every generation of credentials stays allocated until tls_free: a
 * handshake that fetched a pointer may still be using it, and a session keeps
 * a reference to its certificate. A reload costs a few KiB that are returned
 * at exit; nothing is freed under a running session.
 */
#include "transport/tls_gnutls.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct creds {
    gnutls_pcert_st *pcerts;
    unsigned int n;
    gnutls_privkey_t key;
    struct creds *older; /* every earlier generation, for tls_free */
};

static _Atomic(struct creds *) current;
/* The session ticket master key (tls_tickets_init), or none. */
static gnutls_datum_t ticket_key;
/* Serialises tls_load (start-up and SIGHUP run on one thread, but say so). */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static void creds_free(struct creds *c)
{
    if (c == NULL)
        return;
    for (unsigned int i = 0; i < c->n; i++)
        gnutls_pcert_deinit(&c->pcerts[i]);
    free(c->pcerts);
    if (c->key != NULL)
        gnutls_privkey_deinit(c->key);
    free(c);
}

/* import - the PEM text of @m as GnuTLS credentials. */
static int import(const struct tls_material *m, struct creds **out,
                  struct tls_material_diag *diag)
{
    gnutls_datum_t cert = {.data = (unsigned char *)m->cert_pem,
                           .size = (unsigned int)m->cert_len};
    gnutls_datum_t key = {.data = (unsigned char *)m->key_pem,
                          .size = (unsigned int)m->key_len};
    struct creds *c = calloc(1, sizeof(*c));
    unsigned int n = (unsigned int)m->n_certs;
    int rc;

    *out = NULL;
    if (c == NULL)
        return -ENOMEM;
    c->pcerts = calloc(n, sizeof(*c->pcerts));
    if (c->pcerts == NULL) {
        free(c);
        return -ENOMEM;
    }
    rc = gnutls_pcert_list_import_x509_raw(c->pcerts, &n, &cert,
                                           GNUTLS_X509_FMT_PEM, 0);
    if (rc < 0) {
        snprintf(diag->error, sizeof(diag->error),
                 "GnuTLS cannot use the certificate chain: %s",
                 gnutls_strerror(rc));
        free(c->pcerts);
        free(c);
        return -EINVAL;
    }
    c->n = n;
    rc = gnutls_privkey_init(&c->key);
    if (rc >= 0)
        rc = gnutls_privkey_import_x509_raw(c->key, &key, GNUTLS_X509_FMT_PEM,
                                            NULL, 0);
    if (rc < 0) {
        snprintf(diag->error, sizeof(diag->error),
                 "GnuTLS cannot use the private key: %s", gnutls_strerror(rc));
        creds_free(c);
        return -EINVAL;
    }
    *out = c;
    return 0;
}

int tls_load(const struct tls_source *src, struct tls_material_diag *diag,
             char fingerprint[TLS_MATERIAL_FINGERPRINT_LEN])
{
    struct tls_material m;
    struct creds *c = NULL;
    int rc;

    if (src->self_signed)
        rc = tls_material_self_signed(&m, time(NULL),
                                      TLS_MATERIAL_SELF_SIGNED_DAYS, diag);
    else
        rc = tls_material_load(&m, src->cert, src->key, src->password_file,
                               time(NULL), diag);
    if (rc < 0)
        return rc;
    rc = import(&m, &c, diag);
    memcpy(fingerprint, m.fingerprint, TLS_MATERIAL_FINGERPRINT_LEN);
    /* GnuTLS holds its own copy now: wipe the PEM key. */
    tls_material_free(&m);
    if (rc < 0)
        return rc;
    pthread_mutex_lock(&load_lock);
    c->older = atomic_load(&current);
    atomic_store_explicit(&current, c, memory_order_release);
    pthread_mutex_unlock(&load_lock);
    return 0;
}

int tls_cert_callback(gnutls_session_t session, const gnutls_datum_t *req_ca,
                      int nreqs, const gnutls_pk_algorithm_t *algos,
                      int n_algos, gnutls_pcert_st **pcert,
                      unsigned int *pcert_length, gnutls_privkey_t *key)
{
    struct creds *c = atomic_load_explicit(&current, memory_order_acquire);

    (void)session;
    (void)req_ca;
    (void)nreqs;
    (void)algos;
    (void)n_algos;
    if (c == NULL)
        return -1;
    *pcert = c->pcerts;
    *pcert_length = c->n;
    *key = c->key;
    return 0;
}

void tls_free(void)
{
    struct creds *c;

    pthread_mutex_lock(&load_lock);
    c = atomic_exchange(&current, NULL);
    pthread_mutex_unlock(&load_lock);
    while (c != NULL) {
        struct creds *older = c->older;
        creds_free(c);
        c = older;
    }
    if (ticket_key.data) {
        gnutls_memset(ticket_key.data, 0, ticket_key.size);
        gnutls_free(ticket_key.data);
        ticket_key.data = NULL;
    }
}

int tls_priority_check(const char *priority, char *err, size_t size)
{
    gnutls_priority_t p;
    const char *where = NULL;
    int rc = gnutls_priority_init(&p, priority, &where);

    if (rc != GNUTLS_E_SUCCESS) {
        snprintf(err, size, "%s at \"%.40s\"", gnutls_strerror(rc),
                 where ? where : "");
        return -EINVAL;
    }
    gnutls_priority_deinit(p);
    return 0;
}

int tls_tickets_init(void)
{
    if (ticket_key.data)
        return 0;
    return gnutls_session_ticket_key_generate(&ticket_key) == GNUTLS_E_SUCCESS
               ? 0
               : -ENOMEM;
}

void tls_session_setup(gnutls_session_t session)
{
    if (ticket_key.data)
        (void)gnutls_session_ticket_enable_server(session, &ticket_key);
}

bool tls_connection(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_DAEMON);
    const union MHD_DaemonInfo *di;

    if (ci == NULL || ci->daemon == NULL)
        return false;
    di = MHD_get_daemon_info(ci->daemon, MHD_DAEMON_INFO_FLAGS);
    return di != NULL && (di->flags & MHD_USE_TLS) != 0;
}

/*
 * A TLS body is read with pread into libmicrohttpd's response buffer and
 * sent as TLS records by GnuTLS. libmicrohttpd's own fd responses use 4 KiB
 * steps: one pread and one callback round per 4 KiB, and a response-wide
 * mutex. 64 KiB steps (four full 16 KiB records each) measured 2-3 times the
 * MB/s of the 4 KiB path for a 10 MB file (bench/tls.sh, one server
 * thread); 256 KiB and 1 MiB were no faster on a noisy machine and cost
 * more memory. The buffer is per response, one per request: 64 KiB per
 * HTTPS download in progress.
 */
struct body {
    int fd;
    uint64_t start;
};

static ssize_t body_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct body *b = cls;
    ssize_t n;

    do
        n = pread(b->fd, buf, max, (off_t)(b->start + pos));
    while (n < 0 && errno == EINTR);
    /* Shorter than promised (truncated meanwhile): end the connection. */
    if (n <= 0)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    return n;
}

static void body_free(void *cls)
{
    struct body *b = cls;

    close(b->fd);
    free(b);
}

struct MHD_Response *tls_body_response(int fd, uint64_t start, uint64_t len)
{
    struct body *b = malloc(sizeof(*b));
    struct MHD_Response *r;

    if (b == NULL)
        return NULL;
    b->fd = fd;
    b->start = start;
    r = MHD_create_response_from_callback(len, TLS_BODY_BLOCK, body_read, b,
                                          body_free);
    if (r == NULL)
        free(b);
    return r;
}
