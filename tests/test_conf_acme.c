/* SPDX-License-Identifier: MIT */
/*
 * test_conf_acme.c - the ACME options (docs/acme.md): every bad value with
 * its exact place, the checks across options (a name in two certificates,
 * tls-alpn-01 without an https:// listener), the challenge chosen by
 * default from the listeners, and the values printed back.
 */
#include "cases.h"
#include "check_main.h"
#include "conf.h"
#include "conf_fixture.h"

#include <check.h>
#include <stdlib.h>

static const struct text_case file_errors[] = {
    {"acme = example.org,*.example.org\n",
     "t.conf:1: acme: '*.example.org' is not a DNS name a CA can validate "
     "(letters, digits and '-' in two or more labels; no wildcard)\n"},
    {"acme = localhost\n",
     "t.conf:1: acme: 'localhost' is not a DNS name a CA can validate "
     "(letters, digits and '-' in two or more labels; no wildcard)\n"},
    {"acme = a.example,,b.example\n",
     "t.conf:1: acme: '' is not a DNS name a CA can validate (letters, "
     "digits and '-' in two or more labels; no wildcard)\n"},
    {"acme = 192.0.2.1\n",
     "t.conf:1: acme: '192.0.2.1' is not a DNS name a CA can validate "
     "(letters, digits and '-' in two or more labels; no wildcard)\n"},
    {"acme = -a.example\n",
     "t.conf:1: acme: '-a.example' is not a DNS name a CA can validate "
     "(letters, digits and '-' in two or more labels; no wildcard)\n"},
    {"acme-email = nobody\n",
     "t.conf:1: acme-email: 'nobody' is not an e-mail address\n"},
    {"acme-email = a@b@c\n",
     "t.conf:1: acme-email: 'a@b@c' is not an e-mail address\n"},
    {"acme-ca = http://ca.example/dir\n",
     "t.conf:1: acme-ca: 'http://ca.example/dir' is not an https:// "
     "directory URL, letsencrypt or letsencrypt-staging\n"},
    {"acme-ca = staging\n",
     "t.conf:1: acme-ca: 'staging' is not an https:// directory URL, "
     "letsencrypt or letsencrypt-staging\n"},
    {"acme-challenge = dns-01\n",
     "t.conf:1: acme-challenge: 'dns-01' is not http-01 or tls-alpn-01\n"},
    {"acme-dir = acme\n",
     "t.conf:1: acme-dir: 'acme' is not an absolute path\n"},
};

LOOP_TEST(file_error, file_errors)
{
    ck_assert_uint_eq(
        conf_file_refused(file_errors[_i].in, -1, file_errors[_i].want), 0);
}
END_TEST

static const struct {
    const char *args[CONF_FIXTURE_MAX_ARGS];
    const char *env[3];
    const char *want;
} load_errors[] = {
    {{"--acme", "a.example,b.example", "--acme", "B.example"},
     {NULL},
     "--acme: 'B.example' is named twice\n"},
    {{"--acme", "a.example,a.example"},
     {NULL},
     "--acme: 'a.example' is named twice\n"},
    {{"--acme", "a.example", "--acme-challenge", "tls-alpn-01"},
     {NULL},
     "--acme-challenge: tls-alpn-01 is answered on an https:// listener, "
     "and there is none; add one or choose http-01\n"},
    /* port 443 makes tls-alpn-01 the default: it needs https:// */
    {{"--acme", "a.example", "--listen", "0.0.0.0:443"},
     {NULL},
     "--acme-challenge: tls-alpn-01 is answered on an https:// listener, "
     "and there is none; add one or choose http-01\n"},
    {{"--https-redirect", "--listen", "0.0.0.0:80"},
     {NULL},
     "--https-redirect: there is no https:// listener to redirect to; add "
     "one (--listen https://HOST:PORT)\n"},
    {{"--https-redirect=sometimes", "--listen", "https://0.0.0.0:443"},
     {NULL},
     "--https-redirect: 'sometimes' is not on, off or auto (also "
     "true/false, yes/no, 1/0)\n"},
    {{"--acme-on-demand", "--listen", "https://0.0.0.0:443"},
     {NULL},
     "--acme-on-demand: the names it gets certificates for are the site "
     "directories of --sites; give --sites DIR\n"},
    {{"--acme-on-demand", "--sites", "/srv/sites"},
     {NULL},
     "--acme-on-demand: a certificate is asked for by a TLS handshake, and "
     "there is no https:// listener; add one\n"},
    {{"--acme-email", "x"},
     {"BENEATH_ACME=a.example *.b.example", NULL},
     "BENEATH_ACME: '*.b.example' is not a DNS name a CA can validate "
     "(letters, digits and '-' in two or more labels; no wildcard)\n"
     "--acme-email: 'x' is not an e-mail address\n"},
};

LOOP_TEST(load_error, load_errors)
{
    conf_args_refused(load_errors[_i].args, load_errors[_i].env,
                      load_errors[_i].want);
}
END_TEST

static const struct {
    const char *args[CONF_FIXTURE_MAX_ARGS];
    const char *want;
} prints[] = {
    {{"--acme", "a.example"},
     "acme = a.example\n"
     "acme-ca = https://acme-v02.api.letsencrypt.org/directory\n"
     "# acme-ca-root = (not set)\n"
     "# acme-challenge = (not set)\n"
     "acme-dir = /var/lib/beneath/acme\n"
     "# acme-email = (not set)\n"},
    {{"--acme", "a.example,www.a.example", "--acme", "b.example", "--acme-ca",
      "letsencrypt-staging", "--acme-email", "ops@a.example", "--acme-dir",
      "/srv/acme"},
     "acme = a.example,www.a.example\n"
     "acme = b.example\n"
     "acme-ca = letsencrypt-staging\n"},
    {{"--acme-challenge", "tls-alpn-01", "--acme", "a.example", "--listen",
      "https://0.0.0.0:443"},
     "acme-challenge = tls-alpn-01\n"},
};

LOOP_TEST(print_case, prints)
{
    conf_args_prints(prints[_i].args, prints[_i].want);
}
END_TEST

static const struct {
    const char *args[CONF_FIXTURE_MAX_ARGS];
    enum conf_acme_challenge want;
} challenges[] = {
    {{"--acme", "a.example"}, CONF_ACME_HTTP01},
    {{"--acme", "a.example", "--listen", "https://0.0.0.0:443", "--listen",
      "0.0.0.0:80"},
     CONF_ACME_TLSALPN01},
    {{"--acme", "a.example", "--listen", "https://0.0.0.0:8443"},
     CONF_ACME_HTTP01},
    {{"--acme", "a.example", "--listen", "https://0.0.0.0:443",
      "--acme-challenge", "http-01"},
     CONF_ACME_HTTP01},
};

/* --https-redirect: as given, or (auto) on with --acme (or
 * --acme-on-demand) and an https://
 * listener to send clients to. */
static const struct {
    const char *args[CONF_FIXTURE_MAX_ARGS];
    bool want;
} redirects[] = {
    {{"--listen", "https://0.0.0.0:443"}, false},
    {{"--acme", "a.example", "--listen", "https://0.0.0.0:443", "--listen",
      "0.0.0.0:80"},
     true},
    {{"--acme", "a.example", "--listen", "0.0.0.0:80"}, false},
    {{"--acme", "a.example", "--listen", "https://0.0.0.0:443",
      "--https-redirect", "off"},
     false},
    {{"--https-redirect", "--listen", "https://0.0.0.0:443"}, true},
    {{"--listen", "https://0.0.0.0:443", "--https-redirect", "on"}, true},
    {{"--listen", "https://0.0.0.0:443", "--https-redirect", "auto"}, false},
    {{"--acme-on-demand", "--sites", "/srv/sites", "--listen",
      "https://0.0.0.0:443", "--listen", "0.0.0.0:80"},
     true},
};

LOOP_TEST(redirect_case, redirects)
{
    struct conf c;
    struct conf_diag d = {0};

    ck_assert_int_eq(conf_load_args(redirects[_i].args, NULL, &c, &d), 0);
    ck_assert_int_eq(conf_https_redirect(&c), redirects[_i].want);
    conf_free(&c);
    conf_diag_free(&d);
}
END_TEST

LOOP_TEST(challenge_case, challenges)
{
    struct conf c;
    struct conf_diag d = {0};

    ck_assert_int_eq(conf_load_args(challenges[_i].args, NULL, &c, &d), 0);
    ck_assert_int_eq(conf_acme_challenge(&c), challenges[_i].want);
    conf_free(&c);
    conf_diag_free(&d);
}
END_TEST

const struct check_main check_main = {
    .suite = "conf_acme",
    .tcases = {{"values",
                .loops = {LOOP(file_error), LOOP(load_error), LOOP(print_case),
                          LOOP(challenge_case), LOOP(redirect_case)}}},
};
