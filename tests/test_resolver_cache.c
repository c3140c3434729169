/* SPDX-License-Identifier: MIT */
/*
 * test_resolver_cache.c - the emulated backend's directory cache: the case
 * table through it (cold and warm), and the changes it must notice, each
 * made for real (rename out of the root, exchange with a symlink, a mount on
 * top, rmdir and mkdir again, attribute change) with the kernel's answer
 * right after as the oracle; the changes it may ignore (files); filling up;
 * the API's refusals; a filesystem it must not cache (procfs).
 */
#include "fixture.h"
#include "test_resolver.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define OFLAGS (O_RDONLY | O_NONBLOCK)

static void table_cached(const struct tr_case *c, const char *into, int i)
{
    struct resolver_cache *cache;
    char msg[512];
    int root_fd = tr_open_root(c->root);

    ck_assert_int_ge(root_fd, 0);
    ck_assert_int_eq(resolver_cache_new(root_fd, 64, &cache), 0);
    /* Cold, then twice warm: the answers must not change. */
    for (int pass = 0; pass < 3; pass++)
        ck_assert_msg(
            tr_run_case_at(c, into, root_fd, cache, RESOLVER_BACKEND_EMULATED,
                           RESOLVER_BACKEND_EMULATED, msg, sizeof(msg)),
            "%srow %d, pass %d (cache): %s", into ? "into " : "", i, pass, msg);
    resolver_cache_free(cache);
    close(root_fd);
}

START_TEST(table)
{
    table_cached(&tr_cases[_i], NULL, _i);
}
END_TEST

START_TEST(into_table)
{
    table_cached(&tr_into_cases[_i].c, tr_into_cases[_i].into, _i);
}
END_TEST

/*
 * The scratch tree of the test that runs, made and removed around each of
 * the "changes" tests: tr_root/<name> and tr_tmp/<name>-out (the name is
 * the test's process id), and a cache of 64 directories.
 */
static struct {
    char in[PATH_MAX];
    char out[PATH_MAX];
    int root_fd;
    struct resolver_cache *cache;
} sc;

/* @base/@fmt..., in one of 4 rotating static buffers. */
__attribute__((format(printf, 2, 3))) static const char *
at(const char *base, const char *fmt, ...)
{
    static char buf[4][PATH_MAX];
    static int which;
    char *b = buf[which++ % 4];
    size_t n = (size_t)snprintf(b, PATH_MAX, "%s/", base);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(b + n, PATH_MAX - n, fmt, ap);
    va_end(ap);
    return b;
}

static void write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    ck_assert_msg(fd >= 0, "create %s: %s", path, strerror(errno));
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* Checked fixture: the fd count (tr_fd_setup), then the scratch tree. */
static void scratch_setup(void)
{
    static const char *const spec[] = {"a/b/f=abf", "a/g=ag", "m/x/f=mxf"};
    const char *bad = NULL;
    long name = (long)getpid();

    tr_fd_setup();
    snprintf(sc.in, sizeof(sc.in), "%s/%ld", tr_root, name);
    snprintf(sc.out, sizeof(sc.out), "%s/%ld-out", tr_tmp, name);
    ck_assert_int_eq(mkdir(sc.in, 0755), 0);
    ck_assert_int_eq(mkdir(sc.out, 0755), 0);
    ck_assert_msg(fixture_build(sc.in, spec, N_ELEMS(spec), &bad) == 0,
                  "fixture %s", bad ? bad : "?");
    sc.root_fd = tr_open_root(NULL);
    ck_assert_int_ge(sc.root_fd, 0);
    ck_assert_int_eq(resolver_cache_new(sc.root_fd, 64, &sc.cache), 0);
}

static void scratch_teardown(void)
{
    resolver_cache_free(sc.cache);
    close(sc.root_fd);
    umount2(at(sc.in, "m"), MNT_DETACH);
    ck_assert_int_eq(fixture_remove(sc.in), 0);
    ck_assert_int_eq(fixture_remove(sc.out), 0);
    tr_fd_teardown();
}

struct answer {
    int err;
    dev_t dev;
    ino_t ino;
};

static struct answer ask(const char *path, uint64_t rflags, bool cached)
{
    struct resolver_how how = {
        .open_flags = OFLAGS,
        .resolve = rflags,
        .backend = cached ? RESOLVER_BACKEND_EMULATED : RESOLVER_BACKEND_KERNEL,
        .cache = cached ? sc.cache : NULL,
    };
    struct answer a = {0, 0, 0};
    struct stat st;
    int fd = resolver_open_how(sc.root_fd, path, &how, NULL);

    if (fd < 0) {
        a.err = -fd;
        return a;
    }
    ck_assert_int_eq(fstat(fd, &st), 0);
    a.dev = st.st_dev;
    a.ino = st.st_ino;
    close(fd);
    return a;
}

static const char *name_of(int err)
{
    return err ? resolver_errno_name(err) : "an fd";
}

/*
 * Resolve @rel (below the scratch tree) with the cache and with the
 * kernel; they must agree, and the answer must be @want_err (0: a file).
 */
#define AGREE(rflags, want_err, ...)                                           \
    agree((rflags), (want_err), __FILE__, __LINE__, __VA_ARGS__)

__attribute__((format(printf, 5, 6))) static void
agree(uint64_t rflags, int want_err, const char *file, int line,
      const char *fmt, ...)
{
    char rel[PATH_MAX];
    char path[2 * PATH_MAX];
    struct answer c;
    struct answer k;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(rel, sizeof(rel), fmt, ap);
    va_end(ap);
    snprintf(path, sizeof(path), "%s/%s", strrchr(sc.in, '/') + 1, rel);
    c = ask(path, rflags, true);
    k = ask(path, rflags, false);
    ck_assert_msg(c.err == k.err && c.dev == k.dev && c.ino == k.ino,
                  "%s:%d: \"%s\": cache %s, kernel %s%s", file, line, path,
                  name_of(c.err), name_of(k.err),
                  !c.err && !k.err ? " (another file)" : "");
    ck_assert_msg(k.err == want_err, "%s:%d: \"%s\": %s, want %s", file, line,
                  path, name_of(k.err), name_of(want_err));
}

static struct resolver_cache_stats stats_of(const struct resolver_cache *c)
{
    struct resolver_cache_stats st;

    resolver_cache_get_stats(c, &st);
    return st;
}

/* The scratch tree's cache's. */
static struct resolver_cache_stats stats(void)
{
    return stats_of(sc.cache);
}

/* Warm the cache with a/b (and the scratch dir and a): 3 directories. */
static void warm(void)
{
    AGREE(RESOLVER_BENEATH, 0, "a/b/f");
    uint64_t hits = stats().hits;
    AGREE(RESOLVER_BENEATH, 0, "a/b/f");
    ck_assert_uint_ge(stats().hits, hits + 3);
}

/* A directory moved out of the root: never used again from the cache. */
START_TEST(moved_out)
{
    warm();
    ck_assert_uint_ge(stats().adds, 3);
    ck_assert_uint_eq(stats().dirs, 3);
    ck_assert_int_eq(rename(at(sc.in, "a/b"), at(sc.out, "b")), 0);
    write_file(at(sc.out, "b/secret"), "outside");
    AGREE(RESOLVER_BENEATH, ENOENT, "a/b/secret");
    AGREE(RESOLVER_IN_ROOT, ENOENT, "a/b/secret");
    AGREE(RESOLVER_BENEATH, ENOENT, "a/b/f");
    AGREE(RESOLVER_BENEATH, 0, "a/g");
    ck_assert_uint_ge(stats().rewalks, 1);
    /* Moved back, it is found again. */
    ck_assert_int_eq(rename(at(sc.out, "b"), at(sc.in, "a/b")), 0);
    AGREE(RESOLVER_BENEATH, 0, "a/b/secret");
}
END_TEST

/* An ancestor moved away and another directory put in its place. */
START_TEST(ancestor_replaced)
{
    warm();
    ck_assert_int_eq(rename(at(sc.in, "a"), at(sc.out, "a")), 0);
    ck_assert_int_eq(mkdir(at(sc.in, "a"), 0755), 0);
    ck_assert_int_eq(mkdir(at(sc.in, "a/b"), 0755), 0);
    write_file(at(sc.in, "a/b/new"), "new");
    AGREE(RESOLVER_BENEATH, ENOENT, "a/b/f");
    AGREE(RESOLVER_BENEATH, 0, "a/b/new");
}
END_TEST

/* RENAME_EXCHANGE of a cached directory with an absolute symlink. */
START_TEST(exchanged_with_symlink)
{
    char target[PATH_MAX];

    ck_assert_int_eq(mkdir(at(sc.out, "b"), 0755), 0);
    write_file(at(sc.out, "b/f"), "outside");
    warm();
    snprintf(target, sizeof(target), "%s", sc.out);
    ck_assert_int_eq(symlink(target, at(sc.in, "s")), 0);
    ck_assert_int_eq(renameat2(AT_FDCWD, at(sc.in, "a"), AT_FDCWD,
                               at(sc.in, "s"), RENAME_EXCHANGE),
                     0);
    AGREE(RESOLVER_BENEATH, EXDEV, "a/b/f");
    AGREE(RESOLVER_BENEATH | RESOLVER_NO_SYMLINKS, ELOOP, "a/b/f");
    AGREE(RESOLVER_BENEATH, 0, "s/b/f");
}
END_TEST

/* A mount on top of a cached directory, then gone again. */
START_TEST(mounted_over)
{
    AGREE(RESOLVER_NO_JUMPS, 0, "m/x/f");
    AGREE(RESOLVER_NO_JUMPS, 0, "m/x/f");
    ck_assert_int_eq(mount("tmpfs", at(sc.in, "m"), "tmpfs", 0, "size=64k"), 0);
    AGREE(RESOLVER_BENEATH, ENOENT, "m/x/f");
    ck_assert_int_eq(mkdir(at(sc.in, "m/x"), 0755), 0);
    write_file(at(sc.in, "m/x/f"), "on tmpfs");
    AGREE(RESOLVER_BENEATH, 0, "m/x/f");
    AGREE(RESOLVER_NO_JUMPS, EXDEV, "m/x/f");
    AGREE(RESOLVER_NO_JUMPS, EXDEV, "m/x/f");
    ck_assert_int_eq(umount2(at(sc.in, "m"), 0), 0);
    AGREE(RESOLVER_NO_JUMPS, 0, "m/x/f");
}
END_TEST

/* rmdir and mkdir of the same name: the new directory, not the old fd. */
START_TEST(recreated)
{
    warm();
    ck_assert_int_eq(unlink(at(sc.in, "a/b/f")), 0);
    ck_assert_int_eq(rmdir(at(sc.in, "a/b")), 0);
    ck_assert_int_eq(mkdir(at(sc.in, "a/b"), 0755), 0);
    write_file(at(sc.in, "a/b/f"), "again");
    AGREE(RESOLVER_BENEATH, 0, "a/b/f");
}
END_TEST

/* A directory's own attributes changing empties the cache. */
START_TEST(attributes)
{
    uint64_t flushes;

    warm();
    flushes = stats().flushes;
    ck_assert_int_eq(chmod(at(sc.in, "a"), 0700), 0);
    AGREE(RESOLVER_BENEATH, 0, "a/b/f");
    ck_assert_uint_eq(stats().flushes, flushes + 1);
}
END_TEST

/* Files coming and going in cached directories do not empty it. */
START_TEST(file_changes_kept)
{
    struct resolver_cache_stats before;

    warm();
    before = stats();
    write_file(at(sc.in, "a/b/tmp"), "x");
    ck_assert_int_eq(rename(at(sc.in, "a/b/tmp"), at(sc.in, "a/b/new")), 0);
    ck_assert_int_eq(chmod(at(sc.in, "a/b/new"), 0600), 0);
    ck_assert_int_eq(unlink(at(sc.in, "a/g")), 0);
    ck_assert_int_eq(symlink("b/new", at(sc.in, "a/g")), 0);
    AGREE(RESOLVER_BENEATH, 0, "a/b/new");
    AGREE(RESOLVER_BENEATH, ENOENT, "a/b/tmp");
    AGREE(RESOLVER_BENEATH, 0, "a/g");
    AGREE(RESOLVER_BENEATH | RESOLVER_NO_SYMLINKS, ELOOP, "a/g");
    ck_assert_uint_eq(stats().flushes, before.flushes);
    ck_assert_uint_ge(stats().hits, before.hits + 3);
}
END_TEST

/* A cache of 2 directories on a path of 3: it fills, empties, refills. */
START_TEST(full)
{
    resolver_cache_free(sc.cache);
    ck_assert_int_eq(resolver_cache_new(sc.root_fd, 2, &sc.cache), 0);
    for (int i = 0; i < 4; i++) {
        AGREE(RESOLVER_BENEATH, 0, "a/b/f");
        AGREE(RESOLVER_IN_ROOT, 0, "m/x/f");
    }
    ck_assert_uint_le(stats().dirs, 2);
    ck_assert_uint_ge(stats().flushes, 2);
}
END_TEST

/* @path below @root_fd opened with @how, and closed: it must open. */
static void open_ok(int root_fd, const char *path,
                    const struct resolver_how *how)
{
    int fd = resolver_open_how(root_fd, path, how, NULL);

    ck_assert_msg(fd >= 0, "%s: %s", path, strerror(-fd));
    close(fd);
}

START_TEST(api)
{
    struct resolver_cache *c = NULL;
    struct resolver_cache_stats st;
    struct resolver_how how = {.open_flags = O_PATH,
                               .resolve = RESOLVER_BENEATH,
                               .backend = RESOLVER_BACKEND_KERNEL};
    int root_fd = tr_open_root(NULL);
    int other_fd = tr_open_root("a");

    ck_assert_int_ge(root_fd, 0);
    ck_assert_int_ge(other_fd, 0);
    ck_assert_int_eq(resolver_cache_new(-1, 8, &c), -EBADF);
    ck_assert_int_eq(resolver_cache_new(AT_FDCWD, 8, &c), -EBADF);
    ck_assert_int_eq(resolver_cache_new(root_fd, 0, &c), -EINVAL);
    ck_assert_int_eq(resolver_cache_new(root_fd, 8, &c), 0);
    /* Made for another fd: refused, whatever the backend. */
    how.cache = c;
    ck_assert_int_eq(resolver_open_how(other_fd, "b", &how, NULL), -EINVAL);
    /* The kernel backend does not touch it. */
    open_ok(root_fd, "a/b/f", &how);
    st = stats_of(c);
    ck_assert_uint_eq(st.hits + st.misses + st.adds + st.flushes, 0);
    how.backend = RESOLVER_BACKEND_EMULATED;
    open_ok(root_fd, "a/b/f", &how);
    ck_assert_uint_eq(stats_of(c).adds, 2);
    ck_assert_int_eq(stats_of(c).off_errno, 0);
    resolver_cache_free(c);
    resolver_cache_free(NULL);
    close(other_fd);
    close(root_fd);
}
END_TEST

/* A cache of 8 on tr_root/<sub> (NULL: tr_root), and a how through it. */
struct cached_root {
    int fd;
    struct resolver_cache *cache;
    struct resolver_how how;
};

static void cached_root_open(struct cached_root *r, const char *sub)
{
    r->fd = tr_open_root(sub);
    ck_assert_int_ge(r->fd, 0);
    ck_assert_int_eq(resolver_cache_new(r->fd, 8, &r->cache), 0);
    r->how = (struct resolver_how){.open_flags = O_RDONLY,
                                   .resolve = RESOLVER_BENEATH,
                                   .backend = RESOLVER_BACKEND_EMULATED,
                                   .cache = r->cache};
}

static void cached_root_close(struct cached_root *r)
{
    resolver_cache_free(r->cache);
    close(r->fd);
}

/* procfs changes without events: a root there turns the cache off. */
START_TEST(procfs_off)
{
    struct cached_root r;

    cached_root_open(&r, "proc");
    for (int i = 0; i < 2; i++)
        open_ok(r.fd, "sys/kernel/ostype", &r.how);
    ck_assert_int_eq(stats_of(r.cache).off_errno, EXDEV);
    ck_assert_uint_eq(stats_of(r.cache).dirs, 0);
    ck_assert_uint_eq(stats_of(r.cache).hits, 0);
    cached_root_close(&r);
}
END_TEST

/* Directories on another mount (the fixture's bind mount) are not kept. */
START_TEST(other_mount_not_kept)
{
    struct cached_root r;

    cached_root_open(&r, NULL);
    for (int i = 0; i < 3; i++)
        open_ok(r.fd, "bind/b/f", &r.how);
    ck_assert_uint_eq(stats_of(r.cache).dirs, 0);
    r.how.resolve = RESOLVER_NO_JUMPS;
    ck_assert_int_eq(resolver_open_how(r.fd, "bind/b/f", &r.how, NULL), -EXDEV);
    open_ok(r.fd, "a/b/f", &r.how);
    ck_assert_uint_eq(stats_of(r.cache).dirs, 2);
    cached_root_close(&r);
}
END_TEST

Suite *resolver_cache_suite(void)
{
    const struct check_tcase tcases[] = {
        {"table", .loops = {{&table, (int)tr_n_cases},
                            {&into_table, (int)tr_n_into_cases}}},
        {"changes", scratch_setup, scratch_teardown,
         .tests = {&moved_out, &ancestor_replaced, &exchanged_with_symlink,
                   &mounted_over, &recreated, &attributes, &file_changes_kept,
                   &full}},
        {"api", .tests = {&api, &procfs_off, &other_mount_not_kept}},
    };

    return tr_suite("cache", tcases, N_ELEMS(tcases));
}
