/* SPDX-License-Identifier: MIT */
/*
 * test_resolver.h - what the resolver's test sources share: the fixture tree
 * made once per test process, the case table, and one case runner.
 */
#ifndef BENEATH_TESTS_TEST_RESOLVER_H
#define BENEATH_TESTS_TEST_RESOLVER_H

#include "check_main.h"
#include "resolver.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel's PATH_MAX: paths this long or longer are ENAMETOOLONG. */
#define TR_PATH_MAX 4096

/* The tmpdir ($TMPDIR/beneath-XXXXXX) and the resolver root inside it. */
extern char tr_tmp[1024];
extern char tr_root[1100];

/*
 * One row: resolve @path beneath @root (a directory below tr_root, NULL for
 * tr_root itself) with @oflags and @rflags; expect -@err, or (err == 0) the
 * file @want: relative to tr_root, an absolute host path, or "@secret" for
 * the file that exists only outside the root. @lex: the lexical backend must
 * give the same answer (false for every row about symlinks or security: the
 * lexical run skips those rows and says how many).
 */
/* The columns in the order a row reads; the padding is not worth a less
 * readable table. */
struct tr_case { // NOLINT(clang-analyzer-optin.performance.Padding)
    const char *root;
    const char *path;
    int oflags;
    uint64_t rflags;
    int err;
    const char *want;
    bool lex;
};

extern const struct tr_case tr_cases[];
extern const size_t tr_n_cases;

/*
 * A row resolved with directories a link may lead into: @into is a comma
 * list of directories of tr_tmp (resolver_how.into).
 */
struct tr_into_case {
    const char *into;
    struct tr_case c;
};

extern const struct tr_into_case tr_into_cases[];
extern const size_t tr_n_into_cases;

/* The path a row names (expands "@4095"-style generated paths). */
const char *tr_case_path(const struct tr_case *c, char *buf, size_t size);

/*
 * tr_run_case - run row @c with @backend (and the directories of the comma
 * list @into, or NULL); on a mismatch write why into @msg.
 * Returns true when the answer (and the backend that served) is right.
 */
bool tr_run_case(const struct tr_case *c, const char *into,
                 enum resolver_backend backend,
                 enum resolver_backend want_served, char *msg, size_t size);

/* The same with the root fd given, and a directory cache (or NULL). */
bool tr_run_case_at(const struct tr_case *c, const char *into, int root_fd,
                    struct resolver_cache *cache, enum resolver_backend backend,
                    enum resolver_backend want_served, char *msg, size_t size);

/*
 * tr_open_how - resolver_open_how, asked again while the kernel backend
 * answers EAGAIN and @want_eagain is false. openat2 gives EAGAIN for a ".."
 * when any rename or mount on the machine moved the kernel's sequence
 * counts during the walk; the backend tries RESOLVER_EAGAIN_RETRIES times,
 * and a test beside this one renaming in a loop (resolver_race, the deploy
 * tests) outlasted that in CI on a 40-".." row: a question of the machine,
 * not of the semantics the tests compare. Asked for up to 5 s, 1 ms apart;
 * EAGAIN after that is the answer. tr_kernel_eagain_asks counts the asks.
 */
int tr_open_how(int root_fd, const char *path, const struct resolver_how *how,
                enum resolver_backend *served, bool want_eagain);
extern long tr_kernel_eagain_asks;

/* Open a directory below tr_root (NULL: tr_root) as an O_PATH fd. */
int tr_open_root(const char *sub);

/*
 * tr_into_open - open the comma list @list of directories of tr_tmp into
 * @out (room for @max); their number, or -errno. tr_into_close closes @n.
 */
int tr_into_open(const char *list, struct resolver_into *out, size_t max);
void tr_into_close(struct resolver_into *d, size_t n);

/* The checked fixture every TCase uses: the fd count must not change. */
void tr_fd_setup(void);
void tr_fd_teardown(void);

/*
 * tr_suite - the suite @name of @tcases (check_suite_make), each with that
 * fixture unless it names its own checked fixture.
 */
Suite *tr_suite(const char *name, const struct check_tcase *tcases, size_t n);

/*
 * test_resolver_tree.c: tr_tree_setup makes the tree in a private mount
 * namespace and chdirs into it (0, or -1 said on stderr); tr_tree_remove
 * unmounts and removes it.
 */
int tr_tree_setup(void);
void tr_tree_remove(void);

/* test_resolver_cli.c */
Suite *resolver_cli_suite(void);

/* test_resolver_stress.c */
Suite *resolver_differential_suite(void);
Suite *resolver_race_suite(void);
Suite *resolver_fallback_suite(void);

/* test_resolver_cache.c */
Suite *resolver_cache_suite(void);

#endif
