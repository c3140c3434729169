/* SPDX-License-Identifier: MIT */
/*
 * acme_store.c - the files of --acme-dir, all under one directory fd:
 *
 *   accounts/CA/key.pem  account.json  lock    one account per CA directory
 *   certs/ID/cert.pem  key.pem  state.json  lock    one per certificate
 *   challenges/TOKEN                               material being validated,
 *                                                  for replicas to answer too
 *   replicas                                       read-locked by each one
 *
 * The directories are 0700, keys 0600. Every file is written whole to a
 * temporary name, fsynced and renamed over the old one (then the directory
 * is fsynced), so a reader - this process after a crash, or a replica -
 * sees the old file or the new one, never a part.
 *
 * Locks are flock(2) on a "lock" file: the kernel drops them when their
 * holder dies, so there is no staleness to guess (an O_EXCL lock file left
 * by a killed process would need a timeout longer than the slowest order,
 * and a clock shared by the replicas). flock works on local file systems and
 * on NFSv4 (Linux maps it to byte-range locks there) - what a volume shared
 * by several replicas is.
 *
 * Which replicas there are is a lock too: each holds a shared
 * open-file-description lock (F_OFD_SETLK, F_RDLCK) on "replicas" while it
 * runs, and asks F_OFD_GETLK whether an exclusive one could be taken: only
 * another holder (another process, or another acme_open in this one) says
 * no, so a lone server learns that nobody else needs its challenge files.
 * A byte-range lock, like flock on NFSv4.
 */
#include "acme/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_MAX ((size_t)1 << 20)

/* mkdir -p of @path's parents (0755, as /var/lib is), then @path 0700. */
static int make_path(const char *path)
{
    char *p = strdup(path);
    int r = 0;

    if (p == NULL)
        return -ENOMEM;
    for (char *s = strchr(p + 1, '/'); s && r == 0; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
            r = -errno;
        *s = '/';
    }
    if (r == 0 && mkdir(p, 0700) < 0 && errno != EEXIST)
        r = -errno;
    free(p);
    return r;
}

int acme_store_mkdir(int dirfd, const char *name)
{
    if (mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST)
        return -errno;
    return 0;
}

int acme_store_open(const char *path)
{
    static const char *const subdirs[] = {"accounts", "certs", "challenges"};
    struct stat st;
    int fd, r;

    if (path[0] != '/')
        return -EINVAL;
    r = make_path(path);
    if (r < 0)
        return r;
    fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    /* keys live here: nobody else may list or enter it */
    if (fstat(fd, &st) < 0 ||
        ((st.st_mode & 077) && st.st_uid == geteuid() && fchmod(fd, 0700) < 0))
        goto out_errno;
    for (size_t i = 0; i < N_ELEMS(subdirs); i++) {
        r = acme_store_mkdir(fd, subdirs[i]);
        if (r < 0) {
            close(fd);
            return r;
        }
    }
    return fd;
out_errno:
    r = -errno;
    close(fd);
    return r;
}

/* The directory part of @name ("certs/a" of "certs/a/key.pem") opened. */
static int parent_fd(int dirfd, const char *name, const char **base)
{
    const char *slash = strrchr(name, '/');
    char dir[512];
    int fd;

    if (slash == NULL) {
        *base = name;
        fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
        return fd < 0 ? -errno : fd;
    }
    if ((size_t)(slash - name) >= sizeof dir)
        return -ENAMETOOLONG;
    memcpy(dir, name, (size_t)(slash - name));
    dir[slash - name] = '\0';
    *base = slash + 1;
    fd = openat(dirfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    return fd < 0 ? -errno : fd;
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -errno;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int acme_store_write(int dirfd, const char *name, const void *data, size_t len,
                     mode_t mode)
{
    char tmp[64];
    const char *base;
    int dfd = parent_fd(dirfd, name, &base), fd = -1, r;

    if (dfd < 0)
        return dfd;
    for (int i = 0;; i++) {
        unsigned char rnd[6];

        if (RAND_bytes(rnd, sizeof rnd) != 1 || i == 16) {
            r = -EEXIST;
            goto out_dir;
        }
        snprintf(tmp, sizeof tmp, ".tmp-%02x%02x%02x%02x%02x%02x", rnd[0],
                 rnd[1], rnd[2], rnd[3], rnd[4], rnd[5]);
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd >= 0 || errno != EEXIST)
            break;
    }
    if (fd < 0) {
        r = -errno;
        goto out_dir;
    }
    r = fchmod(fd, mode) < 0 ? -errno : 0; /* whatever the umask */
    if (r == 0)
        r = write_all(fd, data, len);
    if (r == 0 && fsync(fd) < 0)
        r = -errno;
    if (close(fd) < 0 && r == 0)
        r = -errno;
    if (r == 0 && renameat(dfd, tmp, dfd, base) < 0)
        r = -errno;
    if (r < 0)
        unlinkat(dfd, tmp, 0);
    else if (fsync(dfd) < 0)
        r = -errno;
out_dir:
    close(dfd);
    return r;
}

int acme_store_read(int dirfd, const char *name, char **data, size_t *len)
{
    struct stat st;
    char *buf = NULL;
    size_t got = 0;
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), r = 0;

    *data = NULL;
    *len = 0;
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) < 0) {
        r = -errno;
        goto out_close;
    }
    if (!S_ISREG(st.st_mode) || (size_t)st.st_size > FILE_MAX) {
        r = S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
        goto out_close;
    }
    buf = malloc((size_t)st.st_size + 1);
    if (buf == NULL) {
        r = -ENOMEM;
        goto out_close;
    }
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            r = n < 0 ? -errno : -EIO;
            free(buf);
            goto out_close;
        }
        got += (size_t)n;
    }
    buf[got] = '\0';
    *data = buf;
    *len = got;
out_close:
    close(fd);
    return r;
}

int acme_store_lock(int dirfd, const char *name)
{
    int fd =
        openat(dirfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

    if (fd < 0)
        return -errno;
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int r = errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;

        close(fd);
        return r;
    }
    return fd;
}

/* The whole file, for F_OFD_* locks. */
static struct flock whole(short type)
{
    return (struct flock){.l_type = type, .l_whence = SEEK_SET};
}

int acme_store_join(int dirfd, const char *name)
{
    int fd =
        openat(dirfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    struct flock fl = whole(F_RDLCK);

    if (fd < 0)
        return -errno;
    if (fcntl(fd, F_OFD_SETLK, &fl) < 0) {
        int r = -errno;

        close(fd);
        return r;
    }
    return fd;
}

int acme_store_others(int fd)
{
    struct flock fl = whole(F_WRLCK);

    if (fcntl(fd, F_OFD_GETLK, &fl) < 0)
        return -errno;
    return fl.l_type != F_UNLCK;
}

void acme_store_ca_id(const char *url, char *buf, size_t size)
{
    const char *p = strstr(url, "://");
    size_t o = 0;

    for (p = p ? p + 3 : url; *p && o + 1 < size; p++) {
        char ch = *p;
        bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '.' || ch == '-';

        if (!keep && o > 0 && buf[o - 1] == '_')
            continue;
        buf[o++] = keep ? ch : '_';
    }
    while (o > 0 && buf[o - 1] == '_')
        o--;
    buf[o] = '\0';
    if (o == 0 || strcmp(buf, ".") == 0 || strcmp(buf, "..") == 0)
        snprintf(buf, size, "ca");
}
