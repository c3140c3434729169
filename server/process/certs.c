// SPDX-License-Identifier: MIT
/*
 * certs.c - the TLS options of a configuration, between conf and the
 * certificate store the TLS front serves from: which options go together,
 * and loading (or making) each certificate, at start-up and again on
 * SIGHUP. Every message goes to stderr, prefixed with @when ("" at
 * start-up, "SIGHUP: " on reload).
 *
 * A certificate is a --tls-cert item with the --tls-key (and
 * --tls-key-password-file) item of the same NAME: the default one has
 * none, the others a --vhost name, chosen by SNI. Each is loaded on its
 * own: one that fails on SIGHUP keeps its old certificate, the others
 * still change.
 */
#include "process/certs.h"

#include "process/self_signed.h"
#include "syntax/host.h"
#include "tls/keyless.h"
#include "tls/store.h"
#include "transport/front/tls_front.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The store and the settings of its contexts (certs_open). */
static struct tls_store *store;
static struct tls_front front;

/* Names ACME serves (certs_keep), kept across certs_load. */
static char **kept;
static size_t n_kept;

/* One certificate of the configuration: its NAME ("" default) and files. */
struct cert {
    char name[HOST_MAX];
    const char *cert, *key, *password;
};

struct certs {
    struct cert *v;
    size_t n;
};

bool certs_wanted(const struct conf *c)
{
    for (size_t i = 0; i < c->n_listen; i++)
        if (c->listen[i].tls)
            return true;
    return false;
}

static struct cert *find(struct certs *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].name, name) == 0)
            return &s->v[i];
    return NULL;
}

/* "NAME " for a message about a named certificate, "" for the default. */
static const char *label(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s", name, name[0] ? ": " : "");
    return buf;
}

/* Whether @name is the NAME of one of @c's --vhost items. */
static bool vhost_named(const struct conf *c, const char *name)
{
    for (size_t i = 0; i < c->vhost.n; i++) {
        const char *item = c->vhost.v[i], *eq = strchr(item, '=');
        char v[HOST_MAX], why[256];
        if (!eq || (size_t)(eq - item) >= sizeof v)
            continue;
        memcpy(v, item, (size_t)(eq - item));
        v[eq - item] = '\0';
        if (host_pattern_check(v, v, why, sizeof why) == 0 &&
            strcmp(v, name) == 0)
            return true;
    }
    return false;
}

/*
 * The certificates of @c into @s (pointing into @c), each problem one
 * line. The number of problems, or -ENOMEM.
 */
static int collect(const struct conf *c, struct certs *s, const char *when,
                   FILE *out)
{
    int errors = 0;

    s->n = 0;
    s->v = calloc(c->tls_cert.n ? c->tls_cert.n : 1, sizeof *s->v);
    if (!s->v)
        return -ENOMEM;
    for (size_t i = 0; i < c->tls_cert.n; i++) {
        struct cert *t = &s->v[s->n];
        t->cert = conf_tls_item(c->tls_cert.v[i], t->name);
        if (find(s, t->name)) {
            fprintf(out, "beneath: %s--tls-cert %s: given twice\n", when,
                    t->name[0] ? t->name : "without NAME");
            errors++;
            continue;
        }
        if (t->name[0] && !vhost_named(c, t->name)) {
            fprintf(out,
                    "beneath: %s--tls-cert %s: %s is not the NAME of a "
                    "--vhost\n",
                    when, c->tls_cert.v[i], t->name);
            errors++;
            continue;
        }
        s->n++;
    }
    static const struct {
        const char *opt;
        size_t off;
    } parts[] = {
        {"tls-key", offsetof(struct cert, key)},
        {"tls-key-password-file", offsetof(struct cert, password)},
    };
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
        const struct conf_strv *v =
            p == 0 ? &c->tls_key : &c->tls_key_password_file;
        for (size_t i = 0; i < v->n; i++) {
            char name[HOST_MAX];
            const char *path = conf_tls_item(v->v[i], name);
            struct cert *t = find(s, name);
            const char **slot =
                t ? (const char **)(void *)((char *)t + parts[p].off) : NULL;
            if (slot && !*slot) {
                *slot = path;
                continue;
            }
            if (slot)
                fprintf(out, "beneath: %s--%s %s: given twice\n", when,
                        parts[p].opt, name[0] ? name : "without NAME");
            else if (p == 1 && !name[0])
                fprintf(out,
                        "beneath: %s--tls-key-password-file needs "
                        "--tls-key\n",
                        when);
            else
                fprintf(out, "beneath: %s--%s %s: no --tls-cert for it\n", when,
                        parts[p].opt, v->v[i]);
            errors++;
        }
    }
    for (size_t i = 0; i < s->n; i++)
        if (!s->v[i].key) {
            char l[HOST_MAX + 2];
            fprintf(out,
                    "beneath: %s%s--tls-cert and --tls-key go "
                    "together\n",
                    when, label(s->v[i].name, l, sizeof l));
            errors++;
        }
    return errors;
}

void certs_each(const struct conf *c,
                void (*fn)(const char *name, const char *cert, const char *key,
                           const char *password, void *arg),
                void *arg)
{
    struct certs s;
    char *said = NULL;
    size_t len = 0;
    FILE *quiet = open_memstream(&said, &len); /* certs_check says it */

    if (quiet && collect(c, &s, "", quiet) >= 0)
        for (size_t i = 0; i < s.n; i++)
            if (s.v[i].key)
                fn(s.v[i].name, s.v[i].cert, s.v[i].key, s.v[i].password, arg);
    if (quiet) {
        fclose(quiet);
        free(s.v);
    }
    free(said);
}

int certs_check(const struct conf *c, const char *when)
{
    struct certs s;
    int errors = collect(c, &s, when, stderr);

    if (errors < 0)
        return 1;
    bool dflt = find(&s, "") != NULL;
    if (c->tls_self_signed && dflt) {
        fprintf(stderr,
                "beneath: %s--tls-self-signed and --tls-cert exclude each "
                "other\n",
                when);
        errors++;
    }
    if (certs_wanted(c) && c->tls_cert.n == 0 && !c->tls_self_signed &&
        c->tls_key.n == 0 && c->acme.n == 0 && !c->acme_on_demand) {
        fprintf(stderr,
                "beneath: %san https:// listener needs --tls-cert and "
                "--tls-key, --tls-self-signed, --acme or --acme-on-demand\n",
                when);
        errors++;
    }
    char err[300];
    if (c->tls_ciphers &&
        tls_front_ciphers_check(c->tls_ciphers, err, sizeof err) != 0) {
        fprintf(stderr, "beneath: %s--tls-ciphers: %s\n", when, err);
        errors++;
    }
    if (!certs_wanted(c) && (c->tls_cert.n || c->tls_self_signed))
        fprintf(stderr,
                "beneath: %swarning: no https:// listener: the TLS "
                "certificate is not used\n",
                when);
    free(s.v);
    return errors;
}

int certs_open(const struct conf *c)
{
    if (store)
        return 0;
    front = (struct tls_front){
        .ciphers = c->tls_ciphers,
        .h2 = c->http2,
    };
    int err = tls_front_tickets_init();
    if (err == 0)
        err = tls_store_new(tls_front_setup, &front, &store);
    if (err) {
        fprintf(stderr, "beneath: tls: %s\n", strerror(-err));
        return err;
    }
    front.store = store;
    return 0;
}

struct tls_store *certs_store(void)
{
    return store;
}

int certs_keep(const char *name)
{
    char **v = realloc(kept, (n_kept + 1) * sizeof *v);

    if (!v)
        return -ENOMEM;
    kept = v;
    kept[n_kept] = strdup(name);
    if (!kept[n_kept])
        return -ENOMEM;
    n_kept++;
    return 0;
}

void certs_close(void)
{
    tls_store_free(store);
    store = NULL;
    for (size_t i = 0; i < n_kept; i++)
        free(kept[i]);
    free(kept);
    kept = NULL;
    n_kept = 0;
    tls_front_tickets_free();
}

const char *certs_state_dir(const struct conf *c, char *buf, size_t size)
{
    extern char **environ;

    if (c->state_dir)
        return strcmp(c->state_dir, "off") == 0 ? NULL : c->state_dir;
    return self_signed_state_dir(environ, buf, size);
}

/*
 * The self-signed default certificate: the keeper's (it made the
 * certificate or read it from the state directory, and keeps the key), or
 * under --check the state directory's as it is. 0 or -errno after a line.
 */
static int self_signed(const struct conf *c, const char *when)
{
    struct tls_material m;
    struct tls_material_diag d;
    time_t now = time(NULL);
    char buf[4096], note[4200] = "";
    EVP_PKEY *k = NULL;
    bool keeper =
        keyless_key_for(CERTS_SELF_SIGNED_KEY, &k, note, sizeof note) != 0;
    int err;

    EVP_PKEY_free(k);
    err = keeper ? tls_material_load(&m, CERTS_SELF_SIGNED_CERT,
                                     CERTS_SELF_SIGNED_KEY, NULL, now, &d)
                 : self_signed_get(certs_state_dir(c, buf, sizeof buf),
                                   c->check, now, &m, &d, note, sizeof note);
    if (err == 0)
        err = tls_store_put(store, NULL, &m, &d);
    if (err) {
        fprintf(stderr, "beneath: %stls: %s\n", when, d.error);
        tls_material_free(&m);
        return err;
    }
    char until[32];
    struct tm tm;

    gmtime_r(&m.not_after, &tm);
    strftime(until, sizeof until, "%Y-%m-%d %H:%M UTC", &tm);
    fprintf(stderr,
            "beneath: %stls: self-signed certificate for localhost, "
            "127.0.0.1, ::1, valid until %s (a start or SIGHUP in its "
            "last %d days makes a new one), %s; SHA-256 fingerprint %s\n",
            when, until, SELF_SIGNED_RENEW_DAYS, note, m.fingerprint);
    tls_material_free(&m);
    return 0;
}

/* Load one certificate of files into the store. 0 or -errno after a line. */
static int load_one(const struct cert *t, const char *when)
{
    struct tls_material m;
    struct tls_material_diag d;
    char l[HOST_MAX + 2];
    int err =
        tls_material_load(&m, t->cert, t->key, t->password, time(NULL), &d);

    if (err == 0)
        err = tls_store_put(store, t->name, &m, &d);
    label(t->name, l, sizeof l);
    if (err) {
        fprintf(stderr, "beneath: %stls: %s%s%s\n", when, l, d.error,
                when[0] ? "; keeping the old certificate" : "");
        tls_material_free(&m);
        return err;
    }
    if (d.warning[0])
        fprintf(stderr, "beneath: %stls: %swarning: %s\n", when, l, d.warning);
    fprintf(stderr,
            "beneath: %stls: %scertificate %s loaded; SHA-256 fingerprint "
            "%s\n",
            when, l, t->cert, m.fingerprint);
    tls_material_free(&m);
    return 0;
}

int certs_load(const struct conf *c, const char *when)
{
    struct certs s;
    int first = 0, err = collect(c, &s, when, stderr);
    const char **names = NULL;
    size_t n = 0;

    if (err || !store) {
        free(s.v);
        return err < 0 ? err : -EINVAL;
    }
    names = calloc(s.n + 1 + n_kept, sizeof *names);
    if (!names) {
        free(s.v);
        return -ENOMEM;
    }
    /* every one is tried: one that fails keeps its old certificate */
    for (size_t i = 0; i < s.n; i++) {
        err = load_one(&s.v[i], when);
        if (err && !first)
            first = err;
        names[n++] = s.v[i].name;
    }
    if (c->tls_self_signed) {
        err = self_signed(c, when);
        if (err && !first)
            first = err;
        names[n++] = "";
    }
    for (size_t i = 0; i < n_kept; i++)
        names[n++] = kept[i];
    /* what this configuration no longer names */
    tls_store_keep_only(store, names, n);
    free(names);
    free(s.v);
    return first;
}
