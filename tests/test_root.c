// SPDX-License-Identifier: MIT
/* test_root.c - a root pins the tree it opened; per-thread caches. */
#include "check_main.h"
#include "fixture.h"
#include "resolver.h"
#include "runtime/root.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char www[PATH_MAX], next[PATH_MAX], old[PATH_MAX];

static const char *const tree[] = {"www/", "next/only-in-next"};

static void setup(void)
{
    const char *bad;

    fixture_dir_setup();
    ck_assert_msg(fixture_build(fixture_dir, tree, N_ELEMS(tree), &bad) == 0,
                  "fixture entry %s", bad);
    snprintf(www, sizeof www, "%s", fixture_path("www"));
    snprintf(next, sizeof next, "%s", fixture_path("next"));
    snprintf(old, sizeof old, "%s", fixture_path("old"));
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

/*
 * A root is the tree its path named when it was opened: a deploy that
 * renames a new tree onto the path is the next serving process's, which
 * opens the path again (a SIGHUP); this one keeps serving the old tree.
 */
START_TEST(root_pins_its_tree)
{
    struct root *r, *r2;

    ck_assert_int_eq(root_open(www, 0, &r), 0);
    int fd1 = root_fd(r);
    ck_assert_int_ge(fd1, 0);
    ck_assert(!has(fd1, "only-in-next"));
    ck_assert_int_eq(root_fd(r), fd1);

    /* the deploy: mv www old; mv next www */
    ck_assert_int_eq(rename(www, old), 0);
    ck_assert_int_eq(rename(next, www), 0);
    ck_assert(!has(root_fd(r), "only-in-next"));
    /* what the next serving process opens */
    ck_assert_int_eq(root_open(www, 0, &r2), 0);
    ck_assert(has(root_fd(r2), "only-in-next"));

    /* a thread that started later gets the same tree */
    struct worker w = {.r = r, .fd = -1};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, first_fd, &w), 0);
    pthread_join(t, NULL);
    ck_assert(w.fd >= 0 && !has(w.fd, "only-in-next"));
    root_close(r2);
    root_close(r);
}
END_TEST

struct cached {
    struct root *r;
    const struct resolver_cache *cache;
};

static void *thread_cache(void *arg)
{
    struct cached *c = arg;

    (void)root_fd(c->r);
    c->cache = root_dir_cache(c->r);
    return NULL;
}

/* Each thread gets a resolver directory cache of its own (none with 0). */
START_TEST(dir_cache_per_thread)
{
    struct root *r;
    struct resolver_how how = {.open_flags = O_PATH,
                               .resolve = RESOLVER_BENEATH,
                               .backend = RESOLVER_BACKEND_EMULATED};

    ck_assert_int_eq(root_open(www, 0, &r), 0);
    ck_assert_int_ge(root_fd(r), 0);
    ck_assert_ptr_null(root_dir_cache(r));
    root_close(r);

    ck_assert_int_eq(root_open(next, 8, &r), 0);
    int fd1 = root_fd(r);
    how.cache = root_dir_cache(r);
    ck_assert_ptr_nonnull(how.cache);
    int f = resolver_open_how(fd1, "only-in-next", &how, NULL);
    ck_assert_int_ge(f, 0);
    close(f);
    struct cached other = {.r = r};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, thread_cache, &other), 0);
    pthread_join(t, NULL);
    ck_assert_ptr_nonnull(other.cache);
    ck_assert_ptr_ne(other.cache, how.cache);
    root_close(r);
}
END_TEST

/* Roots to open at once: more than the pthread keys a process has. */
#define MANY_ROOTS (PTHREAD_KEYS_MAX * 2)

struct many {
    struct root **r;
    int fds;    /* roots whose root_fd answered */
    int caches; /* and whose cache was there */
};

static void *use_many(void *arg)
{
    struct many *m = arg;

    for (int i = 0; i < MANY_ROOTS; i++) {
        m->fds += root_fd(m->r[i]) >= 0;
        m->caches += root_dir_cache(m->r[i]) != NULL;
    }
    return NULL;
}

/*
 * Roots take no pthread key each (PTHREAD_KEYS_MAX would cap --vhost and
 * --mount): a thread reads MANY_ROOTS of them, each with its own cache; the
 * slots freed are taken again by roots opened later.
 */
START_TEST(more_roots_than_keys)
{
    struct root **r = calloc(MANY_ROOTS, sizeof(struct root *));
    struct many m = {.r = r};
    pthread_t t;

    struct rlimit rl;

    ck_assert_ptr_nonnull(r);
    /* a root fd each, and some room */
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_cur < MANY_ROOTS + 64 && rl.rlim_max >= MANY_ROOTS + 64) {
        rl.rlim_cur = MANY_ROOTS + 64;
        ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    }
    for (int i = 0; i < MANY_ROOTS; i++)
        ck_assert_int_eq(root_open(www, 1, &r[i]), 0);
    ck_assert_int_eq(pthread_create(&t, NULL, use_many, &m), 0);
    pthread_join(t, NULL);
    ck_assert_int_eq(m.fds, MANY_ROOTS);
    ck_assert_int_eq(m.caches, MANY_ROOTS);
    for (int i = 0; i < MANY_ROOTS; i++)
        root_close(r[i]);
    /* again, in the slots given back, from a new thread */
    for (int i = 0; i < MANY_ROOTS; i++)
        ck_assert_int_eq(root_open(next, 1, &r[i]), 0);
    m = (struct many){.r = r};
    ck_assert_int_eq(pthread_create(&t, NULL, use_many, &m), 0);
    pthread_join(t, NULL);
    ck_assert_int_eq(m.fds, MANY_ROOTS);
    ck_assert(has(root_fd(r[MANY_ROOTS - 1]), "only-in-next"));
    for (int i = 0; i < MANY_ROOTS; i++)
        root_close(r[i]);
    free(r);
}
END_TEST

START_TEST(open_errors)
{
    struct root *r = NULL;

    ck_assert_int_eq(root_open(fixture_path("missing"), 0, &r), -ENOENT);
    ck_assert_int_eq(root_open(fixture_path("next/only-in-next"), 0, &r),
                     -ENOTDIR);
    root_close(NULL);
}
END_TEST

const struct check_main check_main = {
    .suite = "root",
    .tcases = {{"root", setup, fixture_dir_teardown,
                .tests = {&root_pins_its_tree, &open_errors,
                          &dir_cache_per_thread, &more_roots_than_keys}}}};
