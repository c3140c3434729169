/* SPDX-License-Identifier: MIT */
/*
 * material.c - read, check and make HTTPS certificate material with
 * OpenSSL. The checks are the ones an operator gets wrong: a file that is not
 * PEM, a key for another certificate, dates, and a chain in the wrong order.
 * Each failure names the file and the certificate. The output is PEM text for
 * libmicrohttpd (GnuTLS); every buffer that held key bytes is wiped.
 */
#include "tls/material.h"

#include "common/elems.h"
#include "common/handed.h"
#include "tls/keyless.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DAY_SECONDS 86400

/* Longest self-signed validity accepted: ten years. */
#define SELF_SIGNED_MAX_DAYS 3650

/* A whole file in memory, NUL-terminated; wiped when freed (keys, passwords).
 */
struct file_buf {
    char *data;
    size_t len;
};

static void set_msg(char *dst, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_msg(char *dst, size_t size, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(dst, size, fmt, ap);
    va_end(ap);
}

#define ERROR(d, ...) set_msg((d)->error, sizeof((d)->error), __VA_ARGS__)
#define WARNING(d, ...) set_msg((d)->warning, sizeof((d)->warning), __VA_ARGS__)

/* The reason of OpenSSL's most recent error, for messages; "" when none. */
static const char *ossl_reason(char *buf, size_t size)
{
    unsigned long e = ERR_peek_last_error();

    buf[0] = '\0';
    if (e != 0) {
        buf[0] = ':';
        buf[1] = ' ';
        ERR_error_string_n(e, buf + 2, size - 2);
    }
    return buf;
}

static void file_buf_free(struct file_buf *f)
{
    if (f->data != NULL) {
        OPENSSL_cleanse(f->data, f->len);
        free(f->data);
    }
    f->data = NULL;
    f->len = 0;
}

/* read_file - read all of @path (at most TLS_MATERIAL_MAX_FILE bytes). */
static int read_file(const char *path, const char *what, struct file_buf *out,
                     struct tls_material_diag *diag)
{
    size_t cap = 0;
    int fd = -1;
    int rc;

    out->data = NULL;
    out->len = 0;
    /* a regular file only: a FIFO would hang the start or a reload */
    fd = handed_open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        rc = -errno;
        if (rc == -EISDIR)
            ERROR(diag, "%s: %s is a directory", path, what);
        else
            ERROR(diag, "%s: cannot open %s: %s", path, what,
                  handed_strerror(-rc));
        return rc;
    }
    /* Room for the whole file and the NUL, without reading past the cap. */
    cap = TLS_MATERIAL_MAX_FILE + 1;
    out->data = malloc(cap + 1);
    if (out->data == NULL) {
        rc = -ENOMEM;
        ERROR(diag, "%s: out of memory reading %s", path, what);
        goto out_close;
    }
    for (;;) {
        ssize_t n = read(fd, out->data + out->len, cap - out->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = -errno;
            ERROR(diag, "%s: cannot read %s: %s", path, what, strerror(-rc));
            goto out_free;
        }
        if (n == 0)
            break;
        out->len += (size_t)n;
        if (out->len > TLS_MATERIAL_MAX_FILE) {
            rc = -EFBIG;
            ERROR(diag, "%s: %s is larger than %zu bytes", path, what,
                  TLS_MATERIAL_MAX_FILE);
            goto out_free;
        }
    }
    out->data[out->len] = '\0';
    close(fd);
    return 0;

out_free:
    /* The bytes read may be a key: wipe everything that was written. */
    OPENSSL_cleanse(out->data, cap + 1);
    free(out->data);
    out->data = NULL;
    out->len = 0;
out_close:
    close(fd);
    return rc;
}

static bool has_pem_block(const struct file_buf *f)
{
    return f->data != NULL && strstr(f->data, "-----BEGIN ") != NULL;
}

static void subject_of(const X509 *x, char *buf, size_t size)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *p = NULL;
    long n;

    snprintf(buf, size, "?");
    if (b == NULL)
        return;
    if (X509_NAME_print_ex(b, X509_get_subject_name(x), 0, XN_FLAG_RFC2253) >=
        0) {
        n = BIO_get_mem_data(b, &p);
        if (n > 0)
            snprintf(buf, size, "%.*s", (int)n, p);
        else
            snprintf(buf, size, "(empty subject)");
    }
    BIO_free(b);
}

/* "2026-12-03 05:00:00 UTC", or "?" when the time cannot be read. */
static void format_time(const ASN1_TIME *t, char *buf, size_t size)
{
    struct tm tm;

    if (ASN1_TIME_to_tm(t, &tm) != 1 ||
        strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
        snprintf(buf, size, "?");
}

/*
 * read_chain - every CERTIFICATE block of @f, in file order. Other PEM blocks
 * (a key in a combined file) are skipped by OpenSSL.
 */
static int read_chain(const struct file_buf *f, const char *path,
                      STACK_OF(X509) * *out, struct tls_material_diag *diag)
{
    STACK_OF(X509) *chain = NULL;
    char why[160];
    BIO *bio = NULL;
    int rc = -ENOMEM;

    *out = NULL;
    if (!has_pem_block(f)) {
        ERROR(diag,
              "%s: not a PEM file (no \"-----BEGIN \" line; if it is DER, "
              "convert it with openssl x509 -inform der)",
              path);
        return -EBADMSG;
    }
    bio = BIO_new_mem_buf(f->data, (int)f->len);
    chain = sk_X509_new_null();
    if (bio == NULL || chain == NULL) {
        ERROR(diag, "%s: out of memory", path);
        goto out_free;
    }
    for (;;) {
        X509 *x;
        unsigned long e;

        ERR_clear_error();
        x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
        if (x != NULL) {
            if (!sk_X509_push(chain, x)) {
                X509_free(x);
                ERROR(diag, "%s: out of memory", path);
                goto out_free;
            }
            continue;
        }
        e = ERR_peek_last_error();
        if (ERR_GET_LIB(e) == ERR_LIB_PEM &&
            ERR_GET_REASON(e) == PEM_R_NO_START_LINE) {
            if (sk_X509_num(chain) > 0)
                break; /* the end of the file */
            ERROR(diag,
                  "%s: no PEM certificate in the file (expected "
                  "\"-----BEGIN CERTIFICATE-----\")",
                  path);
        } else {
            ERROR(diag, "%s: certificate %d is malformed%s", path,
                  sk_X509_num(chain) + 1, ossl_reason(why, sizeof(why)));
        }
        rc = -EBADMSG;
        goto out_free;
    }
    BIO_free(bio);
    ERR_clear_error();
    *out = chain;
    return 0;

out_free:
    sk_X509_pop_free(chain, X509_free);
    BIO_free(bio);
    ERR_clear_error();
    return rc;
}

struct password {
    const char *text; /* NULL: none given */
    bool asked;
};

static int password_cb(char *buf, int size, int rwflag, void *u)
{
    struct password *pw = u;
    size_t n;

    (void)rwflag;
    pw->asked = true;
    if (pw->text == NULL || size <= 0)
        return -1;
    n = strlen(pw->text);
    if (n > (size_t)size)
        return -1;
    memcpy(buf, pw->text, n);
    return (int)n;
}

/* read_password - the first line of @path, without its line end. */
static int read_password(const char *path, struct file_buf *out,
                         struct tls_material_diag *diag)
{
    int rc = read_file(path, "password file", out, diag);

    if (rc < 0)
        return rc;
    if (out->data == NULL)
        return -EIO;
    out->data[strcspn(out->data, "\r\n")] = '\0';
    if (out->data[0] == '\0') {
        ERROR(diag, "%s: the first line of the password file is empty", path);
        file_buf_free(out);
        return -EINVAL;
    }
    return 0;
}

static int read_key(const struct file_buf *f, const char *path,
                    const char *password_file, const char *password,
                    EVP_PKEY **out, struct tls_material_diag *diag)
{
    struct password pw = {.text = password};
    char why[160];
    EVP_PKEY *pkey;
    BIO *bio;

    *out = NULL;
    if (!has_pem_block(f)) {
        ERROR(diag, "%s: not a PEM file (no \"-----BEGIN \" line)", path);
        return -EBADMSG;
    }
    bio = BIO_new_mem_buf(f->data, (int)f->len);
    if (bio == NULL) {
        ERROR(diag, "%s: out of memory", path);
        return -ENOMEM;
    }
    ERR_clear_error();
    pkey = PEM_read_bio_PrivateKey(bio, NULL, password_cb, &pw);
    BIO_free(bio);
    if (pkey != NULL) {
        ERR_clear_error();
        *out = pkey;
        return 0;
    }
    if (pw.asked && password == NULL) {
        ERROR(diag,
              "%s: the private key is encrypted; give its password with "
              "--tls-key-password-file",
              path);
        ERR_clear_error();
        return -EKEYREJECTED;
    }
    if (pw.asked) {
        ERROR(diag,
              "%s: cannot decrypt the private key with the password in "
              "%s (wrong password?)",
              path, password_file);
        ERR_clear_error();
        return -EKEYREJECTED;
    }
    ERROR(diag, "%s: no readable PEM private key in the file%s", path,
          ossl_reason(why, sizeof(why)));
    ERR_clear_error();
    return -EBADMSG;
}

/* check_dates - every certificate valid at @now; a warning if the leaf ends
 * soon. */
static int check_dates(STACK_OF(X509) * chain, const char *path, time_t now,
                       struct tls_material_diag *diag)
{
    char subj[256], when[64];
    int i;

    for (i = 0; i < sk_X509_num(chain); i++) {
        const X509 *x = sk_X509_value(chain, i);
        const ASN1_TIME *nb = X509_get0_notBefore(x);
        const ASN1_TIME *na = X509_get0_notAfter(x);
        int before = X509_cmp_time(nb, &now);
        int after = X509_cmp_time(na, &now);

        subject_of(x, subj, sizeof(subj));
        if (before == 0 || after == 0) {
            ERROR(diag, "%s: certificate %d (%s) has an unreadable date", path,
                  i + 1, subj);
            return -EBADMSG;
        }
        if (before > 0) {
            format_time(nb, when, sizeof(when));
            ERROR(diag,
                  "%s: certificate %d (%s) is not valid yet: not before %s",
                  path, i + 1, subj, when);
            return -EKEYEXPIRED;
        }
        if (after < 0) {
            format_time(na, when, sizeof(when));
            ERROR(diag, "%s: certificate %d (%s) expired on %s", path, i + 1,
                  subj, when);
            return -EKEYEXPIRED;
        }
    }

    const X509 *leaf = sk_X509_value(chain, 0);
    time_t soon = now + (time_t)TLS_MATERIAL_WARN_DAYS * DAY_SECONDS;
    if (X509_cmp_time(X509_get0_notAfter(leaf), &soon) < 0) {
        struct tm tm;
        long days = 0;
        if (ASN1_TIME_to_tm(X509_get0_notAfter(leaf), &tm) == 1)
            days = (long)((timegm(&tm) - now) / DAY_SECONDS);
        subject_of(leaf, subj, sizeof(subj));
        format_time(X509_get0_notAfter(leaf), when, sizeof(when));
        WARNING(diag, "%s: certificate (%s) expires on %s, in %ld day%s", path,
                subj, when, days, days == 1 ? "" : "s");
    }
    return 0;
}

/* issued_by - whether @issuer's name and key issued and signed @x. */
static bool issued_by(X509 *x, X509 *issuer)
{
    EVP_PKEY *pub;

    if (X509_check_issued(issuer, x) != X509_V_OK)
        return false;
    pub = X509_get0_pubkey(issuer);
    return pub != NULL && X509_verify(x, pub) == 1;
}

/*
 * check_order - each certificate is issued and signed by the next one, as TLS
 * requires (RFC 8446 4.4.2 allows disorder, but GnuTLS and many clients do not
 * forgive it). The last one may be a root or an intermediate.
 */
static int check_order(STACK_OF(X509) * chain, const char *path,
                       struct tls_material_diag *diag)
{
    char subj[256], isubj[256];
    int n = sk_X509_num(chain);
    int i, j;

    for (i = 0; i + 1 < n; i++) {
        X509 *x = sk_X509_value(chain, i);
        X509 *next = sk_X509_value(chain, i + 1);

        if (issued_by(x, next))
            continue;
        subject_of(x, subj, sizeof(subj));
        subject_of(next, isubj, sizeof(isubj));
        for (j = 0; j < n; j++)
            if (j != i && issued_by(x, sk_X509_value(chain, j)))
                break;
        if (j < n)
            ERROR(diag,
                  "%s: chain out of order: certificate %d (%s) is followed "
                  "by certificate %d (%s), which did not issue it; its issuer "
                  "is certificate %d (order: leaf first, then each issuer)",
                  path, i + 1, subj, i + 2, isubj, j + 1);
        else
            ERROR(diag,
                  "%s: chain out of order: certificate %d (%s) is not issued "
                  "and signed by certificate %d (%s) (order: leaf first, then "
                  "each issuer)",
                  path, i + 1, subj, i + 2, isubj);
        ERR_clear_error();
        return -EINVAL;
    }
    ERR_clear_error();
    return 0;
}

/* copy_bio - the contents of a memory BIO as a new NUL-terminated string. */
static int copy_bio(BIO *b, char **out, size_t *len)
{
    char *p = NULL;
    long n = BIO_get_mem_data(b, &p);

    if (n <= 0)
        return -EIO;
    *out = malloc((size_t)n + 1);
    if (*out == NULL)
        return -ENOMEM;
    memcpy(*out, p, (size_t)n);
    (*out)[n] = '\0';
    *len = (size_t)n;
    return 0;
}

/* fill - PEM text and facts of @chain and @pkey into @m. */
static int fill(struct tls_material *m, STACK_OF(X509) * chain, EVP_PKEY *pkey,
                struct tls_material_diag *diag, const char *what)
{
    const X509 *leaf = sk_X509_value(chain, 0);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    BIO *cb = NULL, *kb = NULL;
    struct tm tm;
    int rc = -ENOMEM;
    int i;

    /* BIO_s_secmem: the mem BIO's buffer is cleared when freed. */
    cb = BIO_new(BIO_s_mem());
    kb = BIO_new(BIO_s_secmem());
    if (cb == NULL || kb == NULL)
        goto out_fail;
    for (i = 0; i < sk_X509_num(chain); i++)
        if (PEM_write_bio_X509(cb, sk_X509_value(chain, i)) != 1)
            goto out_fail;
    rc = copy_bio(cb, &m->cert_pem, &m->cert_len);
    if (rc < 0)
        goto out_fail;
    if (keyless_is_stub(pkey)) {
        /* the keeper's key: the stub itself, there is no text to it */
        if (EVP_PKEY_up_ref(pkey) != 1)
            goto out_fail;
        m->pkey = pkey;
    } else {
        if (PEM_write_bio_PrivateKey(kb, pkey, NULL, NULL, 0, NULL, NULL) != 1)
            goto out_fail;
        rc = copy_bio(kb, &m->key_pem, &m->key_len);
        if (rc < 0)
            goto out_fail;
    }
    rc = -EIO;
    if (X509_digest(leaf, EVP_sha256(), md, &mdlen) != 1 || mdlen != 32)
        goto out_fail;
    for (i = 0; i < (int)mdlen; i++)
        snprintf(m->fingerprint + 3 * (size_t)i,
                 sizeof(m->fingerprint) - 3 * (size_t)i,
                 i + 1 < (int)mdlen ? "%02X:" : "%02X", md[i]);
    if (ASN1_TIME_to_tm(X509_get0_notAfter(leaf), &tm) != 1)
        goto out_fail;
    m->not_after = timegm(&tm);
    m->n_certs = (size_t)sk_X509_num(chain);
    subject_of(leaf, m->subject, sizeof(m->subject));
    BIO_free(kb);
    BIO_free(cb);
    return 0;

out_fail : {
    char why[160];
    ERROR(diag, "%s: cannot encode the certificate and key%s", what,
          ossl_reason(why, sizeof(why)));
}
    ERR_clear_error();
    BIO_free(kb);
    BIO_free(cb);
    tls_material_free(m);
    return rc;
}

int tls_material_load(struct tls_material *m, const char *cert_file,
                      const char *key_file, const char *password_file,
                      time_t now, struct tls_material_diag *diag)
{
    struct file_buf cert = {0}, key = {0}, pass = {0};
    STACK_OF(X509) *chain = NULL;
    EVP_PKEY *pkey = NULL;
    char subj[256];
    int rc;

    memset(m, 0, sizeof(*m));
    diag->error[0] = diag->warning[0] = '\0';
    rc = read_file(cert_file, "certificate file", &cert, diag);
    if (rc < 0)
        return rc;
    char why[256];
    bool kept = keyless_key_for(key_file, &pkey, why, sizeof why);
    if (kept && !pkey) {
        ERROR(diag, "%s", why); /* the keeper's words name the file */
        rc = -EKEYREJECTED;
        goto out_free_files;
    }
    rc = kept ? 0 : read_file(key_file, "key file", &key, diag);
    if (rc < 0)
        goto out_free_files;
    if (password_file != NULL && !kept) {
        rc = read_password(password_file, &pass, diag);
        if (rc < 0)
            goto out_free_files;
    }
    rc = read_chain(&cert, cert_file, &chain, diag);
    if (rc < 0)
        goto out_free_key;
    if (!kept)
        rc = read_key(&key, key_file, password_file, pass.data, &pkey, diag);
    /* The key is parsed: no copy of its text or password stays around. */
    file_buf_free(&pass);
    file_buf_free(&key);
    if (rc < 0)
        goto out_free_chain;
    if (X509_check_private_key(sk_X509_value(chain, 0), pkey) != 1) {
        /* The key of a later certificate: the leaf is not first. */
        for (int i = 1; i < sk_X509_num(chain); i++) {
            if (X509_check_private_key(sk_X509_value(chain, i), pkey) == 1) {
                subject_of(sk_X509_value(chain, i), subj, sizeof(subj));
                ERROR(diag,
                      "%s: chain out of order: the key in %s belongs to "
                      "certificate %d (%s); the leaf must come first, then "
                      "each issuer",
                      cert_file, key_file, i + 1, subj);
                ERR_clear_error();
                rc = -EINVAL;
                goto out_free_key;
            }
        }
        subject_of(sk_X509_value(chain, 0), subj, sizeof(subj));
        ERROR(diag,
              "%s: the private key does not match the certificate in %s "
              "(%s)",
              key_file, cert_file, subj);
        ERR_clear_error();
        rc = -EKEYREJECTED;
        goto out_free_key;
    }
    rc = check_dates(chain, cert_file, now, diag);
    if (rc < 0)
        goto out_free_key;
    rc = check_order(chain, cert_file, diag);
    if (rc < 0)
        goto out_free_key;
    rc = fill(m, chain, pkey, diag, cert_file);

out_free_key:
    EVP_PKEY_free(pkey);
out_free_chain:
    sk_X509_pop_free(chain, X509_free);
out_free_files:
    file_buf_free(&pass);
    file_buf_free(&key);
    file_buf_free(&cert);
    if (rc < 0)
        diag->warning[0] = '\0';
    return rc;
}

static int add_ext(X509 *x, X509V3_CTX *ctx, int nid, const char *value)
{
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, ctx, nid, value);
    int ok;

    if (ext == NULL)
        return -1;
    ok = X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
    return ok == 1 ? 0 : -1;
}

int tls_material_self_signed(struct tls_material *m, time_t now, unsigned days,
                             struct tls_material_diag *diag)
{
    static const struct {
        int nid;
        const char *value;
    } exts[] = {
        {NID_basic_constraints, "critical,CA:FALSE"},
        {NID_key_usage, "critical,digitalSignature"},
        {NID_ext_key_usage, "serverAuth"},
        {NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1"},
        {NID_subject_key_identifier, "hash"},
    };
    STACK_OF(X509) *chain = NULL;
    EVP_PKEY *pkey = NULL;
    X509V3_CTX ctx;
    BIGNUM *serial = NULL;
    X509 *x = NULL;
    X509_NAME *name;
    char why[160];
    size_t i;
    int rc = -EIO;

    memset(m, 0, sizeof(*m));
    diag->error[0] = diag->warning[0] = '\0';
    if (days == 0 || days > SELF_SIGNED_MAX_DAYS) {
        ERROR(diag,
              "self-signed certificate: validity of %u days is not in "
              "1..%d",
              days, SELF_SIGNED_MAX_DAYS);
        return -EINVAL;
    }
    pkey = EVP_EC_gen("P-256");
    x = X509_new();
    serial = BN_new();
    chain = sk_X509_new_null();
    if (pkey == NULL || x == NULL || serial == NULL || chain == NULL)
        goto out_fail;
    /* 127 random bits: positive, and unique enough for a throw-away cert. */
    if (X509_set_version(x, X509_VERSION_3) != 1 ||
        BN_rand(serial, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
        BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x)) == NULL ||
        X509_time_adj_ex(X509_getm_notBefore(x), 0, -60, &now) == NULL ||
        X509_time_adj_ex(X509_getm_notAfter(x), (int)days, 0, &now) == NULL ||
        X509_set_pubkey(x, pkey) != 1)
        goto out_fail;
    name = X509_get_subject_name(x);
    if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                   (const unsigned char *)"localhost", -1, -1,
                                   0) != 1 ||
        X509_set_issuer_name(x, name) != 1)
        goto out_fail;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
    for (i = 0; i < N_ELEMS(exts); i++)
        if (add_ext(x, &ctx, exts[i].nid, exts[i].value) < 0)
            goto out_fail;
    if (X509_sign(x, pkey, EVP_sha256()) <= 0)
        goto out_fail;
    if (!sk_X509_push(chain, x))
        goto out_fail;
    x = NULL; /* owned by the chain now */
    rc = fill(m, chain, pkey, diag, "self-signed certificate");
    goto out_free;

out_fail:
    ERROR(diag, "self-signed certificate: OpenSSL failed%s",
          ossl_reason(why, sizeof(why)));
    ERR_clear_error();
out_free:
    sk_X509_pop_free(chain, X509_free);
    X509_free(x);
    BN_free(serial);
    EVP_PKEY_free(pkey);
    return rc;
}

void tls_material_free(struct tls_material *m)
{
    if (m == NULL)
        return;
    if (m->key_pem != NULL) {
        OPENSSL_cleanse(m->key_pem, m->key_len);
        free(m->key_pem);
    }
    EVP_PKEY_free(m->pkey);
    free(m->cert_pem);
    memset(m, 0, sizeof(*m));
}
