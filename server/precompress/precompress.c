// SPDX-License-Identifier: MIT
/*
 * precompress.c - beneath-precompress: write FILE.br, FILE.zst and FILE.gz
 * beside every compressible file of a tree, for --precompressed.
 *
 * The walk works through directory fds only: every entry is looked at with
 * fstatat(AT_SYMLINK_NOFOLLOW) and opened with openat(O_NOFOLLOW), so a
 * symlink (to a file or a directory, inside the tree or out of it) is never
 * followed, and no other mount is entered. A sidecar is written only when
 * it pays: the type is compressible (the MIME table's flag), the file is at
 * least COMPRESS_MIN_SIZE bytes, and the coding saves at least a tenth;
 * otherwise a stale sidecar of the file is removed. A sidecar is written to
 * a temporary name, given the source's times (the server ignores sidecars
 * older than their file) and renamed into place; one as new as its file is
 * left alone, so a second run writes nothing.
 *
 *   beneath-precompress [--codings br,zstd,gzip] DIR...
 * Exit status: 0, 1 when any file or directory failed, 2 for bad usage.
 */
#include "files/compress.h"
#include "syntax/coding.h"
#include "syntax/mime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct run {
    enum coding codings[CODING_N];
    size_t n_codings;
    unsigned long files, written, current, skipped, removed, failed;
};

static bool is_sidecar(const char *name)
{
    size_t n = strlen(name);

    for (int e = 0; e < CODING_N; e++) {
        const char *suf = coding_suffix((enum coding)e);
        size_t k = strlen(suf);
        if (n > k && strcmp(name + n - k, suf) == 0)
            return true;
    }
    return false;
}

static void fail(struct run *r, const char *path, const char *what, int err)
{
    fprintf(stderr, "beneath-precompress: %s: %s: %s\n", path, what,
            strerror(err));
    r->failed++;
}

/* Write @len bytes of @data as @side in @dfd, with the times of @st. */
static int write_sidecar(int dfd, const char *side, const unsigned char *data,
                         size_t len, const struct stat *st)
{
    char tmp[NAME_MAX + 1];
    struct timespec times[2] = {st->st_atim, st->st_mtim};
    int fd, err = 0;

    if ((size_t)snprintf(tmp, sizeof tmp, ".%s.%ld.tmp", side,
                         (long)getpid()) >= sizeof tmp)
        return -ENAMETOOLONG;
    fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                0644);
    if (fd < 0)
        return -errno;
    for (size_t off = 0; off < len && !err;) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno != EINTR)
            err = -errno;
        else if (w > 0)
            off += (size_t)w;
    }
    if (!err && futimens(fd, times) != 0)
        err = -errno;
    if (close(fd) != 0 && !err)
        err = -errno;
    /* renameat replaces a symlink named like the sidecar, never its target */
    if (!err && renameat(dfd, tmp, dfd, side) != 0)
        err = -errno;
    if (err)
        unlinkat(dfd, tmp, 0);
    return err;
}

/* The sidecars of the regular file @name in @dfd. */
static void one_file(struct run *r, int dfd, const char *name, const char *path)
{
    struct stat st;
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0) {
        fail(r, path, "open", errno);
        return;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return; /* replaced meanwhile: not a regular file any more */
    }
    r->files++;
    for (size_t i = 0; i < r->n_codings; i++) {
        enum coding e = r->codings[i];
        char side[NAME_MAX + 1];
        struct stat sst;
        unsigned char *data = NULL;
        size_t len = 0;
        uint64_t size = (uint64_t)st.st_size;
        int err;

        if ((size_t)snprintf(side, sizeof side, "%s%s", name,
                             coding_suffix(e)) >= sizeof side)
            continue;
        bool have = fstatat(dfd, side, &sst, AT_SYMLINK_NOFOLLOW) == 0;
        if (have && S_ISREG(sst.st_mode) &&
            sst.st_mtim.tv_sec >= st.st_mtim.tv_sec) {
            r->current++;
            continue;
        }
        err = size < COMPRESS_MIN_SIZE
                  ? -EFBIG
                  : compress_fd(e, COMPRESS_BEST, fd, size,
                                (size_t)(size - size / 10), &data, &len);
        if (err == -EFBIG) {
            /* does not pay: no sidecar, and none left from an older version */
            if (have && S_ISREG(sst.st_mode) && unlinkat(dfd, side, 0) == 0)
                r->removed++;
            r->skipped++;
        } else if (err) {
            fail(r, path, coding_token(e), -err);
        } else if ((err = write_sidecar(dfd, side, data, len, &st)) != 0) {
            fail(r, path, side, -err);
        } else {
            r->written++;
        }
        free(data);
    }
    close(fd);
}

/* Walk the directory @dfd (owned) at @path; @dev: the tree's file system. */
static void walk(struct run *r, int dfd, const char *path, dev_t dev)
{
    DIR *d = fdopendir(dfd);
    struct dirent *de;

    if (!d) {
        fail(r, path, "opendir", errno);
        close(dfd);
        return;
    }
    while ((de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        struct stat st;
        char *sub;

        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
            is_sidecar(name))
            continue;
        if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue; /* gone meanwhile */
        if (asprintf(&sub, "%s/%s", path, name) < 0) {
            fail(r, path, "asprintf", ENOMEM);
            continue;
        }
        if (S_ISDIR(st.st_mode) && st.st_dev == dev) {
            int sfd = openat(dirfd(d), name,
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sfd < 0)
                fail(r, sub, "open", errno);
            else
                walk(r, sfd, sub, dev);
        } else if (S_ISREG(st.st_mode) && mime_compressible(name)) {
            one_file(r, dirfd(d), name, sub);
        }
        free(sub);
    }
    closedir(d);
}

/* --help: on stdout, status 0; bad usage: on stderr, status 2. */
static int usage(FILE *to)
{
    fputs("usage: beneath-precompress [--codings br,zstd,gzip] DIR...\n"
          "write FILE.br, FILE.zst, FILE.gz beside each compressible file "
          "of at least 1 KiB\nwhere the coding saves a tenth or more; "
          "symlinks are never followed\n",
          to);
    return to == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
    struct run r = {.codings = {CODING_BR, CODING_ZSTD, CODING_GZIP},
                    .n_codings = 3};
    int i = 1;

    if (argc == 2 && strcmp(argv[1], "--help") == 0)
        return usage(stdout);
    if (i + 1 < argc && strcmp(argv[i], "--codings") == 0) {
        int n = coding_list_parse(argv[i + 1], r.codings, NULL, NULL);
        if (n <= 0)
            return usage(stderr);
        r.n_codings = (size_t)n;
        i += 2;
    }
    if (i >= argc || argv[i][0] == '-')
        return usage(stderr);
    for (; i < argc; i++) {
        struct stat st;
        int dfd = open(argv[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (dfd < 0 || fstat(dfd, &st) != 0) {
            fail(&r, argv[i], "open", errno);
            if (dfd >= 0)
                close(dfd);
            continue;
        }
        walk(&r, dfd, argv[i], st.st_dev);
    }
    printf("beneath-precompress: %lu files, %lu sidecars written, %lu up to "
           "date, %lu not worth it (%lu stale removed), %lu failed\n",
           r.files, r.written, r.current, r.skipped, r.removed, r.failed);
    return r.failed ? 1 : 0;
}
