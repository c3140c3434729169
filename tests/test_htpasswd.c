/* SPDX-License-Identifier: MIT */
/* test_htpasswd.c - htpasswd syntax: accepted schemes, refusals with
 * FILE:LINE, duplicates, lookups, a 100,000-user file. */
#include "cases.h"
#include "check_main.h"
#include "syntax/htpasswd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BCRYPT "$2y$05$9LGJ9VMeUDjyHNfFx29IEOTXjF7N7sck0ct63MneXuVxW0VQywtp."
#define BCRYPT_B "$2b$04$abcdefghijklmnopqrstuu2r9OfJnfCsdneAXAGHnS4UpFFP8WIrW"
#define SHA512                                                                 \
    "$6$saltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0U0aDehy0S5knV8wi"  \
    "OQSpT0Y77vwPZN.Pq.H91p5hVO1"
#define YESCRYPT                                                               \
    "$y$j9T$LAUZ.Wcls/zX/nS2b/0Lp/$m3bYZEe19JUe/"                              \
    "lfotapG3jVrm9CG7A92bW88D0tJ4h9"

/* Good lines: each alone makes a file with one user. */
static const struct {
    const char *line;
    const char *user;
    enum htpasswd_scheme scheme;
} good[] = {
    {"alice:" BCRYPT, "alice", HTPASSWD_BCRYPT},
    {"bob:" BCRYPT_B, "bob", HTPASSWD_BCRYPT},
    {"carol:" SHA512, "carol", HTPASSWD_SHA512},
    {"carol:$6$rounds=5000$saltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5"
     "n0U0aDehy0S5knV8wiOQSpT0Y77vwPZN.Pq.H91p5hVO1",
     "carol", HTPASSWD_SHA512},
    {"dave:" YESCRYPT, "dave", HTPASSWD_YESCRYPT},
    {"alice:" BCRYPT "\r", "alice", HTPASSWD_BCRYPT},
    {"d\xc3\xa9j\xc3\xa0 vu:" BCRYPT, "d\xc3\xa9j\xc3\xa0 vu", HTPASSWD_BCRYPT},
};

LOOP_TEST(good_line, good)
{
    struct htpasswd h;
    struct lines_diag d = {0};
    const char *l = good[_i].line;

    ck_assert_int_eq(htpasswd_parse(&h, l, strlen(l), "pw", &d), 0);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_uint_eq(h.n, 1);
    ck_assert_str_eq(h.v[0].user, good[_i].user);
    ck_assert_int_eq(h.v[0].scheme, good[_i].scheme);
    ck_assert_ptr_nonnull(htpasswd_find(&h, good[_i].user));
    htpasswd_free(&h);
}
END_TEST

/* Bad lines: line 2 of a file whose line 1 is good. */
static const struct spec_case bad[] = {
    {"bob:$apr1$7EAU.9L4$Ej0EWQj9BdxjSlUM.HXWW1",
     "pw:2: user 'bob': MD5 ($apr1$) is refused: re-create the entry with "
     "htpasswd -B"},
    {"carol:{SHA}EfatjsUqKYSrqv18O1FlA3hcIHI=",
     "pw:2: user 'carol': {SHA} is one unsalted SHA-1, refused: re-create the "
     "entry with htpasswd -B"},
    {"dave:x",
     "pw:2: user 'dave': a plain-text or DES-crypt password is refused: "
     "re-create the entry with htpasswd -B"},
    {"erin:abNANd1rDfiNc",
     "pw:2: user 'erin': a plain-text or DES-crypt password is refused: "
     "re-create the entry with htpasswd -B"},
    {"frank:$1$saltsalt$9xy1btjgzLYfb7hivXtC//",
     "pw:2: user 'frank': MD5-crypt ($1$) is refused: re-create the entry "
     "with htpasswd -B"},
    {"gina:$5$saltsalt$0IyaXrmV7.sGNS6tirgqHLqX/G.FBvgkYA.lpPdS5sA",
     "pw:2: user 'gina': unsupported hash scheme (accepted: bcrypt "
     "$2y$/$2b$, SHA-512-crypt $6$, yescrypt $y$)"},
    {"hank:$2a$05$9LGJ9VMeUDjyHNfFx29IEOTXjF7N7sck0ct63MneXuVxW0VQywtp.",
     "pw:2: user 'hank': this bcrypt variant is refused: re-create the entry "
     "with htpasswd -B ($2y$)"},
    {"ida:$2y$05$tooshort",
     "pw:2: user 'ida': malformed bcrypt hash (want $2y$CC$ and 53 "
     "characters)"},
    {"ida:$2y$03$9LGJ9VMeUDjyHNfFx29IEOTXjF7N7sck0ct63MneXuVxW0VQywtp.",
     "pw:2: user 'ida': malformed bcrypt hash (want $2y$CC$ and 53 "
     "characters)"},
    {"jo:$6$saltsalt$short", "pw:2: user 'jo': malformed SHA-512-crypt hash"},
    {"kim:$y$j9T$LAUZ.Wcls/zX/nS2b/0Lp/",
     "pw:2: user 'kim': malformed yescrypt hash"},
    {"lea:", "pw:2: user 'lea': empty hash (no password can match it)"},
    {"just-a-name", "pw:2: expected USER:HASH"},
    {":" BCRYPT, "pw:2: empty user name"},
    {"m\x01x:" BCRYPT, "pw:2: control character in the user name"},
    {"ned:" BCRYPT ":comment", "pw:2: more than one ':' (want USER:HASH)"},
    {"alice:" SHA512, "pw:2: user 'alice' is already defined at line 1"},
};

LOOP_TEST(bad_line, bad)
{
    struct htpasswd h;
    struct lines_diag d = {0};
    char text[512];

    snprintf(text, sizeof text, "alice:%s\n%s\n", BCRYPT, bad[_i].spec);
    int r = htpasswd_parse(&h, text, strlen(text), "pw", &d);
    cases_check_spec(&bad[_i], r, d.n ? d.msgs[0] : "");
    ck_assert_uint_eq(h.n, 0);
    ck_assert_uint_eq(d.n, 1);
    lines_diag_free(&d);
}
END_TEST

START_TEST(structure)
{
    struct htpasswd h;
    struct lines_diag d = {0};
    const char *t = "# team docs\n\n"
                    "zoe:" BCRYPT "\n"
                    "  \n"
                    "adam:" SHA512 "\r\n"
                    "mia:" YESCRYPT;

    ck_assert_int_eq(htpasswd_parse(&h, t, strlen(t), "pw", &d), 0);
    ck_assert_uint_eq(h.n, 3);
    ck_assert_str_eq(h.v[0].user, "adam"); /* sorted */
    ck_assert_uint_eq(htpasswd_find(&h, "zoe")->line, 3);
    ck_assert_uint_eq(htpasswd_find(&h, "adam")->line, 5);
    ck_assert_str_eq(htpasswd_find(&h, "mia")->hash, YESCRYPT);
    ck_assert_ptr_null(htpasswd_find(&h, "Zoe"));
    ck_assert_ptr_null(htpasswd_find(&h, ""));
    htpasswd_free(&h);

    ck_assert_uint_eq(d.n, 0);
    ck_assert_int_eq(htpasswd_parse(&h, "", 0, "pw", &d), -EINVAL);
    ck_assert_str_eq(d.msgs[0], "pw:1: no users: nobody could log in");
    lines_diag_free(&d);
    ck_assert_int_eq(htpasswd_parse(&h, "# nobody\n", 9, "pw", &d), -EINVAL);
    ck_assert_str_eq(d.msgs[0], "pw:1: no users: nobody could log in");
    lines_diag_free(&d);
    ck_assert_int_eq(htpasswd_parse(&h, "a:" BCRYPT "\0x\n", 62 + 3, "pw", &d),
                     -EINVAL);
    ck_assert_str_eq(d.msgs[0], "pw:1: NUL byte in line");
    lines_diag_free(&d);
}
END_TEST

START_TEST(long_line)
{
    struct htpasswd h;
    struct lines_diag d = {0};
    char *t = cases_long_line("", 'u', 1 << 20, ":" BCRYPT "\n");

    ck_assert_int_eq(htpasswd_parse(&h, t, strlen(t), "pw", &d), -EINVAL);
    ck_assert_str_eq(d.msgs[0], "pw:1: line longer than 1024 bytes");
    lines_diag_free(&d);
    free(t);
}
END_TEST

/* 100,000 users parse in well under a second; bad lines are capped. */
START_TEST(many_users)
{
    const size_t users = 100000;
    size_t cap = users * 80, len = 0;
    char *t = malloc(cap);
    struct htpasswd h;
    struct lines_diag d = {0};
    struct timespec t0, t1;

    for (size_t i = 0; i < users; i++)
        len += (size_t)snprintf(t + len, cap - len, "user%zu:%s\n", i, BCRYPT);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    ck_assert_int_eq(htpasswd_parse(&h, t, len, "pw", &d), 0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    ck_assert_uint_eq(h.n, users);
    ck_assert_ptr_nonnull(htpasswd_find(&h, "user99999"));
    ck_assert_ptr_nonnull(htpasswd_find(&h, "user0"));
    ck_assert_ptr_null(htpasswd_find(&h, "user100000"));
    fprintf(stderr, "htpasswd: %zu users parsed in %.1f ms\n", users,
            (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    htpasswd_free(&h);

    /* every line bad: 20 messages kept, the rest counted */
    for (size_t i = 0; i < len; i++)
        if (t[i] == '$' && t[i + 1] == '2')
            t[i + 2] = 'a';
    ck_assert_int_eq(htpasswd_parse(&h, t, len, "pw", &d), -EINVAL);
    ck_assert_uint_eq(d.n, LINES_DIAG_KEEP);
    ck_assert_uint_eq(lines_diag_count(&d), users);
    lines_diag_free(&d);
    free(t);
}
END_TEST

const struct check_main check_main = {
    .suite = "htpasswd",
    .tcases = {{"htpasswd", .loops = {LOOP(good_line), LOOP(bad_line)},
                .tests = {&structure, &long_line, &many_users}}}};
