/* SPDX-License-Identifier: MIT */
/*
 * test_resolver.c - the resolver's case table, run against every backend,
 * the beneath-resolve contract, and the test process's fixture: a private
 * mount namespace with a tree holding directories, files, relative and
 * absolute symlinks, escaping and returning links, chains, loops, 40 and 41
 * links, a FIFO, a tmpfs, a bind mount, a nosymfollow bind mount and procfs.
 */
#include "test_resolver.h"

#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif

char tr_tmp[1024];
char tr_root[1100];

#define B RESOLVER_BENEATH
#define IR RESOLVER_IN_ROOT
#define X RESOLVER_NO_XDEV
#define S RESOLVER_NO_SYMLINKS
#define M RESOLVER_NO_MAGICLINKS
#define J RESOLVER_NO_JUMPS
#define R (O_RDONLY | O_NONBLOCK)
#define P O_PATH
#define PN (O_PATH | O_NOFOLLOW)
#define RN (O_RDONLY | O_NONBLOCK | O_NOFOLLOW)
#define RD (O_RDONLY | O_DIRECTORY)
#define PD (O_PATH | O_DIRECTORY)

/* Rows: {root, path, oflags, rflags, err, want, lex}. */
const struct tr_case tr_cases[] = {
    /* plain walks */
    {NULL, "f", R, B, 0, "f", true},
    {NULL, "a/b/f", R, B, 0, "a/b/f", true},
    {NULL, "a/./b//f", R, B, 0, "a/b/f", true},
    {NULL, "a/b/../b/f", R, B, 0, "a/b/f", true},
    {NULL, ".", P, B, 0, ".", true},
    {NULL, "a/b/", P, B, 0, "a/b", true},
    {NULL, "a/b/", RD, B, 0, "a/b", true},
    {NULL, "a/b/c/..", P, IR, 0, "a/b", true},
    {NULL, "fifo", R, B, 0, "fifo", true},
    {NULL, "fifo", P, B, 0, "fifo", true},
    {NULL, "", R, B, ENOENT, NULL, true},
    {NULL, "", P, IR, ENOENT, NULL, true},
    {NULL, "missing", R, B, ENOENT, NULL, true},
    {NULL, "a/missing/f", R, B, ENOENT, NULL, true},
    {NULL, "@4095", R, B, 0, "f", true},
    {NULL, "@4096", R, B, ENAMETOOLONG, NULL, true},
    {NULL, "@longname", R, B, ENAMETOOLONG, NULL, true},
    {NULL, "f", RD, B, ENOTDIR, NULL, true},
    {NULL, "f", PD, B, ENOTDIR, NULL, true},
    {NULL, "f/", R, B, ENOTDIR, NULL, true},
    {NULL, "f/", P, IR, ENOTDIR, NULL, true},
    {NULL, "f/.", R, B, ENOTDIR, NULL, false},
    {NULL, "f/..", P, B, ENOTDIR, NULL, false},
    {NULL, "f/x", R, B, ENOTDIR, NULL, true},
    /* 40 directories deep: the fd stack leaves its inline frames */
    {NULL,
     "deep/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21/22/23/24/25/"
     "26/27/28/29/30/31/32/33/34/35/36/37/38/39/40/f",
     R, B, 0,
     "deep/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21/22/23/24/25/"
     "26/27/28/29/30/31/32/33/34/35/36/37/38/39/40/f",
     true},
    {NULL,
     "deep/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21/22/23/24/25/"
     "26/27/28/29/30/31/32/33/34/35/36/37/38/39/40/../../../../../../../../../"
     "../../../../../../../../../../../../../../../../../../../../../../../../"
     "../../../../../../../f",
     R, B, 0, "deep/f", true},
    {NULL,
     "deep/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21/22/23/24/25/"
     "26/27/28/29/30/31/32/33/34/35/36/37/38/39/40/../../../../../../../../../"
     "../../../../../../../../../../../../../../../../../../../../../../../../"
     "../../../../../../../../f",
     R, B, 0, "f", true},
    {NULL,
     "deep/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21/22/23/24/25/"
     "26/27/28/29/30/31/32/33/34/35/36/37/38/39/40/../../../../../../../../../"
     "../../../../../../../../../../../../../../../../../../../../../../../../"
     "../../../../../../../../../f",
     R, B, EXDEV, NULL, true},
    {NULL,
     "deep/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21/22/23/24/25/"
     "26/27/28/29/30/31/32/33/34/35/36/37/38/39/40/../../../../../../../../../"
     "../../../../../../../../../../../../../../../../../../../../../../../../"
     "../../../../../../../../../f",
     R, IR, 0, "f", true},
    /* escapes by ".." and absolute paths */
    {NULL, "..", P, B, EXDEV, NULL, true},
    {NULL, "../secret", R, B, EXDEV, NULL, true},
    {NULL, "a/../../secret", R, B, EXDEV, NULL, true},
    {NULL, "../root/f", R, B, EXDEV, NULL, true},
    {NULL, "/f", R, B, EXDEV, NULL, true},
    {NULL, "/", P, B, EXDEV, NULL, true},
    {NULL, "../f", R, IR, 0, "f", true},
    {NULL, "../../a/b/f", R, IR, 0, "a/b/f", true},
    {NULL, "a/../../../a/b/f", R, IR, 0, "a/b/f", true},
    {NULL, "/f", R, IR, 0, "f", true},
    {NULL, "//a/b/f", R, IR, 0, "a/b/f", true},
    {NULL, "/", P, IR, 0, ".", true},
    {NULL, "../secret", R, IR, ENOENT, NULL, true},
    {NULL, "../secret", R, 0, 0, "@secret", false},
    {NULL, "../secret", R, X, 0, "@secret", false},
    {NULL, "/", P, 0, 0, "/", false},
    /* relative symlinks */
    {NULL, "rel/f", R, B, 0, "a/b/f", false},
    {NULL, "relf", R, B, 0, "a/b/f", false},
    {NULL, "relf", P, B, 0, "a/b/f", false},
    {NULL, "relf", PN, B, 0, "relf", false},
    {NULL, "relf", RN, B, ELOOP, NULL, false},
    {NULL, "relf", PD | O_NOFOLLOW, B, ENOTDIR, NULL, false},
    {NULL, "relf", RD, B, ENOTDIR, NULL, false},
    {NULL, "rel", PN, B, 0, "rel", false},
    {NULL, "rel", RD, B, 0, "a/b", false},
    {NULL, "rel/", PN, B, 0, "a/b", false},
    {NULL, "rel/", RN, B, 0, "a/b", false},
    {NULL, "relf/", R, B, ENOTDIR, NULL, false},
    {NULL, "reldir_slash", R, B, 0, "a/b", false},
    {NULL, "relf_slash", R, B, ENOTDIR, NULL, false},
    {NULL, "relf_slash", P, IR, ENOTDIR, NULL, false},
    {NULL, "a/up", R, B, 0, "f", false},
    {NULL, "a/up/", R, B, ENOTDIR, NULL, false},
    {NULL, "dotlink/f", R, B, 0, "f", false},
    {NULL, "dotlink", P, B, 0, ".", false},
    {NULL, "dotlink/..", P, B, EXDEV, NULL, false},
    {NULL, "dotlink/..", P, IR, 0, ".", false},
    {NULL, "lg1/f", R, B, 0, "a/b/f", false},
    {NULL, "lg1/f", R, IR, 0, "a/b/f", false},
    /* escaping links, links that come back, absolute links */
    {NULL, "esc", R, B, EXDEV, NULL, false},
    {NULL, "esc", R, IR, ENOENT, NULL, false},
    {NULL, "esc", R, 0, 0, "@secret", false},
    {NULL, "back", R, B, EXDEV, NULL, false},
    {NULL, "back", R, IR, ENOENT, NULL, false},
    {NULL, "back", R, 0, 0, "f", false},
    {NULL, "a/back2", R, B, EXDEV, NULL, false},
    {NULL, "a/back2", R, 0, 0, "a/b/f", false},
    {NULL, "absf", R, B, EXDEV, NULL, false},
    {NULL, "absf", R, IR, 0, "f", false},
    {NULL, "absf", PN, B, 0, "absf", false},
    {NULL, "absab/f", R, B, EXDEV, NULL, false},
    {NULL, "absab/f", R, IR, 0, "a/b/f", false},
    {NULL, "absab/../../../f", R, IR, 0, "f", false},
    {NULL, "absroot", P, IR, 0, ".", false},
    {NULL, "absroot", P, B, EXDEV, NULL, false},
    {NULL, "absroot", P, 0, 0, "/", false},
    {NULL, "abs_etc", P, 0, 0, "/etc", false},
    {NULL, "abs_etc", P, B, EXDEV, NULL, false},
    {NULL, "abs_etc", P, IR, ENOENT, NULL, false},
    {NULL, "abs_etc", PN, B, 0, "abs_etc", false},
    /* unscoped NO_XDEV: the kernel refuses an absolute link until it has
     * set its root (an absolute path or a ".." does that) */
    {NULL, "abs_etc", P, X, EXDEV, NULL, false},
    {NULL, "a/../abs_etc", P, X, 0, "/etc", false},
    /* loops and the 40-link limit */
    {NULL, "loop1", R, B, ELOOP, NULL, false},
    {NULL, "loop1", R, 0, ELOOP, NULL, false},
    {NULL, "loop1", PN, B, 0, "loop1", false},
    {NULL, "selfloop/x", P, IR, ELOOP, NULL, false},
    {NULL, "chain/l00", R, B, ELOOP, NULL, false},
    {NULL, "chain/l01", R, B, 0, "f", false},
    {NULL, "chain/l01", R, IR, 0, "f", false},
    {NULL, "chain/l00", PN, B, 0, "chain/l00", false},
    /* NO_SYMLINKS */
    {NULL, "rel/f", R, B | S, ELOOP, NULL, false},
    {NULL, "relf", R, S, ELOOP, NULL, false},
    {NULL, "relf", P, S, ELOOP, NULL, false},
    {NULL, "relf", PN, S, 0, "relf", false},
    {NULL, "relf", RN, S, ELOOP, NULL, false},
    {NULL, "rel/", PN, S, ELOOP, NULL, false},
    {NULL, "a/b/f", R, B | S, 0, "a/b/f", true},
    {NULL, "absf", PN, IR | S, 0, "absf", false},
    /* mounts: tmpfs at mnt, bind of a at bind, NO_XDEV */
    {NULL, "mnt/x", R, B, 0, "mnt/x", true},
    {NULL, "mnt/x", R, B | X, EXDEV, NULL, false},
    {NULL, "mnt", P, B | X, EXDEV, NULL, false},
    {NULL, "mnt/", P, X, EXDEV, NULL, false},
    {NULL, "mnt", P, B, 0, "mnt", true},
    {NULL, "bind/b/f", R, B, 0, "a/b/f", true},
    {NULL, "bind/b/f", R, IR | X, EXDEV, NULL, false},
    {NULL, "bind", P, J, EXDEV, NULL, false},
    {NULL, "to_mnt", R, B, 0, "mnt/x", false},
    {NULL, "to_mnt", R, B | X, EXDEV, NULL, false},
    {NULL, "a/b/f", R, B | X, 0, "a/b/f", true},
    {NULL, "rel/f", R, J, 0, "a/b/f", false},
    /* up out of a mount: the root fd is the tmpfs */
    {"mnt", "../f", R, 0, 0, "f", false},
    {"mnt", "../f", R, X, EXDEV, NULL, false},
    {"mnt", "../f", R, IR | X, ENOENT, NULL, true},
    {"mnt", "up", R, 0, 0, "f", false},
    {"mnt", "up", R, X, EXDEV, NULL, false},
    {"mnt", "up", R, B, EXDEV, NULL, false},
    {"mnt", "sub/../x", R, J, 0, "mnt/x", true},
    {"mnt", "..", P, IR | X, 0, "mnt", true},
    /* MNT_NOSYMFOLLOW (a bind of a with nosymfollow) */
    {NULL, "nosym/up", R, B, ELOOP, NULL, false},
    {NULL, "nosym/up", PN, B, 0, "nosym/up", false},
    {NULL, "nosym/b/f", R, B, 0, "a/b/f", true},
    /* procfs: textual links are followed, magic links are not (scoped) */
    {NULL, "proc/self/status", R, B, 0, "proc/self/status", false},
    {NULL, "proc/thread-self/status", R, B, 0, "proc/thread-self/status",
     false},
    {NULL, "proc/mounts", R, IR, 0, "proc/self/mounts", false},
    {NULL, "proc/self/cwd", P, B, EXDEV, NULL, false},
    {NULL, "proc/self/cwd", P, IR, EXDEV, NULL, false},
    {NULL, "proc/self/cwd", P, M, ELOOP, NULL, false},
    {NULL, "proc/self/cwd", P, B | M, ELOOP, NULL, false},
    {NULL, "proc/self/cwd", P, 0, 0, "d", false},
    {NULL, "proc/self/cwd/", P, 0, 0, "d", false},
    {NULL, "proc/self/cwd/../f", R, 0, 0, "f", false},
    {NULL, "proc/self/cwd", PN, B, 0, "proc/self/cwd", false},
    {NULL, "proc/self/cwd/", PN, B, EXDEV, NULL, false},
    {NULL, "proc/self/cwd/x", P, IR, EXDEV, NULL, false},
    {NULL, "proc/self/root", P, 0, 0, "/", false},
    {NULL, "proc/self/root/etc", P, 0, 0, "/etc", false},
    {NULL, "proc/self/root/etc", P, B, EXDEV, NULL, false},
    {NULL, "proc/self/exe", P, B, EXDEV, NULL, false},
    {NULL, "proc/self/exe", P, M, ELOOP, NULL, false},
    {NULL, "proc/self/fd/0", R, B, EXDEV, NULL, false},
    {NULL, "proc/self/fd/0", R, IR, EXDEV, NULL, false},
    {NULL, "proc/self/fd/0", R, J, EXDEV, NULL, false},
    {NULL, "proc/self/ns/net", P, M, ELOOP, NULL, false},
    {NULL, "proc/self/ns/net", P, B, EXDEV, NULL, false},
    {"proc", "self/exe", P, J, ELOOP, NULL, false},
    {"proc", "self/cwd", P, X, EXDEV, NULL, false},
    {"proc", "self/cwd", P, 0, 0, "d", false},
    {"proc", "self/status", R, X, 0, "proc/self/status", false},
    {"proc", "self/cwd", P, IR, EXDEV, NULL, false},
    /* argument checks */
    {NULL, "f", R, B | IR, EINVAL, NULL, true},
    {NULL, "f", R, 0x80, EINVAL, NULL, true},
    {NULL, "f", O_WRONLY, B, EINVAL, NULL, true},
    {NULL, "f", O_PATH | O_NONBLOCK, B, EINVAL, NULL, true},
};
const size_t tr_n_cases = N_ELEMS(tr_cases);

const char *tr_case_path(const struct tr_case *c, char *buf, size_t size)
{
    size_t n;

    if (c->path[0] != '@')
        return c->path;
    if (strcmp(c->path, "@longname") == 0) {
        n = 300 < size - 1 ? 300 : size - 1;
        memset(buf, 'n', n);
        buf[n] = '\0';
        return buf;
    }
    /* "@4095": "./" repeated, then "f", 4095 bytes; "@4096": one more */
    n = (size_t)atoi(c->path + 1);
    if (n + 1 > size)
        n = size - 1;
    for (size_t i = 0; i + 1 < n; i += 2)
        memcpy(buf + i, "./", 2);
    buf[n - 1] = 'f';
    buf[n] = '\0';
    return buf;
}

int tr_open_root(const char *sub)
{
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%s%s%s", tr_root, sub ? "/" : "",
             sub ? sub : "");
    return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static void want_path(const char *want, char *buf, size_t size)
{
    if (strcmp(want, "@secret") == 0)
        snprintf(buf, size, "%s/secret", tr_tmp);
    else if (want[0] == '/')
        snprintf(buf, size, "%s", want);
    else
        snprintf(buf, size, "%s/%s", tr_root, want);
}

static const char *err_name(int err)
{
    const char *n = resolver_errno_name(err);

    return n ? n : "E?";
}

bool tr_run_case(const struct tr_case *c, enum resolver_backend backend,
                 enum resolver_backend want_served, char *msg, size_t size)
{
    int root_fd = tr_open_root(c->root);
    bool ok;

    if (root_fd < 0) {
        snprintf(msg, size, "cannot open root %s: %s", c->root,
                 strerror(errno));
        return false;
    }
    ok = tr_run_case_at(c, root_fd, NULL, backend, want_served, msg, size);
    close(root_fd);
    return ok;
}

bool tr_run_case_at(const struct tr_case *c, int root_fd,
                    struct resolver_cache *cache, enum resolver_backend backend,
                    enum resolver_backend want_served, char *msg, size_t size)
{
    char pbuf[TR_PATH_MAX + 64];
    char wbuf[PATH_MAX];
    char flags[128];
    const char *path = tr_case_path(c, pbuf, sizeof(pbuf));
    struct resolver_how how = {
        .open_flags = c->oflags,
        .resolve = c->rflags,
        .backend = backend,
        .cache = cache,
    };
    enum resolver_backend served = RESOLVER_BACKEND_DEFAULT;
    struct stat got;
    struct stat want;
    bool ok = true;
    int fd;

    resolver_flags_format(c->rflags, flags, sizeof(flags));
    msg[0] = '\0';
    fd = resolver_open_how(root_fd, path, &how, &served);
    if (c->err) {
        if (fd != -c->err) {
            snprintf(msg, size,
                     "%s: [%s] \"%.60s\" oflags %#x: got %s, want %s",
                     resolver_backend_name(backend), flags, path, c->oflags,
                     fd >= 0 ? "an fd" : err_name(-fd), err_name(c->err));
            ok = false;
        }
    } else if (fd < 0) {
        snprintf(msg, size, "%s: [%s] \"%.60s\" oflags %#x: got %s, want %s",
                 resolver_backend_name(backend), flags, path, c->oflags,
                 err_name(-fd), c->want);
        ok = false;
    } else {
        want_path(c->want, wbuf, sizeof(wbuf));
        if (fstat(fd, &got) < 0 || lstat(wbuf, &want) < 0 ||
            got.st_dev != want.st_dev || got.st_ino != want.st_ino) {
            snprintf(msg, size, "%s: [%s] \"%.60s\": not the file %s",
                     resolver_backend_name(backend), flags, path, wbuf);
            ok = false;
        } else if (!(fcntl(fd, F_GETFD) & FD_CLOEXEC)) {
            snprintf(msg, size, "%s: \"%s\": no O_CLOEXEC",
                     resolver_backend_name(backend), path);
            ok = false;
        }
    }
    if (fd >= 0)
        close(fd);
    if (ok && served != want_served) {
        snprintf(msg, size, "%s: \"%.60s\": served by %s, want %s",
                 resolver_backend_name(backend), path,
                 resolver_backend_name(served),
                 resolver_backend_name(want_served));
        ok = false;
    }
    return ok;
}

static int fds_before;

void tr_fd_setup(void)
{
    fds_before = fixture_count_fds();
}

void tr_fd_teardown(void)
{
    int now = fixture_count_fds();

    ck_assert_msg(now == fds_before, "fd leak: %d open fds before, %d after",
                  fds_before, now);
}

static void table_run(int i, enum resolver_backend backend)
{
    enum resolver_backend served = backend;
    char msg[512];

    if (backend == RESOLVER_BACKEND_AUTO)
        served = resolver_auto_backend(NULL);
    ck_assert_msg(tr_run_case(&tr_cases[i], backend, served, msg, sizeof(msg)),
                  "row %d: %s", i, msg);
}

START_TEST(table_kernel)
{
    table_run(_i, RESOLVER_BACKEND_KERNEL);
}
END_TEST

START_TEST(table_emulated)
{
    table_run(_i, RESOLVER_BACKEND_EMULATED);
}
END_TEST

START_TEST(table_auto)
{
    table_run(_i, RESOLVER_BACKEND_AUTO);
}
END_TEST

/*
 * The lexical backend runs only the rows marked lex: on the others (symlinks,
 * mounts, procfs) it is unsafe by design and answers differently. Those are
 * not registered, so Check counts only the rows it runs; the number left out
 * is printed, and ctest shows it as the skipped resolver_lexical_unsafe.
 */
static int lex_rows[N_ELEMS(tr_cases)];
static int n_lex_rows;

static void lex_rows_fill(void)
{
    n_lex_rows = 0;
    for (size_t i = 0; i < tr_n_cases; i++)
        if (tr_cases[i].lex)
            lex_rows[n_lex_rows++] = (int)i;
}

static void print_lexical_skips(void)
{
    printf("lexical: %zu rows skipped (unsafe baseline)\n",
           tr_n_cases - (size_t)n_lex_rows);
    fflush(stdout);
}

START_TEST(table_lexical)
{
    table_run(lex_rows[_i], RESOLVER_BACKEND_LEXICAL);
}
END_TEST

/* The process default backend is what resolver_open uses. */
START_TEST(default_backend)
{
    int root_fd = tr_open_root(NULL);
    int fd;

    ck_assert_int_ge(root_fd, 0);
    ck_assert_int_eq(resolver_get_backend(), RESOLVER_BACKEND_AUTO);
    ck_assert_int_eq(resolver_set_backend(RESOLVER_BACKEND_DEFAULT), -EINVAL);
    ck_assert_int_eq(resolver_set_backend(RESOLVER_BACKEND_LEXICAL), 0);
    fd = resolver_open(root_fd, "abs_etc", O_PATH, RESOLVER_IN_ROOT);
    ck_assert_int_ge(fd, 0); /* lexical follows the link out: unsafe */
    close(fd);
    ck_assert_int_eq(resolver_set_backend(RESOLVER_BACKEND_EMULATED), 0);
    fd = resolver_open(root_fd, "abs_etc", O_PATH, RESOLVER_IN_ROOT);
    ck_assert_int_eq(fd, -ENOENT);
    ck_assert_int_eq(resolver_set_backend(RESOLVER_BACKEND_AUTO), 0);
    close(root_fd);
}
END_TEST

/* AT_FDCWD as the root: the walk starts at the working directory (d). */
START_TEST(root_at_fdcwd)
{
    enum resolver_backend backends[] = {RESOLVER_BACKEND_KERNEL,
                                        RESOLVER_BACKEND_EMULATED};

    for (size_t i = 0; i < N_ELEMS(backends); i++) {
        struct resolver_how how = {.open_flags = O_PATH,
                                   .resolve = RESOLVER_BENEATH,
                                   .backend = backends[i]};
        int fd = resolver_open_how(AT_FDCWD, "..", &how, NULL);

        ck_assert_int_eq(fd, -EXDEV);
        how.resolve = RESOLVER_IN_ROOT;
        fd = resolver_open_how(AT_FDCWD, "../../..", &how, NULL);
        ck_assert_int_ge(fd, 0);
        close(fd);
        how.resolve = 0;
        fd = resolver_open_how(AT_FDCWD, "../f", &how, NULL);
        ck_assert_int_ge(fd, 0);
        close(fd);
    }
}
END_TEST

/* A root fd that is not a directory, and one that is not an fd at all. */
START_TEST(bad_root)
{
    enum resolver_backend backends[] = {RESOLVER_BACKEND_KERNEL,
                                        RESOLVER_BACKEND_EMULATED};
    char path[PATH_MAX];
    int file_fd;

    snprintf(path, sizeof(path), "%s/f", tr_root);
    file_fd = open(path, O_PATH | O_CLOEXEC);
    ck_assert_int_ge(file_fd, 0);
    for (size_t i = 0; i < N_ELEMS(backends); i++) {
        static const char *const paths[] = {"x", ".", "..", "a/..", "/x"};
        static const uint64_t flags[] = {RESOLVER_BENEATH, RESOLVER_IN_ROOT, 0};

        for (size_t p = 0; p < N_ELEMS(paths); p++) {
            for (size_t f = 0; f < N_ELEMS(flags); f++) {
                struct resolver_how kh = {.open_flags = O_PATH,
                                          .resolve = flags[f],
                                          .backend = RESOLVER_BACKEND_KERNEL};
                struct resolver_how how = kh;
                int kfd;
                int fd;

                how.backend = backends[i];
                kfd = resolver_open_how(file_fd, paths[p], &kh, NULL);
                fd = resolver_open_how(file_fd, paths[p], &how, NULL);
                ck_assert_msg((kfd < 0 && fd == kfd) || (kfd >= 0 && fd >= 0),
                              "file root \"%s\" flags %#llx: kernel %d, %s %d",
                              paths[p], (unsigned long long)flags[f], kfd,
                              resolver_backend_name(backends[i]), fd);
                if (kfd >= 0)
                    close(kfd);
                if (fd >= 0)
                    close(fd);
                kfd = resolver_open_how(9999, paths[p], &kh, NULL);
                fd = resolver_open_how(9999, paths[p], &how, NULL);
                ck_assert_msg(fd == kfd || (kfd >= 0 && fd >= 0),
                              "bad fd \"%s\": kernel %d, %s %d", paths[p], kfd,
                              resolver_backend_name(backends[i]), fd);
                if (kfd >= 0)
                    close(kfd);
                if (fd >= 0)
                    close(fd);
            }
        }
    }
    close(file_fd);
}
END_TEST

START_TEST(names)
{
    const char *bad = NULL;
    size_t bad_len = 0;
    enum resolver_backend be;
    uint64_t flags;
    char buf[128];

    ck_assert_int_eq(resolver_flags_parse("no-jumps", &flags, NULL, NULL), 0);
    ck_assert_uint_eq(flags, RESOLVER_NO_JUMPS);
    ck_assert_int_eq(
        resolver_flags_parse("beneath,bogus", &flags, &bad, &bad_len), -EINVAL);
    ck_assert_int_eq((int)bad_len, 5);
    ck_assert_int_eq(strncmp(bad, "bogus", 5), 0);
    ck_assert_int_eq(resolver_flags_parse("", &flags, NULL, NULL), 0);
    ck_assert_uint_eq(flags, 0);
    ck_assert_int_eq(resolver_flags_parse("beneath,", &flags, NULL, NULL),
                     -EINVAL);
    ck_assert_uint_eq(
        resolver_flags_format(RESOLVER_NO_JUMPS, buf, sizeof(buf)),
        strlen("beneath,no-xdev,no-magiclinks"));
    ck_assert_str_eq(buf, "beneath,no-xdev,no-magiclinks");
    resolver_flags_format(0, buf, sizeof(buf));
    ck_assert_str_eq(buf, "none");
    ck_assert_int_eq(resolver_backend_parse("emulated", &be), 0);
    ck_assert_int_eq(be, RESOLVER_BACKEND_EMULATED);
    ck_assert_int_eq(resolver_backend_parse("default", &be), -EINVAL);
    ck_assert_str_eq(resolver_errno_name(EXDEV), "EXDEV");
    ck_assert_ptr_null(resolver_errno_name(12345));
}
END_TEST

/* Run beneath-resolve; returns its exit status, stdout in @out. */
static int run_cli(char *out, size_t size, const char *const *args)
{
    const char *argv[16];
    int pipefd[2];
    size_t n = 0;
    size_t argc = 0;
    int status;
    pid_t pid;

    argv[argc++] = BENEATH_RESOLVE_PATH;
    for (; *args && argc < N_ELEMS(argv) - 1; args++)
        argv[argc++] = *args;
    argv[argc] = NULL;
    ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);

        dup2(pipefd[1], 1);
        if (null >= 0)
            dup2(null, 2);
        execv(argv[0], (char *const *)(uintptr_t)argv);
        _exit(127);
    }
    close(pipefd[1]);
    for (;;) {
        ssize_t r = read(pipefd[0], out + n, size - 1 - n);

        if (r <= 0)
            break;
        n += (size_t)r;
    }
    out[n] = '\0';
    close(pipefd[0]);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static const struct {
    const char *args[8]; /* "ROOT" is replaced by the fixture root */
    int status;
    const char *out; /* "ROOT" in it likewise; NULL: not checked */
} cli_cases[] = {
    {{"--backend", "emulated", "--oflags", "rdonly", "ROOT", "a/b/f"},
     0,
     "ok emulated ROOT/a/b/f\n"},
    {{"--backend", "kernel", "ROOT", "rel"}, 0, "ok kernel ROOT/a/b\n"},
    {{"--backend", "lexical", "ROOT", "a/../f"}, 0, "ok lexical ROOT/f\n"},
    {{"--nofollow", "--backend", "emulated", "ROOT", "relf"},
     0,
     "ok emulated ROOT/relf\n"},
    {{"--flags", "in-root", "--backend", "kernel", "ROOT", "/a/b/../b/f"},
     0,
     "ok kernel ROOT/a/b/f\n"},
    {{"--oflags", "path,directory", "--backend", "emulated", "ROOT", "d"},
     0,
     "ok emulated ROOT/d\n"},
    {{"ROOT", "../secret"}, 1, "EXDEV\n"},
    {{"--backend", "emulated", "ROOT", "esc"}, 1, "EXDEV\n"},
    {{"--flags", "no-symlinks", "--oflags", "rdonly", "ROOT", "relf"},
     1,
     "ELOOP\n"},
    {{"--flags", "in-root", "ROOT", "missing"}, 1, "ENOENT\n"},
    {{"--oflags", "rdonly,directory", "ROOT", "f"}, 1, "ENOTDIR\n"},
    {{"--flags", "no-jumps", "ROOT", "mnt/x"}, 1, "EXDEV\n"},
    {{"--oflags", "rdonly", "ROOT", "fifo"}, 0, NULL},
    {{"--flags", "bogus", "ROOT", "f"}, 2, ""},
    {{"--flags", "beneath,in-root", "ROOT", "f"}, 2, ""},
    {{"--backend", "nope", "ROOT", "f"}, 2, ""},
    {{"--oflags", "write", "ROOT", "f"}, 2, ""},
    {{"ROOT"}, 2, ""},
    {{"ROOT", "f", "g"}, 2, ""},
    {{"--frobnicate", "ROOT", "f"}, 2, ""},
    {{"/nonexistent-root-dir", "f"}, 2, ""},
};

static void subst_root(const char *in, char *out, size_t size)
{
    const char *at = strstr(in, "ROOT");

    if (!at)
        snprintf(out, size, "%s", in);
    else
        snprintf(out, size, "%.*s%s%s", (int)(at - in), in, tr_root, at + 4);
}

START_TEST(cli)
{
    char argbuf[8][PATH_MAX];
    const char *args[9];
    char want[PATH_MAX + 64];
    char out[PATH_MAX + 64];
    size_t n = 0;
    int st;

    for (; n < 8 && cli_cases[_i].args[n]; n++) {
        subst_root(cli_cases[_i].args[n], argbuf[n], sizeof(argbuf[n]));
        args[n] = argbuf[n];
    }
    args[n] = NULL;
    st = run_cli(out, sizeof(out), args);
    ck_assert_msg(st == cli_cases[_i].status, "case %d: exit %d, want %d (%s)",
                  _i, st, cli_cases[_i].status, out);
    if (cli_cases[_i].out) {
        subst_root(cli_cases[_i].out, want, sizeof(want));
        ck_assert_str_eq(out, want);
    } else {
        ck_assert_int_eq(strncmp(out, "ok ", 3), 0);
    }
}
END_TEST

static Suite *resolver_suite(void)
{
    Suite *s = suite_create("table");
    TCase *tc;
    const struct {
        const char *name;
        const TTest *test;
        int rows;
    } per_backend[] = {
        {"kernel", table_kernel, (int)tr_n_cases},
        {"emulated", table_emulated, (int)tr_n_cases},
        {"auto", table_auto, (int)tr_n_cases},
        {"lexical", table_lexical, n_lex_rows},
    };

    for (size_t i = 0; i < N_ELEMS(per_backend); i++) {
        tc = tcase_create(per_backend[i].name);
        tcase_add_checked_fixture(tc, tr_fd_setup, tr_fd_teardown);
        tcase_add_loop_test(tc, per_backend[i].test, 0, per_backend[i].rows);
        if (per_backend[i].test == table_lexical)
            tcase_add_unchecked_fixture(tc, print_lexical_skips, NULL);
        suite_add_tcase(s, tc);
    }
    tc = tcase_create("api");
    tcase_add_checked_fixture(tc, tr_fd_setup, tr_fd_teardown);
    tcase_add_test(tc, default_backend);
    tcase_add_test(tc, root_at_fdcwd);
    tcase_add_test(tc, bad_root);
    tcase_add_test(tc, names);
    suite_add_tcase(s, tc);
    return s;
}

static Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("beneath-resolve");

    tcase_add_checked_fixture(tc, tr_fd_setup, tr_fd_teardown);
    tcase_add_loop_test(tc, cli, 0, (int)N_ELEMS(cli_cases));
    suite_add_tcase(s, tc);
    return s;
}

/* The fixture tree, relative to the tmpdir; mounts are added after. */
static const char *const tree[] = {
    "secret=outside the root",
    "out/secret=outside the root, next to the race directory",
    "root/f=f",
    "root/a/b/f=abf",
    "root/a/b/c/",
    "root/a/up -> ../f",
    "root/a/back2 -> ../../root/a/b/f",
    "root/d/",
    "root/rel -> a/b",
    "root/relf -> a/b/f",
    "root/reldir_slash -> a/b/",
    "root/relf_slash -> a/b/f/",
    "root/esc -> ../secret",
    "root/back -> ../root/f",
    "root/absf -> /f",
    "root/absab -> /a/b",
    "root/abs_etc -> /etc",
    "root/absroot -> /",
    "root/dotlink -> .",
    "root/loop1 -> loop2",
    "root/loop2 -> loop1",
    "root/selfloop -> selfloop",
    "root/fifo|",
    "root/mnt/",
    "root/bind/",
    "root/nosym/",
    "root/to_mnt -> mnt/x",
    "root/proc/",
    "root/r/mv/d1/",
    "root/r/mv/f=race",
    "root/deep/f=deep",
    ("root/deep/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21/22/23/24/"
     "25/26/27/28/29/30/31/32/33/34/35/36/37/38/39/40/f=deep 40"),
};

static const char *const mnt_tree[] = {
    "x=on tmpfs",
    "sub/",
    "up -> ../f",
};

#define CHAIN 41

static int build_generated(const char **bad)
{
    /* chain/l00 -> l01 -> ... -> l40 -> ../f: 41 links from l00, 40 from l01
     */
    static char chain[CHAIN][32];
    static const char *chain_spec[CHAIN];
    /* lg1 -> "lg2/./././..." and so on: link texts that together pass 4096 */
    static char lg[4][TR_PATH_MAX];
    static const char *lg_spec[4];
    int err;

    for (int i = 0; i < CHAIN; i++) {
        if (i + 1 < CHAIN)
            snprintf(chain[i], sizeof(chain[i]), "root/chain/l%02d -> l%02d", i,
                     i + 1);
        else
            snprintf(chain[i], sizeof(chain[i]), "root/chain/l%02d -> ../f", i);
        chain_spec[i] = chain[i];
    }
    err = fixture_build(tr_tmp, chain_spec, CHAIN, bad);
    if (err < 0)
        return err;
    for (int i = 0; i < 4; i++) {
        int n = snprintf(lg[i], sizeof(lg[i]), "root/lg%d -> ", i + 1);

        if (i < 3) {
            n += snprintf(lg[i] + n, sizeof(lg[i]) - (size_t)n, "lg%d/", i + 2);
            for (int k = 0; k < 1990; k++)
                n += snprintf(lg[i] + n, sizeof(lg[i]) - (size_t)n, "./");
        } else {
            snprintf(lg[i] + n, sizeof(lg[i]) - (size_t)n, "a/b");
        }
        lg_spec[i] = lg[i];
    }
    return fixture_build(tr_tmp, lg_spec, 4, bad);
}

static const char *const mounts[] = {"root/proc", "root/nosym", "root/bind",
                                     "root/mnt"};

static int setup_tree(void)
{
    char src[PATH_MAX];
    char dst[PATH_MAX];
    const char *bad = NULL;
    int err;

    if (unshare(CLONE_NEWNS) < 0) {
        fprintf(stderr,
                "test_resolver: FAIL: unshare(CLONE_NEWNS): %s: these tests "
                "need root to make mounts in a private namespace\n",
                strerror(errno));
        return -1;
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
        fprintf(stderr, "test_resolver: FAIL: make / private: %s\n",
                strerror(errno));
        return -1;
    }
    err = fixture_make(tree, N_ELEMS(tree), tr_tmp, sizeof(tr_tmp), &bad);
    if (err == 0)
        err = build_generated(&bad);
    if (err < 0) {
        fprintf(stderr, "test_resolver: FAIL: fixture entry \"%s\": %s\n",
                bad ? bad : "(mkdtemp)", strerror(-err));
        return -1;
    }
    snprintf(tr_root, sizeof(tr_root), "%s/root", tr_tmp);
    snprintf(dst, sizeof(dst), "%s/mnt", tr_root);
    if (mount("tmpfs", dst, "tmpfs", 0, "size=1m,mode=0755") < 0)
        goto fail_mount;
    if (fixture_build(dst, mnt_tree, N_ELEMS(mnt_tree), &bad) < 0)
        goto fail_mount;
    snprintf(src, sizeof(src), "%s/a", tr_root);
    snprintf(dst, sizeof(dst), "%s/bind", tr_root);
    if (mount(src, dst, NULL, MS_BIND, NULL) < 0)
        goto fail_mount;
    snprintf(dst, sizeof(dst), "%s/nosym", tr_root);
    if (mount(src, dst, NULL, MS_BIND, NULL) < 0 ||
        mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_NOSYMFOLLOW, NULL) < 0)
        goto fail_mount;
    snprintf(dst, sizeof(dst), "%s/proc", tr_root);
    if (mount("proc", dst, "proc", 0, NULL) < 0)
        goto fail_mount;
    snprintf(dst, sizeof(dst), "%s/d", tr_root);
    if (chdir(dst) < 0)
        goto fail_mount;
    return 0;
fail_mount:
    fprintf(stderr, "test_resolver: FAIL: mounting/preparing %s: %s\n", dst,
            strerror(errno));
    return -1;
}

static void remove_tree(void)
{
    char dst[PATH_MAX];

    if (chdir("/") < 0)
        perror("chdir /");
    if (!tr_tmp[0])
        return;
    for (size_t i = 0; i < N_ELEMS(mounts); i++) {
        snprintf(dst, sizeof(dst), "%s/%s", tr_tmp, mounts[i]);
        umount2(dst, MNT_DETACH);
    }
    if (fixture_remove(tr_tmp) < 0)
        fprintf(stderr, "test_resolver: could not remove %s\n", tr_tmp);
}

/* ctest's SKIP_RETURN_CODE (tests/resolver.cmake). */
#define EXIT_SKIP 77

int main(int argc, char **argv)
{
    SRunner *sr;
    int failed;
    int fds;

    lex_rows_fill();
    if (argc > 1 && strcmp(argv[1], "--lexical-skips") == 0) {
        print_lexical_skips();
        return EXIT_SKIP;
    }
    if (geteuid() != 0) {
        printf("test_resolver: SKIP: needs root, to make tmpfs, bind and proc "
               "mounts in a private mount namespace\n");
        return EXIT_SKIP;
    }
    if (setup_tree() < 0) {
        remove_tree();
        return EXIT_FAILURE;
    }
    fds = fixture_count_fds();
    sr = srunner_create(resolver_suite());
    srunner_add_suite(sr, cli_suite());
    srunner_add_suite(sr, resolver_differential_suite());
    srunner_add_suite(sr, resolver_race_suite());
    srunner_add_suite(sr, resolver_fallback_suite());
    srunner_add_suite(sr, resolver_cache_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (fixture_count_fds() != fds) {
        fprintf(stderr, "test_resolver: fd count changed: %d -> %d\n", fds,
                fixture_count_fds());
        failed++;
    }
    remove_tree();
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
