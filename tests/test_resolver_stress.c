/* SPDX-License-Identifier: MIT */
/*
 * test_resolver_stress.c - the resolver against the kernel as oracle:
 * a differential run over generated paths and every flag combination, a
 * rename race that must never yield a file from outside the root, and the
 * auto backend's fallback when a seccomp filter blocks openat2.
 */
#include "test_resolver.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* Path components the generator draws from: every kind of entry. */
static const char *const atoms[] = {
    "a",          "b",           "c",
    "f",          "d",           "rel",
    "relf",       "up",          "esc",
    "back",       "back2",       "absf",
    "absab",      "abs_etc",     "absroot",
    "dotlink",    "loop1",       "selfloop",
    "chain",      "l00",         "l01",
    "l39",        "fifo",        "mnt",
    "x",          "sub",         "bind",
    "nosym",      "to_mnt",      "proc",
    "self",       "thread-self", "status",
    "cwd",        "root",        "exe",
    "fd",         "0",           "ns",
    "net",        "mounts",      "reldir_slash",
    "relf_slash", "lg1",         "missing",
    "etc",        "secret",      "r",
    "mv",         "..",          "..",
    "..",         ".",           "",
    "_static",    "jquery.js",   "jsdir",
    "popper.js",  "upup",        "jquery",
};

static const int oflag_sets[] = {
    O_PATH,
    O_PATH | O_NOFOLLOW,
    O_RDONLY | O_NONBLOCK,
    O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_DIRECTORY,
    O_RDONLY | O_DIRECTORY,
    O_PATH | O_DIRECTORY,
};

static const char *const diff_roots[] = {NULL, "mnt", "a/b", "proc"};

/* A small deterministic generator (xorshift), so a failure reproduces. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

struct answer {
    int err;
    dev_t dev;
    ino_t ino;
    struct resolver_escape e; /* on EXDEV, with diff_into */
};

/* The directories a link may lead into (js, nodejs), for the BENEATH flag
 * sets, and whether to use them. */
static struct resolver_into diff_into[2];
static size_t n_diff_into;

static struct answer ask(int root_fd, const char *path, int oflags,
                         uint64_t rflags, enum resolver_backend backend,
                         struct resolver_cache *cache, bool into)
{
    struct answer a = {0};
    struct resolver_how how = {.open_flags = oflags,
                               .resolve = rflags,
                               .backend = backend,
                               .cache = cache,
                               .into = into ? diff_into : NULL,
                               .n_into = into ? n_diff_into : 0,
                               .escape = into ? &a.e : NULL};
    struct stat st;
    int fd = tr_open_how(root_fd, path, &how, NULL, false);

    if (fd < 0) {
        a.err = -fd;
        if (a.err != EXDEV)
            a.e = (struct resolver_escape){.into = -1};
        return a;
    }
    a.e = (struct resolver_escape){.into = -1};
    if (fstat(fd, &st) == 0) {
        a.dev = st.st_dev;
        a.ino = st.st_ino;
    } else {
        a.err = -1;
    }
    close(fd);
    return a;
}

static long diff_cases;
static long diff_mismatches;

static bool same(const struct answer *a, const struct answer *b)
{
    return a->err == b->err && a->dev == b->dev && a->ino == b->ino &&
           strcmp(a->e.link, b->e.link) == 0 &&
           strcmp(a->e.target, b->e.target) == 0 && a->e.into == b->e.into;
}

/*
 * Compare the kernel with the emulation, and with the emulation using
 * @cache (made for @root_fd; it stays warm from one path to the next).
 */
static void diff_one(int root_fd, struct resolver_cache *cache,
                     const char *root, const char *path)
{
    for (uint64_t f = 0; f <= 2 * (uint64_t)RESOLVER_ALL_FLAGS + 1; f++) {
        /* the flag sets, then the BENEATH ones again with diff_into */
        uint64_t rf = f & RESOLVER_ALL_FLAGS;
        bool into = f > RESOLVER_ALL_FLAGS;

        if (resolver_flags_check(rf) < 0 ||
            (into && (!n_diff_into || !(rf & RESOLVER_BENEATH))))
            continue;
        for (size_t o = 0; o < N_ELEMS(oflag_sets); o++) {
            struct answer k = ask(root_fd, path, oflag_sets[o], rf,
                                  RESOLVER_BACKEND_KERNEL, NULL, into);
            struct answer e = ask(root_fd, path, oflag_sets[o], rf,
                                  RESOLVER_BACKEND_EMULATED, NULL, into);
            struct answer ec = ask(root_fd, path, oflag_sets[o], rf,
                                   RESOLVER_BACKEND_EMULATED, cache, into);

            diff_cases++;
            if (same(&k, &e) && same(&k, &ec))
                continue;
            if (diff_mismatches++ < 30) {
                char flags[128];

                resolver_flags_format(rf, flags, sizeof(flags));
                fprintf(stderr,
                        "differential: root %s path \"%s\" [%s%s] oflags %#x: "
                        "kernel %s (%s -> %s), emulated %s%s (%s -> %s), "
                        "emulated+cache %s%s\n",
                        root ? root : ".", path, flags, into ? " + into" : "",
                        oflag_sets[o],
                        k.err ? resolver_errno_name(k.err) : "fd", k.e.link,
                        k.e.target, e.err ? resolver_errno_name(e.err) : "fd",
                        !k.err && !e.err && !same(&k, &e) ? " (another file)"
                                                          : "",
                        e.e.link, e.e.target,
                        ec.err ? resolver_errno_name(ec.err) : "fd",
                        !k.err && !ec.err && !same(&k, &ec) ? " (another file)"
                                                            : "");
            }
        }
    }
}

static void diff_into_open(void)
{
    int n = tr_into_open("js,nodejs", diff_into, N_ELEMS(diff_into));

    ck_assert_int_eq(n, 2);
    n_diff_into = (size_t)n;
}

static void diff_into_close(void)
{
    tr_into_close(diff_into, n_diff_into);
    n_diff_into = 0;
}

START_TEST(differential)
{
    char path[TR_PATH_MAX];
    int root_fds[N_ELEMS(diff_roots)];
    struct resolver_cache *caches[N_ELEMS(diff_roots)];
    struct resolver_cache_stats st;

    diff_into_open();
    for (size_t r = 0; r < N_ELEMS(diff_roots); r++) {
        root_fds[r] = tr_open_root(diff_roots[r]);
        ck_assert_int_ge(root_fds[r], 0);
        /* Small, so that it also fills up and empties itself. */
        ck_assert_int_eq(resolver_cache_new(root_fds[r], 4, &caches[r]), 0);
    }
    /* Every path of one and two components, plain and absolute. */
    for (size_t i = 0; i < N_ELEMS(atoms); i++) {
        for (size_t j = 0; j <= N_ELEMS(atoms); j++) {
            const char *second = j < N_ELEMS(atoms) ? atoms[j] : NULL;

            snprintf(path, sizeof(path), "%s%s%s", atoms[i], second ? "/" : "",
                     second ? second : "");
            if (path[0] == '\0')
                continue;
            diff_one(root_fds[0], caches[0], NULL, path);
            if (j % 7 == 0) {
                char abs[TR_PATH_MAX + 1];

                snprintf(abs, sizeof(abs), "/%s", path);
                diff_one(root_fds[0], caches[0], NULL, abs);
            }
        }
    }
    /* Longer random paths from every root (TR_DIFF_PATHS, TR_DIFF_SEED
     * to run more or other ones by hand). */
    const char *env_n = getenv("TR_DIFF_PATHS");
    const char *env_seed = getenv("TR_DIFF_SEED");
    long paths = env_n ? strtol(env_n, NULL, 10) : 1200;

    if (env_seed && strtoull(env_seed, NULL, 0))
        rng_state = strtoull(env_seed, NULL, 0);
    for (long n = 0; n < paths; n++) {
        size_t r = rng() % N_ELEMS(diff_roots);
        int parts = 3 + (int)(rng() % 5);
        size_t len = 0;

        if (rng() % 8 == 0)
            path[len++] = '/';
        for (int p = 0; p < parts; p++) {
            const char *atom = atoms[rng() % N_ELEMS(atoms)];

            len += (size_t)snprintf(path + len, sizeof(path) - len, "%s%s",
                                    p ? "/" : "", atom);
        }
        if (rng() % 8 == 0)
            path[len++] = '/';
        path[len] = '\0';
        if (len == 0)
            continue;
        diff_one(root_fds[r], caches[r], diff_roots[r], path);
    }
    resolver_cache_get_stats(caches[0], &st);
    for (size_t r = 0; r < N_ELEMS(diff_roots); r++) {
        resolver_cache_free(caches[r]);
        close(root_fds[r]);
    }
    diff_into_close();
    printf("differential: %ld cases (kernel vs emulated vs emulated with the "
           "directory cache), %ld mismatches, %ld kernel EAGAINs asked again; "
           "the root's cache: %llu hits, %llu kept, %llu emptied\n",
           diff_cases, diff_mismatches, tr_kernel_eagain_asks,
           (unsigned long long)st.hits, (unsigned long long)st.adds,
           (unsigned long long)st.flushes);
    fflush(stdout);
    /* The cache must have served (and, being small, refilled). */
    ck_assert_uint_gt(st.hits, 1000);
    ck_assert_uint_gt(st.flushes, 0);
    ck_assert_msg(diff_mismatches == 0,
                  "%ld of %ld differential cases disagree (first ones on "
                  "stderr)",
                  diff_mismatches, diff_cases);
}
END_TEST

/* Row @c of a table again, through the differential's comparison. */
static void differential_row(const struct tr_case *c, int i)
{
    char pbuf[TR_PATH_MAX + 64];
    const char *path = tr_case_path(c, pbuf, sizeof(pbuf));
    int root_fd = tr_open_root(c->root);
    struct resolver_cache *cache;

    ck_assert_int_ge(root_fd, 0);
    ck_assert_int_eq(resolver_cache_new(root_fd, 64, &cache), 0);
    diff_into_open();
    diff_mismatches = 0;
    /* Twice: with the cache cold, then warm. */
    diff_one(root_fd, cache, c->root, path);
    diff_one(root_fd, cache, c->root, path);
    diff_into_close();
    resolver_cache_free(cache);
    close(root_fd);
    ck_assert_msg(diff_mismatches == 0, "row %d \"%s\": %ld mismatches", i,
                  path, diff_mismatches);
}

START_TEST(differential_table)
{
    differential_row(&tr_cases[_i], _i);
}
END_TEST

START_TEST(differential_into_table)
{
    differential_row(&tr_into_cases[_i].c, _i);
}
END_TEST

/*
 * Magic links whose targets are not paths: a pipe ("pipe:[N]"), an eventfd
 * ("anon_inode:[eventfd]"), a memfd ("/memfd:x (deleted)") and a deleted
 * file ("/.../gone (deleted)"), through /proc/self/fd, for every flag set.
 */
START_TEST(differential_magic)
{
    char path[TR_PATH_MAX];
    char gone[PATH_MAX];
    int pipefd[2];
    int fds[4];
    int root_fd = tr_open_root(NULL);
    struct resolver_cache *cache;

    ck_assert_int_ge(root_fd, 0);
    ck_assert_int_eq(resolver_cache_new(root_fd, 64, &cache), 0);
    ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
    fds[0] = pipefd[0];
    fds[1] = eventfd(0, EFD_CLOEXEC);
    fds[2] = memfd_create("x", MFD_CLOEXEC);
    snprintf(gone, sizeof(gone), "%s/gone", tr_tmp);
    fds[3] = open(gone, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    for (size_t i = 0; i < N_ELEMS(fds); i++)
        ck_assert_int_ge(fds[i], 0);
    ck_assert_int_eq(unlink(gone), 0);
    diff_mismatches = 0;
    for (size_t i = 0; i < N_ELEMS(fds); i++) {
        snprintf(path, sizeof(path), "proc/self/fd/%d", fds[i]);
        diff_one(root_fd, cache, NULL, path);
        snprintf(path, sizeof(path), "proc/self/fd/%d/", fds[i]);
        diff_one(root_fd, cache, NULL, path);
        snprintf(path, sizeof(path), "proc/self/fd/%d/x", fds[i]);
        diff_one(root_fd, cache, NULL, path);
    }
    resolver_cache_free(cache);
    for (size_t i = 0; i < N_ELEMS(fds); i++)
        close(fds[i]);
    close(pipefd[1]);
    close(root_fd);
    ck_assert_msg(diff_mismatches == 0, "%ld mismatches on magic links",
                  diff_mismatches);
}
END_TEST

Suite *resolver_differential_suite(void)
{
    const struct check_tcase tcases[] = {
        {"generated", .timeout = 600,
         .tests = {&differential, &differential_magic}},
        {"table-rows",
         .loops = {{&differential_table, (int)tr_n_cases},
                   {&differential_into_table, (int)tr_n_into_cases}}},
    };

    return tr_suite("differential", tcases, N_ELEMS(tcases));
}

/*
 * The rename race: root/r/mv moves to out/mv and back while walkers resolve
 * ".."-heavy paths through it. The secrets (tmp/secret, tmp/out/secret)
 * exist only outside the root and are reachable only by a ".." escape.
 */
#define RACE_RENAMES 4000
#define RACE_MIN_WALKS 3000

static atomic_bool race_done;
static struct stat secret1;
static struct stat secret2;

struct walker {
    uint64_t rflags;
    struct resolver_cache_stats st;
    long walks;
    long opened;
    long escaped;
    long eagain;
    enum resolver_backend backend;
    bool cached; /* with a directory cache of its own */
};

static const char *const race_paths[] = {
    "r/mv/../secret",
    "r/mv/d1/../../secret",
    "r/mv/d1/../../../secret",
    "r/mv/d1/../../../../secret",
    "r/mv/d1/../../out/secret",
    "r/mv/../../out/secret",
    "r/mv/d1/../../../out/secret",
    "r/mv/d1/../../../../out/secret",
    "r/mv/f",
};

static void *walk_thread(void *arg)
{
    struct walker *w = arg;
    struct resolver_cache *cache = NULL;
    int root_fd = tr_open_root(NULL);

    if (root_fd < 0)
        return NULL;
    if (w->cached && resolver_cache_new(root_fd, 64, &cache) < 0) {
        close(root_fd);
        return NULL;
    }
    while (w->walks < RACE_MIN_WALKS || !atomic_load(&race_done)) {
        const char *path = race_paths[w->walks % N_ELEMS(race_paths)];
        struct resolver_how how = {.open_flags = O_RDONLY | O_NONBLOCK,
                                   .resolve = w->rflags,
                                   .backend = w->backend,
                                   .cache = cache};
        int fd = resolver_open_how(root_fd, path, &how, NULL);
        struct stat st;

        w->walks++;
        if (fd == -EAGAIN)
            w->eagain++;
        if (fd < 0)
            continue;
        w->opened++;
        if (fstat(fd, &st) == 0 &&
            ((st.st_dev == secret1.st_dev && st.st_ino == secret1.st_ino) ||
             (st.st_dev == secret2.st_dev && st.st_ino == secret2.st_ino)))
            w->escaped++;
        close(fd);
    }
    if (cache) {
        resolver_cache_get_stats(cache, &w->st);
        resolver_cache_free(cache);
    }
    close(root_fd);
    return NULL;
}

START_TEST(rename_race)
{
    struct walker walkers[] = {
        {.backend = RESOLVER_BACKEND_KERNEL, .rflags = RESOLVER_BENEATH},
        {.backend = RESOLVER_BACKEND_KERNEL, .rflags = RESOLVER_IN_ROOT},
        {.backend = RESOLVER_BACKEND_EMULATED, .rflags = RESOLVER_BENEATH},
        {.backend = RESOLVER_BACKEND_EMULATED, .rflags = RESOLVER_IN_ROOT},
        {.backend = RESOLVER_BACKEND_EMULATED,
         .rflags = RESOLVER_BENEATH,
         .cached = true},
        {.backend = RESOLVER_BACKEND_EMULATED,
         .rflags = RESOLVER_IN_ROOT,
         .cached = true},
    };
    pthread_t threads[N_ELEMS(walkers)];
    char inside[PATH_MAX];
    char outside[PATH_MAX];
    char path[PATH_MAX];
    int renames = 0;

    snprintf(path, sizeof(path), "%s/secret", tr_tmp);
    ck_assert_int_eq(stat(path, &secret1), 0);
    snprintf(path, sizeof(path), "%s/out/secret", tr_tmp);
    ck_assert_int_eq(stat(path, &secret2), 0);
    snprintf(inside, sizeof(inside), "%s/r/mv", tr_root);
    snprintf(outside, sizeof(outside), "%s/out/mv", tr_tmp);
    atomic_store(&race_done, false);
    for (size_t i = 0; i < N_ELEMS(walkers); i++)
        ck_assert_int_eq(
            pthread_create(&threads[i], NULL, walk_thread, &walkers[i]), 0);
    for (int i = 0; i < RACE_RENAMES; i++) {
        if (rename(inside, outside) == 0)
            renames++;
        if (rename(outside, inside) == 0)
            renames++;
    }
    atomic_store(&race_done, true);
    for (size_t i = 0; i < N_ELEMS(walkers); i++)
        pthread_join(threads[i], NULL);
    ck_assert_int_eq(renames, 2L * RACE_RENAMES);
    for (size_t i = 0; i < N_ELEMS(walkers); i++) {
        char flags[64];

        resolver_flags_format(walkers[i].rflags, flags, sizeof(flags));
        printf("rename race: %s%s [%s]: %ld walks, %ld opened, %ld EAGAIN, "
               "%ld outside the root",
               resolver_backend_name(walkers[i].backend),
               walkers[i].cached ? "+cache" : "", flags, walkers[i].walks,
               walkers[i].opened, walkers[i].eagain, walkers[i].escaped);
        if (walkers[i].cached)
            printf("; cache: %llu hits, %llu emptied, %llu walked again",
                   (unsigned long long)walkers[i].st.hits,
                   (unsigned long long)walkers[i].st.flushes,
                   (unsigned long long)walkers[i].st.rewalks);
        printf("\n");
    }
    fflush(stdout);
    for (size_t i = 0; i < N_ELEMS(walkers); i++) {
        ck_assert_msg(
            walkers[i].escaped == 0, "%s: %ld opens of a file outside the root",
            resolver_backend_name(walkers[i].backend), walkers[i].escaped);
        /* The cached walkers must have used the cache and seen the moves. */
        ck_assert(!walkers[i].cached ||
                  (walkers[i].st.hits > 0 && walkers[i].st.flushes > 0));
    }
}
END_TEST

Suite *resolver_race_suite(void)
{
    static const struct check_tcase tcases[] = {
        {"rename", .timeout = 600, .tests = {&rename_race}}};

    return tr_suite("race", tcases, N_ELEMS(tcases));
}

/* The fallback: a seccomp filter answers openat2 with @err. */
#if defined(__x86_64__)
#define THIS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

static int block_openat2(int err)
{
    struct sock_filter filter[] = {
#ifdef THIS_AUDIT_ARCH
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
#endif
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
        BPF_STMT(BPF_RET | BPF_K,
                 SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {
        .len = (unsigned short)N_ELEMS(filter),
        .filter = filter,
    };

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return -errno;
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
        return -errno;
    return 0;
}

/* In the child: returns the number of failures, each said on stderr. */
static int fallback_child(int err, bool late)
{
    struct open_how_probe {
        uint64_t flags, mode, resolve;
    } probe = {O_PATH | O_CLOEXEC, 0, 0};
    const char *why = NULL;
    char msg[512];
    int failures = 0;
    int root_fd = tr_open_root(NULL);
    long fd;

    if (root_fd < 0)
        return 1;
    if (late) {
        struct resolver_how how = {.open_flags = O_PATH,
                                   .resolve = RESOLVER_BENEATH,
                                   .backend = RESOLVER_BACKEND_AUTO};
        enum resolver_backend served;
        int r = resolver_open_how(root_fd, "a", &how, &served);

        if (r < 0 || served != RESOLVER_BACKEND_KERNEL) {
            fprintf(stderr, "fallback: before the filter: %d served by %s\n", r,
                    resolver_backend_name(served));
            failures++;
        }
        if (r >= 0)
            close(r);
        /* EXDEV is an answer: it must not switch auto to the emulation. */
        r = resolver_open_how(root_fd, "../secret", &how, &served);
        if (r != -EXDEV || served != RESOLVER_BACKEND_KERNEL ||
            resolver_auto_backend(NULL) != RESOLVER_BACKEND_KERNEL) {
            fprintf(stderr, "fallback: EXDEV switched or misanswered (%d)\n",
                    r);
            failures++;
        }
    }
    if (block_openat2(err) < 0) {
        fprintf(stderr, "fallback: cannot install the seccomp filter: %s\n",
                strerror(errno));
        close(root_fd);
        return failures + 1;
    }
    fd = syscall(SYS_openat2, AT_FDCWD, "/", &probe, sizeof(probe));
    if (fd >= 0 || errno != err) {
        fprintf(stderr, "fallback: the filter does not block openat2\n");
        failures++;
    }
    for (size_t i = 0; i < tr_n_cases; i++) {
        if (!tr_run_case(&tr_cases[i], NULL, RESOLVER_BACKEND_AUTO,
                         RESOLVER_BACKEND_EMULATED, msg, sizeof(msg))) {
            fprintf(stderr, "fallback (%s%s): row %zu: %s\n",
                    resolver_errno_name(err), late ? ", late" : "", i, msg);
            failures++;
        }
    }
    for (size_t i = 0; i < tr_n_into_cases; i++) {
        const struct tr_into_case *r = &tr_into_cases[i];

        if (!tr_run_case(&r->c, r->into, RESOLVER_BACKEND_AUTO,
                         RESOLVER_BACKEND_EMULATED, msg, sizeof(msg))) {
            fprintf(stderr, "fallback (%s%s): into row %zu: %s\n",
                    resolver_errno_name(err), late ? ", late" : "", i, msg);
            failures++;
        }
    }
    /* And through auto with a directory cache, cold then warm. */
    for (size_t i = 0; i < tr_n_cases; i++) {
        int rfd = tr_open_root(tr_cases[i].root);
        struct resolver_cache *cache = NULL;

        if (rfd < 0 || resolver_cache_new(rfd, 64, &cache) < 0) {
            fprintf(stderr, "fallback: row %zu: no root or cache\n", i);
            failures++;
        }
        for (int pass = 0; cache && pass < 2; pass++) {
            if (!tr_run_case_at(&tr_cases[i], NULL, rfd, cache,
                                RESOLVER_BACKEND_AUTO,
                                RESOLVER_BACKEND_EMULATED, msg, sizeof(msg))) {
                fprintf(stderr, "fallback (%s%s) with a cache: row %zu: %s\n",
                        resolver_errno_name(err), late ? ", late" : "", i, msg);
                failures++;
            }
        }
        resolver_cache_free(cache);
        if (rfd >= 0)
            close(rfd);
    }
    if (resolver_auto_backend(&why) != RESOLVER_BACKEND_EMULATED || !why ||
        (strstr(why, "after start-up") != NULL) != late ||
        !strstr(why, resolver_errno_name(err))) {
        fprintf(stderr, "fallback: auto says \"%s\"\n", why ? why : "(null)");
        failures++;
    }
    close(root_fd);
    return failures;
}

static void run_fallback(int err, bool late)
{
    int status;
    pid_t pid;

    fflush(NULL);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int failures = fallback_child(err, late);

        fflush(NULL);
        _exit(failures > 100 ? 100 : failures);
    }
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status), "fallback child died (signal %d)",
                  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    ck_assert_msg(
        WEXITSTATUS(status) == 0, "fallback (%s%s): %d failures (see stderr)",
        resolver_errno_name(err), late ? ", late" : "", WEXITSTATUS(status));
}

START_TEST(fallback_enosys)
{
    run_fallback(ENOSYS, false);
}
END_TEST

START_TEST(fallback_eperm)
{
    run_fallback(EPERM, false);
}
END_TEST

START_TEST(fallback_late_enosys)
{
    run_fallback(ENOSYS, true);
}
END_TEST

START_TEST(fallback_late_eperm)
{
    run_fallback(EPERM, true);
}
END_TEST

Suite *resolver_fallback_suite(void)
{
    static const struct check_tcase tcases[] = {
        {"seccomp", .tests = {&fallback_enosys, &fallback_eperm,
                              &fallback_late_enosys, &fallback_late_eperm}}};

    return tr_suite("fallback", tcases, N_ELEMS(tcases));
}
