/* SPDX-License-Identifier: MIT */
/*
 * internal.h - the contract between beneath_acme's own files (not for the
 * server: it includes acme.h, acme_challenges.h and acme_renew.h only).
 *
 * acme_jws.c     keys, JWK, thumbprint, base64url, JWS ES256 (OpenSSL)
 * acme_x509.c    the CSR, the tls-alpn-01 certificate, reading chains
 * acme_http.c    one HTTPS exchange with the CA (libcurl)
 * acme_client.c  directory, nonces, signed requests, problems, account
 * acme_order.c   an order from newOrder to the downloaded chain
 * acme_store.c   the --acme-dir: atomic files, locks, the shared challenges
 * acme.c         the manager: state per certificate, its thread, the policy
 *
 * Errors are negative errno values: -EPROTO the CA refused (its problem
 * logged), -EAGAIN the CA asked to come back later (Retry-After), -EIO the
 * network or TLS failed, -ECANCELED the manager is stopping, -ENOMEM.
 */
#ifndef BENEATH_ACME_INTERNAL_H
#define BENEATH_ACME_INTERNAL_H

#include "acme/acme.h"
#include "common/elems.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

/* A message through the manager's log callback (printf syntax). */
struct acme_logger {
    void (*fn)(void *arg, enum acme_log_level level, const char *msg);
    void *arg;
};
__attribute__((format(printf, 3, 4))) void acme_log(const struct acme_logger *l,
                                                    enum acme_log_level level,
                                                    const char *fmt, ...);

/* ---- acme_jws.c ---- */

/* base64url without padding (RFC 7515 2); malloc'd, NULL when out of memory. */
char *acme_b64url(const unsigned char *p, size_t n);
/* A fresh ECDSA P-256 key, or NULL. */
EVP_PKEY *acme_key_new(void);
/* The key in @pem (@len bytes), or NULL. */
EVP_PKEY *acme_key_from_pem(const char *pem, size_t len);
/* PKCS#8 PEM of @k, NUL-terminated, malloc'd (wipe with acme_pem_free). */
char *acme_key_to_pem(EVP_PKEY *k);
/* Wipe and free a PEM text holding a key. */
void acme_pem_free(char *pem);
/* The public JWK of @k ({"crv","kty","x","y"}), or NULL. */
json_t *acme_jwk(EVP_PKEY *k);
/* The RFC 7638 thumbprint of @k, base64url, malloc'd, or NULL. */
char *acme_thumbprint(EVP_PKEY *k);
/*
 * acme_jws - the flattened JWS (RFC 8555 6.2) of @payload ("" for
 * POST-as-GET) signed ES256 with @k; the protected header names @kid, or
 * carries the JWK when @kid is NULL. Returns the JSON text, malloc'd, or NULL.
 */
char *acme_jws(EVP_PKEY *k, const char *kid, const char *nonce, const char *url,
               const char *payload);

/* ---- acme_x509.c ---- */

/* A DER CSR for @names (SAN, the first also CN), signed by @k; base64url. */
char *acme_csr(EVP_PKEY *k, char *const *names, size_t n);
/*
 * acme_alpn_cert - the RFC 8737 certificate for @name: self-signed by a
 * fresh key, one DNS SAN, the critical id-pe-acmeIdentifier extension with
 * SHA-256(@keyauth). Returns 0 (both out parameters owned by the caller) or
 * -ENOMEM / -EIO.
 */
int acme_alpn_cert(const char *name, const char *keyauth, X509 **cert,
                   EVP_PKEY **key);
/*
 * struct acme_chain_info - what a chain says of itself.
 * @not_before, @not_after: the leaf's validity.
 * @ari_id: the RFC 9773 certificate identifier (AKI "." serial), or "".
 */
struct acme_chain_info {
    time_t not_before, not_after;
    char ari_id[160];
};
/*
 * acme_chain_check - parse the PEM chain @pem, check that the leaf matches
 * the key @key_pem (when not NULL) and names exactly @names when @n > 0,
 * and fill @info. Returns 0, or -EINVAL with a sentence in @err.
 */
int acme_chain_check(const char *pem, size_t len, const char *key_pem,
                     char *const *names, size_t n, struct acme_chain_info *info,
                     char *err, size_t errlen);

/* ---- acme_http.c ---- */

struct acme_response {
    long status;
    char *body; /* NUL-terminated */
    size_t len;
    char *content_type;
    char *location;
    char *nonce;
    time_t retry_after; /* absolute; 0: none */
};
void acme_response_free(struct acme_response *r);

struct acme_http {
    void *curl; /* CURL * */
    char *ca_root;
    const atomic_bool *stop; /* a transfer is abandoned when it turns true */
    time_t (*clock)(void *arg);
    void *clock_arg;
};
/* libcurl's global set-up, once (acme_open calls it). 0 or -ENOMEM. */
int acme_http_global_init(void);
/* 0 or -ENOMEM. @ca_root NULL: the system's trust store. */
int acme_http_init(struct acme_http *h, const char *ca_root,
                   const atomic_bool *stop);
void acme_http_free(struct acme_http *h);
/*
 * acme_http_request - GET (@jws NULL) or POST @jws as application/jose+json
 * to @url; @accept overrides the Accept header. Any status fills @r.
 * Returns 0, -EIO (with a sentence in @err), -ECANCELED or -ENOMEM.
 */
int acme_http_request(struct acme_http *h, const char *url, const char *jws,
                      const char *accept, struct acme_response *r, char *err,
                      size_t errlen);

/* ---- acme_client.c ---- */

/* How the client waits @ms milliseconds: returns 0, or -ECANCELED when the
 * manager stops. */
struct acme_sleeper {
    int (*sleep_ms)(void *arg, long ms);
    void *arg;
};

struct acme_client {
    struct acme_http http;
    const struct acme_logger *log;
    struct acme_sleeper sleeper;
    char *directory;
    char *new_nonce, *new_account, *new_order, *renewal_info;
    char *nonce;
    EVP_PKEY *key; /* borrowed: the account key */
    char *thumbprint;
    char *kid;          /* the account URL, once known */
    time_t retry_after; /* the CA's last Retry-After, absolute; 0: none */
    char problem[128];  /* the last problem's type, without the prefix */
};
/* Fetch the directory. 0 or a negative errno (logged). */
int acme_client_open(struct acme_client *c, const char *directory,
                     const char *ca_root, const atomic_bool *stop,
                     const struct acme_logger *log,
                     struct acme_sleeper sleeper);
void acme_client_close(struct acme_client *c);
/* Use @key for the account; @kid its URL when known, else NULL. */
int acme_client_set_key(struct acme_client *c, EVP_PKEY *key, const char *kid);
/*
 * acme_client_post - a signed POST of @payload (NULL: POST-as-GET) to @url,
 * badNonce retried; an error status is logged with the problem's detail.
 * Returns 0 (2xx, @r filled), -EPROTO, -EAGAIN (429 or 503, retry_after
 * set), -EIO, -ECANCELED or -ENOMEM.
 */
int acme_client_post(struct acme_client *c, const char *url,
                     const char *payload, const char *accept,
                     struct acme_response *r);
/* newAccount (RFC 8555 7.3), finding or creating it; sets c->kid. */
int acme_client_account(struct acme_client *c, const char *email);
/* Parse a response body as a JSON object; NULL (logged) if it is not. */
json_t *acme_client_json(struct acme_client *c, const struct acme_response *r,
                         const char *what);

/* ---- acme_order.c ---- */

/* Where the challenge material goes while an order is validated. */
struct acme_publisher {
    int (*publish)(void *arg, enum acme_challenge_type type, const char *name,
                   const char *token, const char *keyauth);
    /* all published: wait until the material is visible (replicas) */
    int (*ready)(void *arg);
    void (*withdraw)(void *arg, enum acme_challenge_type type, const char *name,
                     const char *token);
    void *arg;
};
/*
 * acme_order - order a certificate for @names, answer each pending
 * authorization with a challenge of @type, finalize with a CSR of a fresh
 * key and download the chain. Returns 0 with *@chain_pem and *@key_pem
 * (malloc'd, the key to be freed with acme_pem_free), or a negative errno.
 */
int acme_order(struct acme_client *c, char *const *names, size_t n,
               enum acme_challenge_type type, const struct acme_publisher *pub,
               char **chain_pem, char **key_pem);

/* RFC 8555 8.1: a token is base64url (it also names a file). */
bool acme_token_ok(const char *token);
/* "http-01" or "tls-alpn-01". */
const char *acme_challenge_name(enum acme_challenge_type t);

/* ---- acme_ari.c ---- */

/* The suggestedWindow of a renewalInfo body (RFC 9773 4.2). 0 or -EPROTO. */
int acme_ari_parse(const char *body, size_t len, time_t *start, time_t *end);
/*
 * acme_ari_fetch - GET renewalInfo/@ari_id: the window, and in *@next when
 * to ask again. Returns 0, -ENOENT (the CA offers no renewalInfo), -EPROTO,
 * -EIO, -ECANCELED or -ENOMEM.
 */
int acme_ari_fetch(struct acme_client *c, const char *ari_id, time_t now,
                   time_t *start, time_t *end, time_t *next);

/* ---- acme_store.c ---- */

/*
 * acme_store_open - open (making it 0700 when missing) the directory @path
 * and the subdirectories the layout names. Returns a dirfd or -errno.
 */
int acme_store_open(const char *path);
/* Write @len bytes to @name under @dirfd atomically (temp + fsync + rename)
 * with @mode. 0 or -errno. */
int acme_store_write(int dirfd, const char *name, const void *data, size_t len,
                     mode_t mode);
/* Read @name (at most 1 MiB) into a NUL-terminated malloc'd buffer.
 * 0, -ENOENT, -EFBIG or -errno. */
int acme_store_read(int dirfd, const char *name, char **data, size_t *len);
/* Make the directory @name under @dirfd (0700) unless it exists. */
int acme_store_mkdir(int dirfd, const char *name);
/*
 * acme_store_lock - take the exclusive flock of the file @name (made 0600)
 * without waiting. Returns the fd that holds it, -EWOULDBLOCK when another
 * process holds it, or -errno.
 */
int acme_store_lock(int dirfd, const char *name);
/*
 * acme_store_join - say "a replica uses this directory" for as long as the
 * returned fd is open: a shared lock on the file @name (made 0600).
 * Returns the fd, or -errno.
 */
int acme_store_join(int dirfd, const char *name);
/* Whether another than @fd (acme_store_join's) holds its file's lock:
 * 1 yes, 0 no, or -errno. */
int acme_store_others(int fd);
/* A directory name for the CA @url ("127.0.0.1_14000_dir"). */
void acme_store_ca_id(const char *url, char *buf, size_t size);

/* ---- the manager (acme.c: open, thread, status; acme_attempt.c) ---- */

/* One certificate: its names, and what is known of it (under a->mu). */
struct acme_item {
    char *id;
    struct acme_names names;
    char **owned; /* names.v, owned */
    uint32_t rnd; /* its jitter, drawn once */
    time_t not_before, not_after;
    char ari_id[160];
    time_t ari_start, ari_end;
    unsigned failures;
    time_t failed_at, retry_after, next;
    char last_error[256];
    /* what cert.pem was when last read (another replica may replace it) */
    ino_t ino;
    struct timespec mtime;
    bool waiting;    /* another replica holds its lock; said once */
    time_t warned;   /* the not_after whose coming expiry was logged */
    time_t ari_next; /* when to ask for renewalInfo next */
};

/* A challenge file of another replica, answered from memory too. */
struct acme_shared {
    char *token;
    char *name;
    enum acme_challenge_type type;
    bool seen; /* in the last scan */
};

struct acme {
    char *directory, *ca_root, *email;
    char ca_id[128];
    enum acme_challenge_type challenge;
    struct acme_challenges *ch; /* borrowed */
    void (*install)(void *arg, const struct acme_cert *cert);
    void (*log_fn)(void *arg, enum acme_log_level level, const char *msg);
    void *arg;
    time_t (*clock)(void *arg);
    struct acme_backoff backoff;
    unsigned share_delay;
    struct acme_logger logger;
    char last_error[256]; /* the last error logged, for the item's state */
    int dirfd;
    int replicas_fd; /* acme_store_join's, or -1: assume there are others */
    struct acme_item *items; /* realloc'd only by the ACME thread, under mu */
    size_t n_items;
    size_t n_config; /* the first n_config: the configuration's */
    char **requests; /* acme_request's names, under mu */
    time_t ordered;  /* the rate limit of their orders: when the last one
                        went or goes (acme.c, order_slot) */
    size_t n_requests;
    struct acme_shared *shared; /* imported from challenges/ */
    size_t n_shared;
    char **own; /* tokens this process published */
    size_t n_own;
    pthread_t thread;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* CLOCK_MONOTONIC */
    atomic_bool stop;
};

/* The manager's clock (acme_clock.c, as the next two). */
time_t acme_now(struct acme *a);
/* Sleep until @until on the manager's clock; -ECANCELED when stopping. */
int acme_sleep_until(void *arg, time_t until);
/* The same, but only until acme_request adds a name: the loop's wait
 * between its rounds, so that a handshake waiting for it is not kept
 * waiting for the next round. */
int acme_idle_until(struct acme *a, time_t until);
/* Sleep @ms milliseconds (the monotonic clock); -ECANCELED when stopping. */
int acme_sleep_ms(void *arg, long ms);
/* @t as the log lines give it: "2027-03-06", with the time of day
 * ("2027-03-06 14:05:09 UTC") when it is less than two days from @now. */
void acme_date(time_t t, time_t now, char *buf, size_t size);
/* Recompute it->next (under a->mu). */
void acme_item_schedule(struct acme *a, struct acme_item *it, time_t now);
/*
 * acme_item_load - read certs/ID/ (cert, key, state); install the
 * certificate when it is new to this process. Returns 0, -ENOENT when there
 * is no usable certificate, or -ENOMEM.
 */
int acme_item_load(struct acme *a, struct acme_item *it);
/* Ask the CA's renewalInfo for the items whose time has come (acme.c). */
void acme_ari_check(struct acme *a, time_t now);
/* Order or renew @it now, holding its lock (acme_attempt.c). */
void acme_attempt(struct acme *a, struct acme_item *it);
/* Answer the challenge files other replicas published (acme_share.c). */
void acme_shared_scan(struct acme *a);
/* The publisher that writes to memory and challenges/ (acme_share.c). */
void acme_share_publisher(struct acme *a, struct acme_publisher *pub);
/* Forget every imported and own challenge (acme_close). */
void acme_shared_clear(struct acme *a);

#endif
