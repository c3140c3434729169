/* SPDX-License-Identifier: MIT */
/*
 * test_access_candidates.c - the rules are judged on each file lookup
 * opens, not on the path that was asked (the third suite of
 * test_e2e_access): a refusal never turns into the fallback.
 */
#include "access.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * --fallback is the last candidate of a path not found, never the answer to
 * a path refused: a dotfile, a link out of the root, a site's rule file.
 */
START_TEST(fallback_not_for_refusals)
{
    char *d = tree_new(), *www = tree_path(d, "www");

    tree_build(d, "www/index.html=the app\n", "www/.git/config=[core]\n",
               "www/.env=SECRET=1\n", "outside.txt=outside\n",
               "www/out -> ../outside.txt", "www/_redirects=/old /new 301\n",
               NULL);
    struct server *s =
        start(www, (const char *[]){"--fallback", "index.html", "--site-files",
                                    "on", NULL});
    static const struct target_status refused[] = {
        {"/.git/config", 404}, {"/.env", 404},     {"/.git/", 404},
        {"/out", 403},         {"/_redirects", 404},
    };

    for (size_t i = 0; i < N_ELEMS(refused); i++) {
        expect_get(s, refused[i].target, refused[i].status, NULL);
        struct http_response *r = raw_request(
            s->port,
            hfmt("GET %s HTTP/1.1\r\nHost: x\r\nRange: bytes=0-3\r\n"
                 "Connection: close\r\n\r\n",
                 refused[i].target),
            10000);
        EXPECT(r->status == refused[i].status,
               "GET %s with Range: %d, want %d\n%s", refused[i].target,
               r->status, refused[i].status, r->head);
    }
    expect_get_body(s, "/no/such/page", "the app\n", "the fallback");
    expect_get_body(s, "/index.html/x", "the app\n", "ENOTDIR: the fallback");
    server_stop_clean(s);
}
END_TEST

Suite *access_candidates_suite(void)
{
    static const struct check_fixture fixture = HARNESS_FIXTURE(120);
    static const struct check_tcase tcases[] = {
        {"candidates", .tests = {&fallback_not_for_refusals}},
    };

    return check_suite_make("e2e_access", &fixture, tcases, N_ELEMS(tcases));
}
