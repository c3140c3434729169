// SPDX-License-Identifier: MIT
/*
 * test_sites.c - the site directories of --sites (access/sites.c): a site
 * kept while its name names it, a new one after a swap (the old one still
 * good for whoever holds it), the bound on the sites kept and their fds,
 * links within DIR and out of it, the rule files, each thread's cache.
 */
#include "access/sites.h"
#include "check_main.h"
#include "fixture.h"
#include "resolver.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const tree[] = {
    "sites/",
    "sites/a.example/index.html=a",
    "sites/file.example=not a directory",
    "sites/.rel/v1/index.html=v1",
    "sites/in.example -> .rel/v1",
    "sites/up.example -> ..",
    "sites/b.example/_headers=/*\n  X-Site: b\n",
    "sites/c.example/_redirects=/x /y 999\n",
    "outside/secret=s",
};

static char dir[PATH_MAX];

static void setup(void)
{
    const char *bad;

    fixture_dir_setup();
    ck_assert_msg(fixture_build(fixture_dir, tree, N_ELEMS(tree), &bad) == 0,
                  "fixture entry %s", bad);
    snprintf(dir, sizeof dir, "%s", fixture_path("sites"));
    ck_assert_int_eq(
        symlink(fixture_path("outside"), fixture_path("sites/out.example")), 0);
}

static struct sites *open_sites(unsigned cache, uint64_t confine, bool files)
{
    struct sites_conf sc = {
        .dir = dir, .confine = confine, .cache = cache, .site_files = files};
    struct sites *s = NULL;

    ck_assert_int_eq(sites_open(&sc, &s), 0);
    return s;
}

/* Whether @name can be opened beneath the site directory @e. */
static bool has(const struct sites_entry *e, const char *name)
{
    int fd = resolver_open(sites_entry_fd(e), name, O_RDONLY, RESOLVER_BENEATH);

    if (fd >= 0)
        close(fd);
    return fd >= 0;
}

/* A site kept while its name names it; a new one once a tree is renamed
 * over it, the old one still good for its holder. */
START_TEST(kept_and_swapped)
{
    struct sites *s = open_sites(8, RESOLVER_BENEATH, false);
    struct sites_entry *e1, *e2, *e3;
    uint64_t hits, misses;

    ck_assert_int_eq(sites_get(s, "a.example", &e1), 0);
    ck_assert_str_eq(sites_entry_name(e1), "a.example");
    ck_assert_int_eq(sites_get(s, "a.example", &e2), 0);
    ck_assert_ptr_eq(e1, e2);
    sites_put(e2);
    sites_counts(s, &hits, &misses);
    ck_assert_uint_eq(hits, 1);
    ck_assert_uint_eq(misses, 1);

    ck_assert_int_eq(
        rename(fixture_path("sites/a.example"), fixture_path("sites/.a.old")),
        0);
    ck_assert_int_eq(sites_get(s, "a.example", &e2), -ENOENT);
    ck_assert_int_eq(mkdir(fixture_path("sites/a.example"), 0755), 0);
    ck_assert_int_eq(sites_get(s, "a.example", &e3), 0);
    ck_assert_ptr_ne(e3, e1);
    ck_assert(!has(e3, "index.html"));
    ck_assert(has(e1, "index.html")); /* the old tree, held */
    sites_put(e1);
    sites_put(e3);
    sites_free(s);
}
END_TEST

/* Past the bound the oldest go, fds with them; a held one outlives it. */
START_TEST(bounded)
{
    struct sites *s = open_sites(4, RESOLVER_BENEATH, false);
    struct sites_entry *held, *e;
    char name[32];
    int base;

    ck_assert_int_eq(sites_get(s, "a.example", &held), 0);
    base = fixture_count_fds();
    for (int i = 0; i < 50; i++) {
        snprintf(name, sizeof name, "sites/s%d.example", i);
        ck_assert_int_eq(mkdir(fixture_path(name), 0755), 0);
        ck_assert_int_eq(sites_get(s, name + strlen("sites/"), &e), 0);
        sites_put(e);
    }
    ck_assert_int_le(fixture_count_fds(), base + 4);
    ck_assert(has(held, "index.html"));
    sites_put(held);
    sites_free(s);
}
END_TEST

/* Site directories that are links: followed beneath DIR, refused out of
 * it, refused at all with no-symlinks; a file is not a site. */
START_TEST(links)
{
    struct sites *s = open_sites(8, RESOLVER_BENEATH, false);
    struct sites_entry *e;

    ck_assert_int_eq(sites_get(s, "in.example", &e), 0);
    ck_assert(has(e, "index.html"));
    sites_put(e);
    ck_assert_int_eq(sites_get(s, "in.example", &e), 0); /* kept */
    sites_put(e);
    ck_assert_int_eq(sites_get(s, "out.example", &e), -EXDEV);
    ck_assert_int_eq(sites_get(s, "up.example", &e), -EXDEV);
    ck_assert_int_eq(sites_get(s, "file.example", &e), -ENOTDIR);
    ck_assert_int_eq(sites_get(s, "none.example", &e), -ENOENT);
    ck_assert_int_eq(sites_exists(s, "in.example"), 1);
    ck_assert_int_eq(sites_exists(s, "none.example"), 0);
    ck_assert_int_eq(sites_exists(s, "file.example"), 0);
    ck_assert_int_eq(sites_exists(s, "out.example"), -EXDEV);
    sites_free(s);

    s = open_sites(8, RESOLVER_BENEATH | RESOLVER_NO_SYMLINKS, false);
    ck_assert_int_eq(sites_get(s, "in.example", &e), -ELOOP);
    ck_assert_int_eq(sites_get(s, "a.example", &e), 0);
    sites_put(e);
    sites_free(s);
}
END_TEST

/* With site files: a site's rules are its own; refused ones refuse it. */
START_TEST(rule_files)
{
    struct sites *s = open_sites(8, RESOLVER_BENEATH, true);
    struct sites_entry *e;

    ck_assert_int_eq(sites_get(s, "b.example", &e), 0);
    ck_assert_ptr_nonnull(sites_entry_rules(e));
    sites_put(e);
    ck_assert_int_eq(sites_get(s, "c.example", &e), -EINVAL);
    ck_assert_int_eq(sites_get(s, "c.example", &e), -EINVAL); /* kept so */
    ck_assert_int_eq(sites_get(s, "a.example", &e), 0);
    sites_put(e);
    sites_free(s);
}
END_TEST

/* Each thread's resolver cache follows the site it served last. */
START_TEST(thread_cache)
{
    struct sites_conf sc = {
        .dir = dir, .confine = RESOLVER_BENEATH, .cache = 8, .dir_cache = 4};
    struct sites *s;
    struct sites_entry *a, *in;
    struct resolver_cache *ca;

    ck_assert_int_eq(sites_open(&sc, &s), 0);
    ck_assert_int_eq(sites_get(s, "a.example", &a), 0);
    ck_assert_int_eq(sites_get(s, "in.example", &in), 0);
    ca = sites_thread_cache(s, a);
    ck_assert_ptr_nonnull(ca);
    ck_assert_ptr_eq(sites_thread_cache(s, a), ca);
    ck_assert_ptr_nonnull(sites_thread_cache(s, in));
    sites_put(a);
    sites_put(in);
    sites_free(s); /* the binding's reference goes with it */
}
END_TEST

const struct check_main check_main = {
    .suite = "sites",
    .tcases = {{"sites", setup, fixture_dir_teardown,
                .tests = {&kept_and_swapped, &bounded, &links, &rule_files,
                          &thread_cache}}}};
