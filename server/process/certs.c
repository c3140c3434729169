// SPDX-License-Identifier: MIT
/*
 * certs.c - the TLS options of a configuration, between conf and tls/: which
 * options go together, and loading (or making) the certificate that GnuTLS
 * serves, at start-up and again on SIGHUP. Every message goes to stderr,
 * prefixed with @when ("" at start-up, "SIGHUP: " on reload).
 */
#include "process/certs.h"

#include "transport/tls_gnutls.h"

#include <stdio.h>
#include <time.h>

/* When the self-signed certificate in use was made (0: none). */
static time_t self_signed_at;
/* A SIGHUP this close to its end makes a new one. */
#define SELF_SIGNED_RENEW_DAYS 7

bool certs_wanted(const struct conf *c)
{
    for (size_t i = 0; i < c->n_listen; i++)
        if (c->listen[i].tls)
            return true;
    return false;
}

int certs_check(const struct conf *c, const char *when)
{
    int errors = 0;

    if (!c->tls_cert != !c->tls_key) {
        fprintf(stderr, "beneath: %s--tls-cert and --tls-key go together\n",
                when);
        errors++;
    }
    if (c->tls_key_password_file && !c->tls_key) {
        fprintf(stderr, "beneath: %s--tls-key-password-file needs --tls-key\n",
                when);
        errors++;
    }
    if (c->tls_self_signed && c->tls_cert) {
        fprintf(stderr,
                "beneath: %s--tls-self-signed and --tls-cert exclude each "
                "other\n",
                when);
        errors++;
    }
    if (certs_wanted(c) && !c->tls_cert && !c->tls_self_signed) {
        fprintf(stderr,
                "beneath: %san https:// listener needs --tls-cert and "
                "--tls-key, or --tls-self-signed\n",
                when);
        errors++;
    }
    char err[160];
    if (c->tls_priority &&
        tls_priority_check(c->tls_priority, err, sizeof err) != 0) {
        fprintf(stderr, "beneath: %s--tls-priority: %s\n", when, err);
        errors++;
    }
    if (!certs_wanted(c) && (c->tls_cert || c->tls_self_signed))
        fprintf(stderr,
                "beneath: %swarning: no https:// listener: the TLS "
                "certificate is not used\n",
                when);
    return errors;
}

int certs_load(const struct conf *c, const char *when)
{
    struct tls_source src = {
        .cert = c->tls_cert,
        .key = c->tls_key,
        .password_file = c->tls_key_password_file,
        .self_signed = c->tls_self_signed,
    };
    struct tls_material_diag d;
    char fp[TLS_MATERIAL_FINGERPRINT_LEN];
    int err = tls_load(&src, &d, fp);

    if (err) {
        fprintf(stderr, "beneath: %stls: %s%s\n", when, d.error,
                when[0] ? "; keeping the old certificate" : "");
        return err;
    }
    if (d.warning[0])
        fprintf(stderr, "beneath: %stls: warning: %s\n", when, d.warning);
    if (c->tls_self_signed) {
        char until[32];
        struct tm tm;

        self_signed_at = time(NULL);
        time_t end =
            self_signed_at + (time_t)TLS_MATERIAL_SELF_SIGNED_DAYS * 86400;
        gmtime_r(&end, &tm);
        strftime(until, sizeof until, "%Y-%m-%d %H:%M UTC", &tm);
        fprintf(stderr,
                "beneath: %stls: self-signed certificate for localhost, "
                "127.0.0.1, ::1, valid %d days (until %s; SIGHUP in its "
                "last %d days makes a new one); SHA-256 fingerprint %s\n",
                when, TLS_MATERIAL_SELF_SIGNED_DAYS, until,
                SELF_SIGNED_RENEW_DAYS, fp);
    } else {
        fprintf(stderr,
                "beneath: %stls: certificate %s loaded; SHA-256 "
                "fingerprint %s\n",
                when, c->tls_cert, fp);
    }
    return 0;
}

bool certs_reload_due(const struct conf *c)
{
    /*
     * A self-signed certificate stays while it has time left (a new one
     * would change its fingerprint for nothing), and is made anew in its
     * last days.
     */
    time_t renew_after =
        (time_t)(TLS_MATERIAL_SELF_SIGNED_DAYS - SELF_SIGNED_RENEW_DAYS) *
        86400;

    return certs_wanted(c) &&
           (!c->tls_self_signed || time(NULL) - self_signed_at >= renew_after);
}
