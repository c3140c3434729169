/* SPDX-License-Identifier: MIT */
/*
 * fixture.c - declarative test trees: build from a list, remove with nftw;
 * the per-test scratch directory of the Check suites; the fd count.
 */
#include "fixture.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p of the first @len bytes of @rel below @root_fd. */
static int make_parents(int root_fd, const char *rel, size_t len)
{
    char buf[PATH_MAX];

    if (len >= sizeof(buf))
        return -ENAMETOOLONG;
    memcpy(buf, rel, len);
    buf[len] = '\0';
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char c = buf[i];

        buf[i] = '\0';
        if (mkdirat(root_fd, buf, 0755) < 0 && errno != EEXIST)
            return -errno;
        buf[i] = c;
    }
    return 0;
}

static int write_file(int root_fd, const char *name, const char *text)
{
    size_t len = strlen(text);
    int fd =
        openat(root_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    int err = 0;

    if (fd < 0)
        return -errno;
    if (len && write(fd, text, len) != (ssize_t)len)
        err = errno ? -errno : -EIO;
    if (close(fd) < 0 && err == 0)
        err = -errno;
    return err;
}

static int build_one(int root_fd, const char *entry)
{
    char name[PATH_MAX];
    const char *arrow = strstr(entry, " -> ");
    const char *eq = strchr(entry, '=');
    size_t len = strlen(entry);
    const char *slash;
    int err;

    if (arrow)
        len = (size_t)(arrow - entry);
    else if (eq)
        len = (size_t)(eq - entry);
    if (len == 0 || len >= sizeof(name))
        return -EINVAL;
    memcpy(name, entry, len);
    name[len] = '\0';
    if (strstr(name, ".."))
        return -EINVAL;
    slash = strrchr(name, '/');
    if (slash && slash[1] == '\0') /* "dir/" */
        return make_parents(root_fd, name, len - 1);
    if (slash) {
        err = make_parents(root_fd, name, (size_t)(slash - name));
        if (err < 0)
            return err;
    }
    if (arrow)
        return symlinkat(arrow + 4, root_fd, name) < 0 ? -errno : 0;
    if (eq)
        return write_file(root_fd, name, eq + 1);
    if (name[len - 1] == '|') {
        name[len - 1] = '\0';
        return mkfifoat(root_fd, name, 0644) < 0 ? -errno : 0;
    }
    return write_file(root_fd, name, "");
}

int fixture_build(const char *root, const char *const *spec, size_t n,
                  const char **bad)
{
    int root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int err = 0;

    if (bad)
        *bad = NULL;
    if (root_fd < 0)
        return -errno;
    for (size_t i = 0; i < n && err == 0; i++) {
        err = build_one(root_fd, spec[i]);
        if (err < 0 && bad)
            *bad = spec[i];
    }
    close(root_fd);
    return err;
}

int fixture_make(const char *const *spec, size_t n, char *root, size_t size,
                 const char **bad)
{
    const char *tmp = getenv("TMPDIR");
    int len;
    int err;

    if (bad)
        *bad = NULL;
    if (!tmp || !*tmp)
        tmp = "/tmp";
    len = snprintf(root, size, "%s/beneath-XXXXXX", tmp);
    if (len < 0 || (size_t)len >= size)
        return -ENAMETOOLONG;
    if (!mkdtemp(root))
        return -errno;
    err = fixture_build(root, spec, n, bad);
    if (err < 0)
        fixture_remove(root);
    return err;
}

static int remove_first_err;

static int remove_one(const char *path, const struct stat *st, int type,
                      struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (remove(path) < 0 && remove_first_err == 0)
        remove_first_err = -errno;
    (void)type;
    return 0;
}

int fixture_remove(const char *root)
{
    remove_first_err = 0;
    if (nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0)
        return -errno;
    return remove_first_err;
}

int fixture_count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;

    if (!d)
        return -errno;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1; /* the directory stream's own fd */
}

char fixture_dir[128];

void fixture_dir_setup(void)
{
    int err = fixture_make(NULL, 0, fixture_dir, sizeof(fixture_dir), NULL);

    ck_assert_msg(err == 0, "fixture_dir_setup: %s", strerror(-err));
}

void fixture_dir_teardown(void)
{
    fixture_remove(fixture_dir);
}

const char *fixture_path(const char *name)
{
    static _Thread_local char path[4][PATH_MAX];
    static _Thread_local unsigned k;

    k = (k + 1) % 4;
    snprintf(path[k], sizeof(path[k]), "%s/%s", fixture_dir, name);
    return path[k];
}

/* The first port of the ephemeral range, 32768 when it cannot be read. */
static unsigned ephemeral_low(void)
{
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
    char line[64];
    unsigned long lo = 32768;

    if (f) {
        if (fgets(line, sizeof line, f)) {
            char *end;
            lo = strtoul(line, &end, 10);
            if (end == line || lo <= 12000 || lo > 65535)
                lo = 32768;
        }
        fclose(f);
    }
    return (unsigned)lo;
}

static int port_binds(unsigned port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

    ck_assert_msg(fd >= 0, "socket: %s", strerror(errno));
    ok = bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    close(fd);
    return ok;
}

unsigned fixture_free_port(void)
{
    const unsigned first = 10000, lo = ephemeral_low();

    for (int i = 0; i < 500; i++) {
        uint32_t r;

        ck_assert_msg(getrandom(&r, sizeof r, 0) == (ssize_t)sizeof r,
                      "getrandom: %s", strerror(errno));
        unsigned port = first + r % (lo - first);
        if (port_binds(port))
            return port;
    }
    ck_abort_msg("no free port of 127.0.0.1 in %u..%u", first, lo - 1);
    return 0;
}
