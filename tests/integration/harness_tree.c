/* SPDX-License-Identifier: MIT */
/*
 * harness_tree.c - temporary trees for the e2e tests: files, directories,
 * symlinks, FIFOs, device nodes and sockets below a tree_new() directory
 * (harness.c), all paths and contents harness-owned.
 */
#include "fixture.h"
#include "harness_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* --- trees -------------------------------------------------------------- */

void tree_remove(const char *path)
{
    if (path == NULL)
        return;
    fixture_remove(path);
}

char *tree_site(const char *index)
{
    char *dir = tree_new();

    tree_write_str(dir, "index.html", index);
    return dir;
}

char *tree_path(const char *dir, const char *rel)
{
    return hfmt("%s/%s", dir, rel);
}

void tree_write(const char *dir, const char *rel, const void *data, size_t len)
{
    char *p = tree_path(dir, rel);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ck_assert_msg(fd >= 0, "create %s: %s", p, strerror(errno));
    const char *d = data;
    while (len > 0) {
        ssize_t n = write(fd, d, len);
        ck_assert_msg(n > 0, "write %s: %s", p, strerror(errno));
        d += n;
        len -= (size_t)n;
    }
    close(fd);
}

void tree_write_str(const char *dir, const char *rel, const char *s)
{
    tree_write(dir, rel, s, strlen(s));
}

void tree_build(const char *dir, ...)
{
    va_list ap;
    const char *entry;
    const char *bad;

    va_start(ap, dir);
    while ((entry = va_arg(ap, const char *)) != NULL) {
        int err = fixture_build(dir, &entry, 1, &bad);
        ck_assert_msg(err == 0, "%s: entry '%s': %s", dir, entry,
                      strerror(-err));
    }
    va_end(ap);
}

void tree_mkdir(const char *dir, const char *rel)
{
    char *p = tree_path(dir, rel);
    ck_assert_msg(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", p,
                  strerror(errno));
}

void tree_symlink(const char *dir, const char *target, const char *rel)
{
    char *p = tree_path(dir, rel);
    ck_assert_msg(symlink(target, p) == 0, "symlink %s -> %s: %s", p, target,
                  strerror(errno));
}

void tree_mkfifo(const char *dir, const char *rel)
{
    char *p = tree_path(dir, rel);
    ck_assert_msg(mkfifo(p, 0644) == 0, "mkfifo %s: %s", p, strerror(errno));
}

void tree_mknod_null(const char *dir, const char *rel)
{
    char *p = tree_path(dir, rel);
    ck_assert_msg(mknod(p, S_IFCHR | 0666, makedev(1, 3)) == 0, "mknod %s: %s",
                  p, strerror(errno));
}

void tree_socket(const char *dir, const char *rel)
{
    char *p = tree_path(dir, rel);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    ck_assert_msg(strlen(p) < sizeof(sa.sun_path), "socket path too long");
    memcpy(sa.sun_path, p, strlen(p) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_msg(fd >= 0, "socket: %s", strerror(errno));
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    int e = errno;
    close(fd);
    ck_assert_msg(rc == 0, "bind %s: %s", p, strerror(e));
}

void tree_mtime(const char *dir, const char *rel, time_t t)
{
    char *p = tree_path(dir, rel);
    struct timespec ts[2] = {{.tv_sec = t}, {.tv_sec = t}};
    ck_assert_msg(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW) == 0,
                  "utimensat %s: %s", p, strerror(errno));
}

char *tree_read(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (len)
            *len = 0;
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL)
        harness_die_oom();
    for (;;) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL)
                harness_die_oom();
            buf = nb;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n - 1);
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    if (len)
        *len = n;
    return harness_own(buf);
}
