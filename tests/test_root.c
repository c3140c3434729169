// SPDX-License-Identifier: MIT
/* test_root.c - root reload: new requests see the new tree, old fd lives. */
#include "resolver.h"
#include "root.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64], www[128], next[128], old[128];

static void setup(void)
{
    snprintf(dir, sizeof dir, "%s/beneath-root-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(www, sizeof www, "%s/www", dir);
    snprintf(next, sizeof next, "%s/next", dir);
    snprintf(old, sizeof old, "%s/old", dir);
    ck_assert_int_eq(mkdir(www, 0755), 0);
    ck_assert_int_eq(mkdir(next, 0755), 0);
    char p[192];
    snprintf(p, sizeof p, "%s/only-in-next", next);
    close(open(p, O_CREAT | O_WRONLY, 0644));
}

static void teardown(void)
{
    char p[192];
    /* the file is in next, or in www once a test has swapped them */
    snprintf(p, sizeof p, "%s/only-in-next", www);
    unlink(p);
    snprintf(p, sizeof p, "%s/only-in-next", next);
    unlink(p);
    rmdir(www);
    rmdir(old);
    rmdir(next);
    rmdir(dir);
}

static int has(int fd, const char *name)
{
    struct stat st;
    return fstatat(fd, name, &st, 0) == 0;
}

struct worker {
    struct root *r;
    int fd;
};

static void *first_fd(void *arg)
{
    struct worker *w = arg;
    w->fd = root_fd(w->r);
    return NULL;
}

START_TEST(reload_swaps)
{
    struct root *r;

    ck_assert_int_eq(root_open(www, 0, &r), 0);
    int fd1 = root_fd(r);
    ck_assert_int_ge(fd1, 0);
    ck_assert(!has(fd1, "only-in-next"));
    ck_assert_int_eq(root_fd(r), fd1);

    /* the deploy: mv www old; mv next www */
    ck_assert_int_eq(rename(www, old), 0);
    ck_assert_int_eq(rename(next, www), 0);
    /* before the reload, requests keep the old tree */
    ck_assert(!has(root_fd(r), "only-in-next"));
    ck_assert_int_eq(root_reload(r), 0);
    int fd2 = root_fd(r);
    ck_assert(has(fd2, "only-in-next"));

    /* a thread that started later sees the new root too */
    struct worker w = {.r = r, .fd = -1};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, first_fd, &w), 0);
    pthread_join(t, NULL);
    ck_assert(w.fd >= 0);
    root_close(r);
}
END_TEST

START_TEST(reload_failure_keeps_old)
{
    struct root *r;

    ck_assert_int_eq(root_open(www, 0, &r), 0);
    int fd1 = root_fd(r);
    ck_assert_int_eq(rmdir(www), 0);
    ck_assert_int_eq(root_reload(r), -ENOENT);
    ck_assert_int_eq(root_fd(r), fd1);
    ck_assert_int_eq(mkdir(www, 0755), 0);
    root_close(r);
}
END_TEST

/*
 * Each thread gets a resolver directory cache for the generation it uses
 * (none with 0); after a reload the one it gets serves the new fd.
 */
START_TEST(dir_cache_follows_generation)
{
    struct root *r;
    struct resolver_how how = {.open_flags = O_PATH,
                               .resolve = RESOLVER_BENEATH,
                               .backend = RESOLVER_BACKEND_EMULATED};

    ck_assert_int_eq(root_open(www, 0, &r), 0);
    ck_assert_int_ge(root_fd(r), 0);
    ck_assert_ptr_null(root_dir_cache(r));
    root_close(r);

    ck_assert_int_eq(root_open(www, 8, &r), 0);
    int fd1 = root_fd(r);
    how.cache = root_dir_cache(r);
    ck_assert_ptr_nonnull(how.cache);
    int f = resolver_open_how(fd1, ".", &how, NULL);
    ck_assert_int_ge(f, 0);
    close(f);
    ck_assert_int_eq(rename(www, old), 0);
    ck_assert_int_eq(rename(next, www), 0);
    ck_assert_int_eq(root_reload(r), 0);
    int fd2 = root_fd(r);
    how.cache = root_dir_cache(r);
    ck_assert_ptr_nonnull(how.cache);
    f = resolver_open_how(fd2, "only-in-next", &how, NULL);
    ck_assert_int_ge(f, 0);
    close(f);
    root_close(r);
}
END_TEST

START_TEST(open_errors)
{
    struct root *r = NULL;
    char p[192];

    snprintf(p, sizeof p, "%s/missing", dir);
    ck_assert_int_eq(root_open(p, 0, &r), -ENOENT);
    snprintf(p, sizeof p, "%s/only-in-next", next);
    ck_assert_int_eq(root_open(p, 0, &r), -ENOTDIR);
    root_close(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("root");
    TCase *tc = tcase_create("reload");
    SRunner *sr;
    int failed;

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, reload_swaps);
    tcase_add_test(tc, reload_failure_keeps_old);
    tcase_add_test(tc, open_errors);
    tcase_add_test(tc, dir_cache_follows_generation);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
