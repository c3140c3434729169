/* SPDX-License-Identifier: MIT */
/*
 * test_resolver.c - the resolver's case table, run against every backend,
 * its API, and the test process's set-up and tear-down around the fixture
 * tree of test_resolver_tree.c. The beneath-resolve contract is in
 * test_resolver_cli.c.
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
#include <time.h>
#include <unistd.h>

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

/* Rows run with directories a link may lead into (resolver_how.into). */
const struct tr_into_case tr_into_cases[] = {
    /* {into, row}: a link that leaves, followed into a directory of tr_tmp */
    {NULL, {NULL, "_static/jquery.js", R, B, EXDEV, NULL, false}},
    {"js",
     {NULL, "_static/jquery.js", R, B, 0, "../js/jquery/jquery.js", false}},
    {"js",
     {NULL, "_static/jquery.js", R, J, 0, "../js/jquery/jquery.js", false}},
    {"js",
     {NULL, "_static/jquery.js", P, B, 0, "../js/jquery/jquery.js", false}},
    {"js", {NULL, "_static/jquery.js", R, B | S, ELOOP, NULL, false}},
    {"js", {NULL, "_static/jquery.js", R, IR, ENOENT, NULL, false}},
    {"js",
     {NULL, "_static/jquery.js", R, 0, 0, "../js/jquery/jquery.js", false}},
    {"js", {NULL, "_static/jquery.js", PN, B, 0, "_static/jquery.js", false}},
    {"js", {NULL, "_static/jquery.js", RN, B, ELOOP, NULL, false}},
    {"nodejs", {NULL, "_static/jquery.js", R, B, EXDEV, NULL, false}},
    {"nodejs,js",
     {NULL, "_static/jquery.js", R, B, 0, "../js/jquery/jquery.js", false}},
    {"js", {NULL, "_static/jquery.js/", R, B, ENOTDIR, NULL, false}},
    {"js", {NULL, "_static/jquery.js", RD, B, ENOTDIR, NULL, false}},
    {"js", {NULL, "_static/jsdir", P, B, 0, "../js", false}},
    {"js", {NULL, "_static/jsdir", PN, B, 0, "_static/jsdir", false}},
    {"js", {NULL, "_static/jsdir/", RD, B, 0, "../js", false}},
    {"js",
     {NULL, "_static/jsdir/jquery/jquery.js", R, B, 0, "../js/jquery/jquery.js",
      false}},
    {"js",
     {NULL, "_static/jsdir_slash/jquery/jquery.js", R, B, 0,
      "../js/jquery/jquery.js", false}},
    {"js",
     {NULL, "_static/jsdir/jquery/../jquery/jquery.js", R, B, 0,
      "../js/jquery/jquery.js", false}},
    {"js", {NULL, "_static/jsdir/jquery/missing", R, B, ENOENT, NULL, false}},
    {"js", {NULL, "_static/dots", R, B, 0, "../js/jquery/jquery.js", false}},
    {"js", {NULL, "_static/inner", R, B, 0, "../js/jquery/jquery.js", false}},
    {"js", {NULL, "a/b/deepjq", R, B, 0, "../js/jquery/jquery.js", false}},
    {"js", {"a", "b/deepjq", R, B, 0, "../js/jquery/jquery.js", false}},
    {"js", {NULL, "_static/abs_jq", R, B, 0, "../js/jquery/jquery.js", false}},
    {"js",
     {NULL, "_static/abs_js/jquery/jquery.js", R, B, 0,
      "../js/jquery/jquery.js", false}},
    /* ... and no further: ".." out of it, a link beside it, the path's own
     * "..", a ".." after a name in the text */
    {"js", {NULL, "_static/jsdir/..", P, B, EXDEV, NULL, false}},
    {"js", {NULL, "_static/jsdir/../secret", R, B, EXDEV, NULL, false}},
    {"js", {NULL, "_static/jsdir/esc", R, B, EXDEV, NULL, false}},
    {"js", {NULL, "_static/esc", R, B, EXDEV, NULL, false}},
    {"js", {NULL, "_static/passwd", R, B, EXDEV, NULL, false}},
    {"js", {NULL, "_static/upup", R, B, EXDEV, NULL, false}},
    {"js", {NULL, "_static/abs_up", R, B, EXDEV, NULL, false}},
    {"js", {NULL, "_static/twice/jquery.js", R, B, EXDEV, NULL, false}},
    {"js", {NULL, "_static/dotname", R, B, EXDEV, NULL, false}},
    {"js", {NULL, "_static/named_up", R, B, EXDEV, NULL, false}},
    {"js,nodejs", {NULL, "_static/named_up", R, B, EXDEV, NULL, false}},
    {"js", {NULL, "abs_etc", P, B, EXDEV, NULL, false}},
    {"js", {NULL, "esc", R, B, EXDEV, NULL, false}},
    {"js", {NULL, "../js/jquery/jquery.js", R, B, EXDEV, NULL, false}},
    {"js",
     {NULL, "_static/../../js/jquery/jquery.js", R, B, EXDEV, NULL, false}},
    {"js", {NULL, "proc/self/cwd", P, B, EXDEV, NULL, false}},
    /* a link of the directory led into, into another one (or not) */
    {"js", {NULL, "_static/popper.js", R, B, EXDEV, NULL, false}},
    {"js,nodejs",
     {NULL, "_static/popper.js", R, B, 0, "../nodejs/popper/p.js", false}},
    {"js,nodejs",
     {NULL, "_static/jsdir/jquery/sib", R, B, 0, "../nodejs/popper/p.js",
      false}},
    {"js,nodejs",
     {"../js/jquery", "sib", R, B, 0, "../nodejs/popper/p.js", false}},
    {"js", {"../js/jquery", "sib", R, B, EXDEV, NULL, false}},
    {"js,nodejs", {NULL, "_static/loop", R, B, ELOOP, NULL, false}},
};
const size_t tr_n_into_cases = N_ELEMS(tr_into_cases);

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
    n = (size_t)strtoul(c->path + 1, NULL, 10);
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

int tr_into_open(const char *list, struct resolver_into *out, size_t max)
{
    char copy[256];
    char *save = NULL;
    size_t n = 0;

    snprintf(copy, sizeof(copy), "%s", list);
    for (char *t = strtok_r(copy, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        char path[PATH_MAX];
        int err;

        snprintf(path, sizeof(path), "%s/%s", tr_tmp, t);
        err = n < max ? resolver_into_open(path, &out[n]) : -E2BIG;
        if (err < 0) {
            tr_into_close(out, n);
            return err;
        }
        n++;
    }
    return (int)n;
}

void tr_into_close(struct resolver_into *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        resolver_into_close(&d[i]);
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

bool tr_run_case(const struct tr_case *c, const char *into,
                 enum resolver_backend backend,
                 enum resolver_backend want_served, char *msg, size_t size)
{
    int root_fd = tr_open_root(c->root);
    bool ok;

    if (root_fd < 0) {
        snprintf(msg, size, "cannot open root %s: %s", c->root,
                 strerror(errno));
        return false;
    }
    ok =
        tr_run_case_at(c, into, root_fd, NULL, backend, want_served, msg, size);
    close(root_fd);
    return ok;
}

long tr_kernel_eagain_asks;

int tr_open_how(int root_fd, const char *path, const struct resolver_how *how,
                enum resolver_backend *served, bool want_eagain)
{
    const struct timespec ms = {.tv_nsec = 1000000};
    int fd = resolver_open_how(root_fd, path, how, served);

    for (int i = 0; i < 5000 && fd == -EAGAIN && !want_eagain &&
                    how->backend == RESOLVER_BACKEND_KERNEL;
         i++) {
        tr_kernel_eagain_asks++;
        nanosleep(&ms, NULL);
        fd = resolver_open_how(root_fd, path, how, served);
    }
    return fd;
}

bool tr_run_case_at(const struct tr_case *c, const char *into_list, int root_fd,
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
    struct resolver_into into[4];
    struct resolver_escape escape;
    struct stat got;
    struct stat want;
    bool ok = true;
    int n_into = 0;
    int fd;

    resolver_flags_format(c->rflags, flags, sizeof(flags));
    msg[0] = '\0';
    if (into_list) {
        n_into = tr_into_open(into_list, into, N_ELEMS(into));
        if (n_into < 0) {
            snprintf(msg, size, "into %s: %s", into_list, strerror(-n_into));
            return false;
        }
        how.into = into;
        how.n_into = (size_t)n_into;
        how.escape = &escape;
    }
    fd = tr_open_how(root_fd, path, &how, &served, c->err == EAGAIN);
    tr_into_close(into, (size_t)n_into);
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

Suite *tr_suite(const char *name, const struct check_tcase *tcases, size_t n)
{
    static const struct check_fixture fds = {.setup = tr_fd_setup,
                                             .teardown = tr_fd_teardown};

    return check_suite_make(name, &fds, tcases, n);
}

static void table_run(int i, enum resolver_backend backend)
{
    enum resolver_backend served = backend;
    char msg[512];

    if (backend == RESOLVER_BACKEND_AUTO)
        served = resolver_auto_backend(NULL);
    ck_assert_msg(
        tr_run_case(&tr_cases[i], NULL, backend, served, msg, sizeof(msg)),
        "row %d: %s", i, msg);
}

static void into_run(int i, enum resolver_backend backend)
{
    const struct tr_into_case *r = &tr_into_cases[i];
    enum resolver_backend served = backend;
    char msg[512];

    if (backend == RESOLVER_BACKEND_AUTO)
        served = resolver_auto_backend(NULL);
    ck_assert_msg(
        tr_run_case(&r->c, r->into, backend, served, msg, sizeof(msg)),
        "into row %d (into %s): %s", i, r->into ? r->into : "none", msg);
}

START_TEST(into_kernel)
{
    into_run(_i, RESOLVER_BACKEND_KERNEL);
}
END_TEST

START_TEST(into_emulated)
{
    into_run(_i, RESOLVER_BACKEND_EMULATED);
}
END_TEST

START_TEST(into_auto)
{
    into_run(_i, RESOLVER_BACKEND_AUTO);
}
END_TEST

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
    lex_rows_fill();
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

/*
 * What an -EXDEV says (resolver_how.escape), the same from both backends:
 * the link that left and where it leads ("T" is the tmpdir), and whether
 * it had been followed into a directory of @into the rest then left.
 */
static const struct {
    const char *into;
    const char *path;
    const char *link;
    const char *target;
    int in;
} escapes[] = {
    {NULL, "_static/passwd", "_static/passwd", "T/secret", -1},
    {NULL, "_static/jquery.js", "_static/jquery.js", "T/js/jquery/jquery.js",
     -1},
    {NULL, "a/b/deepjq", "a/b/deepjq", "T/js/jquery/jquery.js", -1},
    {NULL, "abs_etc", "abs_etc", "/etc", -1},
    {NULL, "absroot", "absroot", "/", -1},
    {NULL, "esc/x", "esc", "T/secret", -1},
    {NULL, "../secret", "", "", -1},
    {NULL, "a/../../secret", "", "", -1},
    {"js", "_static/passwd", "_static/passwd", "T/secret", -1},
    {"js", "_static/upup", "_static/upup", "T/js/jquery/../../secret", 0},
    {"js", "_static/jsdir/../secret", "_static/jsdir", "T/js", 0},
    {"js", "_static/named_up", "_static/named_up",
     "T/nodejs/../js/jquery/jquery.js", -1},
    {"js", "_static/popper.js", "T/js/popper", "T/nodejs/popper", -1},
    {"nodejs,js", "_static/esc", "T/js/esc", "T/secret", -1},
    {"js", "_static/abs_up", "_static/abs_up", "T/js/jquery/../../secret", 0},
    {"js", "proc/self/cwd", "", "", -1},
};

/* @want with "T" at its start replaced by the tmpdir's real path. */
static const char *expand_t(const char *want, char *buf, size_t size)
{
    char real[PATH_MAX];

    if (want[0] != 'T')
        return want;
    ck_assert_ptr_nonnull(realpath(tr_tmp, real));
    snprintf(buf, size, "%s%s", real, want + 1);
    return buf;
}

START_TEST(into_escape)
{
    enum resolver_backend backends[] = {RESOLVER_BACKEND_KERNEL,
                                        RESOLVER_BACKEND_EMULATED};
    int root_fd = tr_open_root(NULL);

    ck_assert_int_ge(root_fd, 0);
    for (size_t b = 0; b < N_ELEMS(backends); b++) {
        for (size_t i = 0; i < N_ELEMS(escapes); i++) {
            struct resolver_into into[4];
            struct resolver_escape e;
            struct resolver_how how = {.open_flags = O_RDONLY,
                                       .resolve = RESOLVER_BENEATH,
                                       .backend = backends[b],
                                       .escape = &e};
            char lbuf[PATH_MAX], tbuf[PATH_MAX];
            int n = escapes[i].into
                        ? tr_into_open(escapes[i].into, into, N_ELEMS(into))
                        : 0;
            int fd;

            ck_assert_int_ge(n, 0);
            how.into = into;
            how.n_into = (size_t)n;
            fd = resolver_open_how(root_fd, escapes[i].path, &how, NULL);
            tr_into_close(into, (size_t)n);
            ck_assert_msg(fd == -EXDEV, "%s \"%s\": %d",
                          resolver_backend_name(backends[b]), escapes[i].path,
                          fd);
            ck_assert_str_eq(e.link,
                             expand_t(escapes[i].link, lbuf, sizeof(lbuf)));
            ck_assert_str_eq(e.target,
                             expand_t(escapes[i].target, tbuf, sizeof(tbuf)));
            ck_assert_int_eq(e.into, escapes[i].in);
        }
    }
    close(root_fd);
}
END_TEST

/* resolver_into_open: the kernel's name, the alias, what is refused. */
START_TEST(into_open)
{
    struct resolver_into d;
    char path[PATH_MAX + 16], real[PATH_MAX];
    struct resolver_how how = {.open_flags = O_RDONLY,
                               .resolve = RESOLVER_BENEATH,
                               .into = &d,
                               .n_into = 1};
    int root_fd = tr_open_root(NULL), fd;

    ck_assert_int_ge(root_fd, 0);
    ck_assert_ptr_nonnull(realpath(tr_tmp, real));
    snprintf(path, sizeof(path), "%s//root/./_static/jsdir/", tr_tmp);
    ck_assert_int_eq(resolver_into_open(path, &d), 0);
    snprintf(path, sizeof(path), "%s/js", real);
    ck_assert_str_eq(d.path, path);
    snprintf(path, sizeof(path), "%s/root/_static/jsdir", tr_tmp);
    ck_assert_str_eq(d.alias, path);
    /* a link naming it by its kernel name or by its alias is followed */
    fd = resolver_open_how(root_fd, "_static/abs_jq", &how, NULL);
    ck_assert_int_ge(fd, 0);
    close(fd);
    fd = resolver_open_how(root_fd, "_static/abs_alias", &how, NULL);
    ck_assert_int_ge(fd, 0);
    close(fd);
    resolver_into_close(&d);
    resolver_into_close(&d);
    ck_assert_int_eq(resolver_into_open("relative", &d), -EINVAL);
    ck_assert_int_eq(d.fd, -1);
    snprintf(path, sizeof(path), "%s/f", tr_root);
    ck_assert_int_eq(resolver_into_open(path, &d), -ENOTDIR);
    snprintf(path, sizeof(path), "%s/missing", tr_root);
    ck_assert_int_eq(resolver_into_open(path, &d), -ENOENT);
    snprintf(path, sizeof(path), "%s/root/../js", tr_tmp);
    ck_assert_int_eq(resolver_into_open(path, &d), 0);
    ck_assert_ptr_null(d.alias); /* "..": not an alias */
    /* ... so the link through the alias is not */
    ck_assert_int_eq(
        resolver_open_how(root_fd, "_static/abs_alias", &how, NULL), -EXDEV);
    resolver_into_close(&d);
    /* an into without a path, or without fds: refused */
    how.into = &(struct resolver_into){.fd = -1, .path = "/"};
    ck_assert_int_eq(resolver_open_how(root_fd, "f", &how, NULL), -EINVAL);
    how.into = NULL;
    ck_assert_int_eq(resolver_open_how(root_fd, "f", &how, NULL), -EINVAL);
    close(root_fd);
}
END_TEST

/* Make @rel below @base: a directory, or a file when @file. */
static void make_at(const char *base, const char *rel, bool file)
{
    char path[PATH_MAX];
    int fd;

    snprintf(path, sizeof(path), "%s/%s", base, rel);
    if (!file) {
        ck_assert_int_eq(mkdir(path, 0755), 0);
        return;
    }
    fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    close(fd);
}

/* Remove @rel below @base: a directory, or a file when @file. */
static void remove_at(const char *base, const char *rel, bool file)
{
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", base, rel);
    ck_assert_int_eq(file ? unlink(path) : rmdir(path), 0);
}

/* What @how answers for @path from @root_fd, as the ino of the file or an
 * errno below zero. */
static long answer(int root_fd, const char *path, uint64_t resolve,
                   enum resolver_backend backend)
{
    struct resolver_how how = {
        .open_flags = O_PATH, .resolve = resolve, .backend = backend};
    int fd = resolver_open_how(root_fd, path, &how, NULL);
    struct stat st;
    long ino;

    if (fd < 0)
        return fd;
    ino = fstat(fd, &st) == 0 ? (long)st.st_ino : -EBADF;
    close(fd);
    return ino;
}

/*
 * A tmpfs mounted over the root after its fd was opened (a deploy that
 * mounts a new tree over the served root). A plain name is looked up in
 * the old tree; the kernel's ".." back to the root steps into the new one:
 * NO_XDEV refuses that, unscoped both follow it, scoped the emulation
 * answers EAGAIN (it would have to open ".."); IN_ROOT's ".." at the root
 * itself steps in too.
 */
START_TEST(mount_on_root)
{
    static const struct {
        const char *path;
        uint64_t resolve;
        int err;       /* both backends: -err (0: a file) */
        bool covering; /* the file is the new tree's */
        int emulated;  /* the emulation's errno, when it differs */
    } rows[] = {
        {"b/f", B, 0, false, 0},
        {"a/../b/f", B | X, EXDEV, false, 0},
        {"a/../b/f", X, EXDEV, false, 0},
        {"a/../b/f", 0, 0, true, 0},
        {"a/../b/f", B, 0, true, EAGAIN},
        {"a/../b/f", IR, 0, true, EAGAIN},
        {"../b/f", IR | X, EXDEV, false, 0},
        {"../b/f", IR, 0, true, EAGAIN},
        {"a/../..", B, EXDEV, false, EAGAIN},
    };
    char dir[PATH_MAX];
    char new_path[PATH_MAX + 8];
    struct stat old_f;
    struct stat new_f;
    int root_fd;

    snprintf(dir, sizeof(dir), "%s/covered", tr_tmp);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    make_at(dir, "a", false);
    make_at(dir, "b", false);
    make_at(dir, "b/f", true);
    root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(root_fd, 0);
    ck_assert_int_eq(mount("tmpfs", dir, "tmpfs", 0, "size=64k"), 0);
    make_at(dir, "b", false);
    make_at(dir, "b/f", true);
    ck_assert_int_eq(fstatat(root_fd, "b/f", &old_f, 0), 0);
    snprintf(new_path, sizeof(new_path), "%s/b/f", dir);
    ck_assert_int_eq(stat(new_path, &new_f), 0);
    for (size_t i = 0; i < N_ELEMS(rows); i++) {
        long want = rows[i].err ? -rows[i].err
                                : (long)(rows[i].covering ? new_f.st_ino
                                                          : old_f.st_ino);
        long emulated = rows[i].emulated ? -rows[i].emulated : want;
        long k = answer(root_fd, rows[i].path, rows[i].resolve,
                        RESOLVER_BACKEND_KERNEL);
        long e = answer(root_fd, rows[i].path, rows[i].resolve,
                        RESOLVER_BACKEND_EMULATED);

        ck_assert_msg(k == want && e == emulated,
                      "\"%s\" %#llx: kernel %ld (want %ld), emulated %ld "
                      "(want %ld)",
                      rows[i].path, (unsigned long long)rows[i].resolve, k,
                      want, e, emulated);
    }
    close(root_fd);
    ck_assert_int_eq(umount2(dir, MNT_DETACH), 0);
    remove_at(dir, "b/f", true);
    remove_at(dir, "b", false);
    remove_at(dir, "a", false);
    ck_assert_int_eq(rmdir(dir), 0);
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

static Suite *resolver_suite(void)
{
    lex_rows_fill();
    const int rows = (int)tr_n_cases, into_rows = (int)tr_n_into_cases;
    const struct check_tcase tcases[] = {
        {"kernel", .loops = {{&table_kernel, rows}, {&into_kernel, into_rows}}},
        {"emulated",
         .loops = {{&table_emulated, rows}, {&into_emulated, into_rows}}},
        {"auto", .loops = {{&table_auto, rows}, {&into_auto, into_rows}}},
        {"lexical", .unchecked_setup = print_lexical_skips,
         .loops = {{&table_lexical, n_lex_rows}}},
        {"api", .tests = {&default_backend, &root_at_fdcwd, &bad_root, &names,
                          &into_escape, &into_open, &mount_on_root}},
    };

    return tr_suite("table", tcases, N_ELEMS(tcases));
}

/* The fd count once the tree is made: nothing may leak an fd past it. */
static int fds_at_start;

static int setup(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--lexical-skips") == 0) {
        print_lexical_skips();
        return CHECK_SKIP;
    }
    if (tr_tree_setup() < 0) {
        tr_tree_remove();
        return EXIT_FAILURE;
    }
    fds_at_start = fixture_count_fds();
    return 0;
}

static int teardown(void)
{
    int failed = 0;

    if (fixture_count_fds() != fds_at_start) {
        fprintf(stderr, "test_resolver: fd count changed: %d -> %d\n",
                fds_at_start, fixture_count_fds());
        failed++;
    }
    tr_tree_remove();
    return failed;
}

/* Every suite works in the tree of tr_tree_setup, which makes mounts. */
#define MOUNTS "tmpfs, bind and proc mounts in a private mount namespace"

const struct check_main check_main = {
    .suites =
        {
            {resolver_suite, MOUNTS},
            {resolver_cli_suite, MOUNTS},
            {resolver_differential_suite, MOUNTS},
            {resolver_race_suite, MOUNTS},
            {resolver_fallback_suite, MOUNTS},
            {resolver_cache_suite, MOUNTS},
        },
    .setup = setup,
    .teardown = teardown,
};
