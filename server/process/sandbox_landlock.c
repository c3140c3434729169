// SPDX-License-Identifier: MIT
/*
 * sandbox_landlock.c - the Landlock wall of the serving process: read
 * beneath the roots, write the access log, bind the configured ports,
 * nothing else (the files a SIGHUP reads again are the keeper's to open); built
 * from what the running kernel's ABI can express (a right it does not know is
 * left out and named in the start-up line).
 */
#include "process/sandbox_walls.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Landlock ABI 3 to 6, which Debian 12's kernel headers (ABI 2) lack. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
/* enum landlock_rule_type's LANDLOCK_RULE_NET_PORT (ABI 4). */
#define RULE_NET_PORT 2

/*
 * struct landlock_ruleset_attr as of ABI 6. An older kernel reads the part
 * it knows and requires the rest to be zero, which it is when unused.
 */
struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};
/* struct landlock_net_port_attr (ABI 4). */
struct net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};
_Static_assert(sizeof(struct ruleset_attr) == 24, "landlock_ruleset_attr");
_Static_assert(sizeof(struct net_port_attr) == 16, "landlock_net_port_attr");

/* The rights a rule on a file (not a directory) may carry. */
#define FS_FILE_RIGHTS                                                         \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |              \
     LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |              \
     LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)

/* ------------------------------------------------------------------------
 * Landlock
 */

/* Components of an absolute path: "/" 0, "/etc" 1, "/srv/www" 2. */
static int depth(const char *p)
{
    int d = 0;

    for (; *p; p++)
        if (*p == '/' && p[1] && p[1] != '/')
            d++;
    return d;
}

/* The directory holding @path once resolved, if at least 2 deep. */
static bool holder(const char *path, char *out, size_t n)
{
    char real[PATH_MAX];

    if (!realpath(path, real))
        return false;
    snprintf(out, n, "%s", dirname(real));
    return depth(out) >= 2;
}

static int add_path(struct walls *w, const char *path, uint64_t access)
{
    struct landlock_path_beneath_attr pb = {.parent_fd = -1};
    struct stat st;
    int fd = open(path, O_PATH | O_CLOEXEC), err = 0;

    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
        access &= FS_FILE_RIGHTS;
    pb.allowed_access = access & w->fs;
    pb.parent_fd = fd;
    if (pb.allowed_access && syscall(SYS_landlock_add_rule, w->ruleset,
                                     LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0)
        err = -errno;
    close(fd);
    return err;
}

/*
 * A root: read beneath it as it resolves now. Rules name inodes, not
 * paths: a tree renamed onto the root's path, or a symlink flipped, is
 * not beneath this rule - it is the next generation's (SIGHUP), whose
 * rules are made for it.
 */
static void add_root(struct walls *w, const char *root)
{
    int err = add_path(w, root, FS_READ);

    if (err)
        sandbox_note(w, "root %s: %s", root, sandbox_errname(-err));
    else
        w->roots++;
}

/*
 * A --mount: its directory as a root; a file through the directory that
 * holds it, as its mount does (a package upgrade renames a new file over
 * it: a new inode), unless that is / or a top-level directory: then the
 * file alone.
 */
static void add_mount(struct walls *w, const char *path)
{
    char dir[PATH_MAX];
    struct stat st;

    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        holder(path, dir, sizeof dir))
        add_root(w, dir);
    else
        add_root(w, path);
}

/*
 * A --follow-into directory: read beneath it as beneath a root (a link out
 * of a root that leads there is resolved beneath its fd).
 */
static void add_follow_into(struct walls *w, const char *dir)
{
    int err = add_path(w, dir, FS_READ);

    if (err)
        sandbox_note(w, "follow-into %s: %s", dir, sandbox_errname(-err));
    else
        w->roots++;
}

/*
 * A rule on a procfs file holds only its inode; a dentry that goes out of
 * the cache comes back with a new one. Keeping an O_PATH fd open pins the
 * dentry, so the path keeps naming the inode the rule is on.
 */
static void add_proc(struct walls *w, const char *path, uint64_t access)
{
    struct landlock_path_beneath_attr pb;
    int fd = open(path, O_PATH | O_CLOEXEC);

    if (fd < 0) {
        sandbox_note(w, "%s: %s", path, sandbox_errname(errno));
        return;
    }
    pb.allowed_access = access & w->fs;
    pb.parent_fd = fd;
    if (syscall(SYS_landlock_add_rule, w->ruleset, LANDLOCK_RULE_PATH_BENEATH,
                &pb, 0) != 0) {
        sandbox_note(w, "%s: %s", path, sandbox_errname(errno));
        close(fd);
    }
    /* else: the fd stays open for the life of the process, on purpose */
}

/* Threads of this process; Landlock confines only the caller's future. */
static int count_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;

    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

static uint64_t fs_rights(int abi)
{
    uint64_t r = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1 */

    if (abi >= 2)
        r |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        r |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5)
        r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    return r;
}

static bool notify_abstract(void)
{
    const char *s = getenv("NOTIFY_SOCKET");

    return s && s[0] == '@';
}

/* The ruleset for this kernel's ABI; 0, or -1 with w->landlock_why. */
static int ruleset_create(struct walls *w)
{
    struct ruleset_attr attr = {0};
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
                       LANDLOCK_CREATE_RULESET_VERSION);

    if (abi < 0 && errno == EOPNOTSUPP) {
        snprintf(w->landlock_why, sizeof w->landlock_why,
                 "Landlock is disabled in this kernel (EOPNOTSUPP)");
        return -1;
    }
    if (abi < 0) {
        int err = errno;

        if (!sandbox_who("landlock_create_ruleset", err, w->landlock_why,
                         sizeof w->landlock_why))
            snprintf(w->landlock_why, sizeof w->landlock_why,
                     "this kernel has no Landlock (%s)", sandbox_errname(err));
        return -1;
    }
    w->abi = (int)abi;
    w->fs = fs_rights(w->abi);
    attr.handled_access_fs = w->fs;
    if (w->abi >= 4)
        attr.handled_access_net =
            LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
    else
        sandbox_note(w, "TCP bind and connect rules (Landlock ABI 4)");
    if (w->abi >= 6) {
        attr.scoped = LANDLOCK_SCOPE_SIGNAL;
        w->scoped_signal = true;
        if (notify_abstract()) {
            sandbox_note(w, "abstract unix sockets: NOTIFY_SOCKET is one");
        } else {
            attr.scoped |= LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
            w->scoped_abstract = true;
        }
    } else {
        sandbox_note(w, "signal and abstract-socket scoping (Landlock ABI 6)");
    }
    if (w->abi < 3)
        sandbox_note(w, "truncate (Landlock ABI 3)");
    if (w->abi < 5)
        sandbox_note(w, "device ioctls (Landlock ABI 5)");
    w->ruleset =
        (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (w->ruleset < 0) {
        snprintf(w->landlock_why, sizeof w->landlock_why,
                 "landlock_create_ruleset: %s", sandbox_errname(errno));
        return -1;
    }
    return 0;
}

/* A rule for everything the configuration names that is read (beneath
 * the roots), written, removed or bound after the start-up. */
static void add_configured(struct walls *w, const struct conf *c,
                           const struct listeners *ls)
{
    if (c->root)
        add_root(w, c->root);
    for (size_t i = 0; i < c->vhost.n; i++)
        add_root(w, conf_item_path(c->vhost.v[i]));
    for (size_t i = 0; i < c->mount.n; i++)
        add_mount(w, conf_item_path(c->mount.v[i]));
    for (size_t i = 0; i < c->follow_into.n; i++)
        add_follow_into(w, c->follow_into.v[i]);
    /* --sites: one rule for DIR, whatever the number of sites; each site's
     * confinement is the resolver's (beneath its own directory) */
    if (c->sites)
        add_root(w, c->sites);
    /* nothing the keeper hands over (conf_reread_files), nothing written:
     * the access log is open already */
    if (c->resolver_cache > 0 && c->resolver != RESOLVER_BACKEND_KERNEL &&
        c->resolver != RESOLVER_BACKEND_LEXICAL)
        add_proc(w, "/proc/self/mountinfo", LANDLOCK_ACCESS_FS_READ_FILE);
#ifdef SANDBOX_ASAN
    /* The leak check at exit lists the threads to stop. */
    add_proc(w, "/proc/self/task", FS_READ);
#endif
    (void)ls;
}

/* Build and enforce the domain; 0, or -1 with w->landlock_why. */
int sandbox_landlock_raise(struct walls *w, const struct conf *c,
                           const struct listeners *ls)
{
    int threads;

    if (ruleset_create(w) != 0)
        return -1;
    add_configured(w, c, ls);
    threads = count_threads();
    if (threads > 1)
        sandbox_note(w,
                     "%d threads started before the sandbox are not under "
                     "Landlock",
                     threads - 1);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_landlock_restrict_self, w->ruleset, 0) != 0) {
        snprintf(w->landlock_why, sizeof w->landlock_why,
                 "landlock_restrict_self: %s", sandbox_errname(errno));
        close(w->ruleset);
        w->ruleset = -1;
        return -1;
    }
    close(w->ruleset);
    w->ruleset = -1;
    w->landlock = true;
    return 0;
}
