// SPDX-License-Identifier: MIT
/*
 * sandbox.c - Landlock and a seccomp allow-list, raised once between the
 * lock-down and the first request (sandbox.h says what each allows).
 *
 * Landlock is built from what the configuration names and what the running
 * kernel's ABI can express: a right the kernel does not know is left out of
 * the handled set (the documented best-effort way), and the start-up line
 * names it. It is raised first, so the seccomp filter need not allow the
 * landlock calls.
 *
 * The seccomp allow-list is the set of system calls the serving threads made
 * under the whole test suite (strace -f, everything after the lock-down
 * phase's signalfd; tools/sandbox-syscalls.sh), plus what an error path
 * needs (abort's tgkill). Arguments are checked where a call has a dangerous
 * use beside the one served: clone only for threads, mmap and mprotect never
 * executable, prctl only to name a thread, tgkill only this process, socket
 * only for the service manager's notification socket. clone3 answers ENOSYS:
 * its flags sit in memory a filter cannot read, and glibc then uses clone.
 * Filters stack and the newest decides between equal actions, so a call an
 * outer (container) filter refuses stays refused, and openat2 is allowed
 * here: the resolver's fallback still sees the outer filter's answer.
 *
 * AddressSanitizer builds (detected at compile time) widen both walls for
 * the sanitizer's own needs: its leak check at exit lists /proc/self/task
 * and stops every thread with ptrace from a tracer it clone()s with fixed
 * flags, through the legacy open and getdents calls; its thread set-up
 * asks sched_getaffinity. Still no exec and no fork there, so a report
 * from inside the sandbox is not symbolized (no llvm-symbolizer, no reading
 * the binaries): it gives module+offset, for addr2line.
 */
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/landlock.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef BENEATH_FAULT_HOOKS
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sys/wait.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define SANDBOX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANDBOX_ASAN 1
#endif
#endif

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

/* What was raised, for the start-up line. */
struct walls {
    int abi;          /* Landlock ABI; 0: none */
    int ruleset;      /* fd, or -1 */
    uint64_t fs;      /* filesystem rights this ABI handles */
    bool landlock;    /* the domain is in force */
    bool seccomp;     /* the filter is in force */
    unsigned roots;   /* hierarchies read beneath */
    unsigned files;   /* re-read files */
    unsigned logs;    /* access log directories */
    unsigned ports;   /* TCP ports bind may name */
    unsigned calls;   /* system calls allowed */
    int counted[128]; /* their numbers */
    bool scoped_signal, scoped_abstract;
    char landlock_why[160]; /* why no Landlock, when !landlock */
    char seccomp_why[160];  /* why no seccomp, when !seccomp */
    char widened[2 * PATH_MAX + 128];
    char notes[1024]; /* what was not applied, "; " between */
    size_t notes_len;
};

__attribute__((format(printf, 2, 3))) static void note(struct walls *w,
                                                       const char *fmt, ...)
{
    va_list ap;
    size_t room = sizeof w->notes - w->notes_len;
    int n;

    if (room < 8)
        return;
    if (w->notes_len) {
        memcpy(w->notes + w->notes_len, "; ", 2);
        w->notes_len += 2;
        room -= 2;
    }
    va_start(ap, fmt);
    n = vsnprintf(w->notes + w->notes_len, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        w->notes_len += (size_t)n < room ? (size_t)n : room - 1;
}

static const char *errname(int err)
{
    const char *s = strerrorname_np(err);

    return s ? s : "?";
}

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
 * The hierarchy the root's files are read beneath. A deploy that flips a
 * symlink (current -> releases/v2) and sends SIGHUP must find the new
 * release readable: when the root's path goes through a symlink, the
 * deepest one's target is looked at and the directory holding it (releases/)
 * is allowed, unless that is / or a top-level directory, which would open
 * far too much; then the root as it resolves now, and a flip is not
 * followed (its files answer 403 until a restart). Without a symlink, the
 * root itself. Rules name inodes, not paths: a directory renamed onto the
 * root's path is not beneath the rule either (flip a symlink instead).
 */
static void add_root(struct walls *w, const char *root)
{
    char abs[PATH_MAX], prefix[PATH_MAX], dir[PATH_MAX], real[PATH_MAX];
    const char *allow = root;
    int err;

    int n = -1;

    if (root[0] == '/')
        n = snprintf(abs, sizeof abs, "%s", root);
    else if (getcwd(dir, sizeof dir))
        n = snprintf(abs, sizeof abs, "%s/%s", dir, root);
    if (n < 0 || (size_t)n >= sizeof abs)
        abs[0] = '\0';
    for (size_t len = strlen(abs); len > 1; len--) {
        struct stat st;

        if (abs[len - 1] == '/' || (abs[len] != '/' && abs[len] != '\0'))
            continue;
        snprintf(prefix, sizeof prefix, "%.*s", (int)len, abs);
        if (lstat(prefix, &st) != 0 || !S_ISLNK(st.st_mode))
            continue;
        if (holder(prefix, dir, sizeof dir)) {
            allow = dir;
            n = snprintf(w->widened, sizeof w->widened,
                         "read beneath %s, which holds the target of the "
                         "symlink %s (a SIGHUP after a flip within it is "
                         "followed)",
                         dir, prefix);
            if (n < 0 || (size_t)n >= sizeof w->widened)
                snprintf(w->widened, sizeof w->widened,
                         "read beneath the directory that holds the "
                         "target of the symlink in the root's path");
        } else if (realpath(root, real)) {
            allow = real;
            note(w,
                 "a flip of the symlink %s is not followed: its target is "
                 "in a top-level directory",
                 prefix);
        }
        break;
    }
    err = add_path(w, allow, FS_READ);
    if (err)
        note(w, "root %s: %s", allow, errname(-err));
    else
        w->roots++;
}

/*
 * A file a SIGHUP reads again: the file, and the directory it is replaced
 * in (a renewal writes a new file and renames it, or flips a symlink into
 * an archive directory), unless that directory is a top-level one.
 */
static void add_reread(struct walls *w, const char *what, const char *path)
{
    char dir[PATH_MAX];
    int err;

    if (!path)
        return;
    err = add_path(w, path, LANDLOCK_ACCESS_FS_READ_FILE);
    if (err) {
        note(w, "%s %s: %s", what, path, errname(-err));
        return;
    }
    w->files++;
    if (!holder(path, dir, sizeof dir))
        note(w, "%s %s: a replaced file is not read (top-level directory)",
             what, path);
    else if ((err = add_path(w, dir, LANDLOCK_ACCESS_FS_READ_FILE)) != 0)
        note(w, "%s directory %s: %s", what, dir, errname(-err));
}

/*
 * The access log: append to it, and create it again after a rotation moved
 * it away, which needs write and create in its directory.
 */
static void add_log(struct walls *w, const char *path)
{
    char dir[PATH_MAX];
    int err;

    if (strcmp(path, "-") == 0 || strcmp(path, "off") == 0)
        return;
    if (holder(path, dir, sizeof dir)) {
        err = add_path(w, dir,
                       LANDLOCK_ACCESS_FS_WRITE_FILE |
                           LANDLOCK_ACCESS_FS_MAKE_REG);
    } else {
        err = add_path(w, path, LANDLOCK_ACCESS_FS_WRITE_FILE);
        note(w,
             "access log %s: cannot be created again after a rotation "
             "(top-level directory)",
             path);
    }
    if (err)
        note(w, "access log %s: %s", path, errname(-err));
    else
        w->logs++;
}

/* A unix socket bound here is removed at exit: remove in its directory. */
static void add_socket_dir(struct walls *w, const char *path)
{
    char dir[PATH_MAX];
    int err;

    if (!holder(path, dir, sizeof dir)) {
        note(w, "socket %s stays at exit (top-level directory)", path);
        return;
    }
    err = add_path(w, dir, LANDLOCK_ACCESS_FS_REMOVE_FILE);
    if (err)
        note(w, "socket directory %s: %s", dir, errname(-err));
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
        note(w, "%s: %s", path, errname(errno));
        return;
    }
    pb.allowed_access = access & w->fs;
    pb.parent_fd = fd;
    if (syscall(SYS_landlock_add_rule, w->ruleset, LANDLOCK_RULE_PATH_BENEATH,
                &pb, 0) != 0) {
        note(w, "%s: %s", path, errname(errno));
        close(fd);
    }
    /* else: the fd stays open for the life of the process, on purpose */
}

/* TCP listeners: their ports are the only ones bind may name. */
static void add_ports(struct walls *w, const struct listeners *ls)
{
    for (size_t i = 0; i < ls->n; i++) {
        struct sockaddr_storage ss = {0};
        socklen_t sl = sizeof ss;
        struct net_port_attr np = {.allowed_access =
                                       LANDLOCK_ACCESS_NET_BIND_TCP};

        if (ls->v[i].fd < 0 ||
            getsockname(ls->v[i].fd, (struct sockaddr *)&ss, &sl) != 0)
            continue;
        if (ss.ss_family == AF_INET)
            np.port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        else if (ss.ss_family == AF_INET6)
            np.port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        else
            continue;
        if (syscall(SYS_landlock_add_rule, w->ruleset, RULE_NET_PORT, &np, 0) !=
            0)
            note(w, "port %llu: %s", (unsigned long long)np.port,
                 errname(errno));
        else
            w->ports++;
    }
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

/* Build and enforce the domain; 0, or -1 with w->landlock_why. */
static int landlock_raise(struct walls *w, const struct conf *c,
                          const struct listeners *ls)
{
    struct ruleset_attr attr = {0};
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
                       LANDLOCK_CREATE_RULESET_VERSION);
    int threads;

    if (abi < 0 && errno == EOPNOTSUPP) {
        snprintf(w->landlock_why, sizeof w->landlock_why,
                 "Landlock is disabled in this kernel (EOPNOTSUPP)");
        return -1;
    }
    if (abi < 0) {
        snprintf(w->landlock_why, sizeof w->landlock_why,
                 "this kernel has no Landlock (%s)", errname(errno));
        return -1;
    }
    w->abi = (int)abi;
    w->fs = fs_rights(w->abi);
    attr.handled_access_fs = w->fs;
    if (w->abi >= 4)
        attr.handled_access_net =
            LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
    else
        note(w, "TCP bind and connect rules (Landlock ABI 4)");
    if (w->abi >= 6) {
        attr.scoped = LANDLOCK_SCOPE_SIGNAL;
        w->scoped_signal = true;
        if (notify_abstract()) {
            note(w, "abstract unix sockets: NOTIFY_SOCKET is one");
        } else {
            attr.scoped |= LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
            w->scoped_abstract = true;
        }
    } else {
        note(w, "signal and abstract-socket scoping (Landlock ABI 6)");
    }
    if (w->abi < 3)
        note(w, "truncate (Landlock ABI 3)");
    if (w->abi < 5)
        note(w, "device ioctls (Landlock ABI 5)");
    w->ruleset =
        (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (w->ruleset < 0) {
        snprintf(w->landlock_why, sizeof w->landlock_why,
                 "landlock_create_ruleset: %s", errname(errno));
        return -1;
    }

    if (c->root)
        add_root(w, c->root);
    for (size_t i = 0; i < c->vhost.n; i++)
        add_root(w, conf_item_path(c->vhost.v[i]));
    for (size_t i = 0; i < c->auth.n; i++)
        add_reread(w, "auth", conf_item_path(c->auth.v[i]));
    add_reread(w, "redirects", c->redirects);
    add_reread(w, "headers-file", c->headers_file);
    add_reread(w, "tls-cert", c->tls_cert);
    add_reread(w, "tls-key", c->tls_key);
    add_reread(w, "tls-key-password-file", c->tls_key_password_file);
    add_reread(w, "config", c->config);
    add_log(w, c->access_log);
    for (size_t i = 0; i < ls->n; i++)
        if (ls->v[i].unix_path)
            add_socket_dir(w, ls->v[i].unix_path);
    if (c->resolver_cache > 0 && c->resolver != RESOLVER_BACKEND_KERNEL &&
        c->resolver != RESOLVER_BACKEND_LEXICAL)
        add_proc(w, "/proc/self/mountinfo", LANDLOCK_ACCESS_FS_READ_FILE);
#ifdef SANDBOX_ASAN
    /* The leak check at exit lists the threads to stop. */
    add_proc(w, "/proc/self/task", FS_READ);
#endif
    if (w->abi >= 4)
        add_ports(w, ls);

    threads = count_threads();
    if (threads > 1)
        note(w,
             "%d threads started before the sandbox are not under "
             "Landlock",
             threads - 1);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_landlock_restrict_self, w->ruleset, 0) != 0) {
        snprintf(w->landlock_why, sizeof w->landlock_why,
                 "landlock_restrict_self: %s", errname(errno));
        close(w->ruleset);
        w->ruleset = -1;
        return -1;
    }
    close(w->ruleset);
    w->ruleset = -1;
    w->landlock = true;
    return 0;
}

/* ------------------------------------------------------------------------
 * seccomp
 */

/*
 * Allowed without looking at arguments. "a|b": the first of the names
 * this architecture has (aarch64 lacks the older calls).
 */
/* clang-format off */
static const char *const allowed[] = {
    /* files: the resolver, responses, the directory cache, reloads */
    "openat", "openat2", "close", "close_range", "read", "pread64", "lseek",
    "newfstatat", "statx", "fstatfs", "readlinkat", "readlink|readlinkat",
    "getdents64", "fcntl", "dup2|dup3", "sendfile", "write",
    "inotify_init1", "inotify_add_watch",
    /* connections (the listening sockets are bound already) */
    "accept4", "recvfrom", "sendto", "sendmsg", "setsockopt", "getsockopt",
    "getsockname", "shutdown",
    /* libmicrohttpd's event loops */
    "epoll_create1", "epoll_ctl", "epoll_wait|epoll_pwait", "eventfd2",
    "poll|ppoll",
    /* threads, memory, time, signals */
    "futex", "set_robust_list", "rseq", "munmap", "madvise", "mremap", "brk",
    "exit", "exit_group", "rt_sigprocmask", "rt_sigreturn", "rt_sigaction",
    "getrandom", "sysinfo", "sched_yield", "clock_gettime",
    "clock_nanosleep", "restart_syscall", "getpid", "gettid",
    /* a SIGHUP re-reads the configuration: its default --threads */
    "sched_getaffinity",
#ifdef SANDBOX_ASAN
    /* the leak check's tracer: clone()d, ptraces every thread */
    "ptrace", "wait4", "sigaltstack", "getppid", "process_vm_readv",
    /* its thread set-up (pthread_getattr_np), its sleeps, its opens */
    "nanosleep", "open|openat", "getdents|getdents64",
#endif
#ifdef BENEATH_FAULT_HOOKS
    /* the test hook installs a later, outer-like filter */
    "seccomp",
#endif
};
/* clang-format on */

/* Argument @arg equals @v. */
static struct scmp_arg_cmp arg_eq(unsigned arg, scmp_datum_t v)
{
    return (struct scmp_arg_cmp){
        .arg = arg, .op = SCMP_CMP_EQ, .datum_a = v, .datum_b = 0};
}

/* Argument @arg, masked with @mask, equals @v. */
static struct scmp_arg_cmp arg_masked(unsigned arg, scmp_datum_t mask,
                                      scmp_datum_t v)
{
    return (struct scmp_arg_cmp){
        .arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = mask, .datum_b = v};
}

/* The number of an allowed[] entry on this architecture, or -1. */
static int resolve(const char *names)
{
    char one[32];

    for (const char *p = names; *p;) {
        size_t n = strcspn(p, "|");
        int nr;

        snprintf(one, sizeof one, "%.*s", (int)n, p);
        nr = seccomp_syscall_resolve_name(one);
        if (nr >= 0)
            return nr;
        p += n + (p[n] == '|');
    }
    return -1;
}

/* Allow @name (with @n argument checks); counted once per call number. */
static int allow(scmp_filter_ctx ctx, struct walls *w, int nr, unsigned n,
                 const struct scmp_arg_cmp *cmp)
{
    bool seen = false;
    int rc;

    if (nr < 0)
        return 0;
    rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, n, cmp);
    if (rc == -EEXIST)
        return 0; /* the same call under an alternative name */
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < w->calls; i++)
        seen |= w->counted[i] == nr;
    if (!seen && w->calls < sizeof w->counted / sizeof w->counted[0])
        w->counted[w->calls++] = nr;
    return 0;
}

static int allow_if(scmp_filter_ctx ctx, struct walls *w, const char *name,
                    struct scmp_arg_cmp a)
{
    return allow(ctx, w, resolve(name), 1, &a);
}

/* Build and load the filter; 0, or -1 with w->seccomp_why. */
static int seccomp_raise(struct walls *w, const struct conf *c,
                         const struct listeners *ls)
{
    uint32_t deflt = c->sandbox == CONF_SANDBOX_STRICT ? SCMP_ACT_KILL_PROCESS
                                                       : SCMP_ACT_ERRNO(EPERM);
    scmp_filter_ctx ctx = seccomp_init(deflt);
    bool unix_listener = false;
    int rc = 0;

    if (!ctx) {
        snprintf(w->seccomp_why, sizeof w->seccomp_why, "seccomp_init failed");
        return -1;
    }
    /* Every thread, and the optimiser's binary tree over the call numbers. */
    if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1) < 0 ||
        seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, deflt) < 0)
        rc = -EINVAL;
    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    for (size_t i = 0; rc == 0 && i < sizeof allowed / sizeof allowed[0]; i++)
        rc = allow(ctx, w, resolve(allowed[i]), 0, NULL);

    /* Threads only: no fork, no new process of any kind. */
    if (rc == 0)
        rc = allow_if(ctx, w, "clone",
                      arg_masked(0, CLONE_THREAD, CLONE_THREAD));
    /* libmicrohttpd names its threads. */
    if (rc == 0)
        rc = allow_if(ctx, w, "prctl", arg_eq(0, PR_SET_NAME));
#ifdef SANDBOX_ASAN
    /*
     * The leak check's tracer: a clone() sharing memory with exactly these
     * flags (sanitizer_stoptheworld_linux_libcdep.cpp), which lets the
     * tracer ptrace this process and dies with it. Still no fork.
     */
    if (rc == 0)
        rc = allow_if(
            ctx, w, "clone",
            arg_eq(0, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_UNTRACED));
    if (rc == 0)
        rc = allow_if(ctx, w, "prctl", arg_eq(0, PR_SET_PTRACER));
    if (rc == 0)
        rc = allow_if(ctx, w, "prctl", arg_eq(0, PR_SET_PDEATHSIG));
    if (rc == 0)
        rc = allow_if(ctx, w, "prctl", arg_eq(0, PR_GET_DUMPABLE));
    if (rc == 0)
        rc = allow_if(ctx, w, "prctl", arg_eq(0, PR_SET_DUMPABLE));
#endif
    if (rc == 0 && resolve("clone3") >= 0)
        rc =
            seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), resolve("clone3"), 0);
    /* W^X: no page becomes executable after start-up. */
    if (rc == 0)
        rc = allow_if(ctx, w, "mmap", arg_masked(2, PROT_EXEC, 0));
    if (rc == 0)
        rc = allow_if(ctx, w, "mprotect", arg_masked(2, PROT_EXEC, 0));
    /* abort() signals its own thread. */
    if (rc == 0)
        rc = allow_if(ctx, w, "tgkill", arg_eq(0, (scmp_datum_t)getpid()));
    /* getrlimit (the daemon sizes its per-fd tables): read, never set. */
    if (rc == 0)
        rc = allow_if(ctx, w, "prlimit64", arg_eq(2, 0));
    for (size_t i = 0; i < ls->n; i++)
        unix_listener |= ls->v[i].unix_path != NULL;
    if (rc == 0 && unix_listener)
        rc = allow(ctx, w, resolve("unlink|unlinkat"), 0, NULL);
    /* sd_notify: a datagram to the service manager's unix socket. */
    if (rc == 0 && getenv("NOTIFY_SOCKET")) {
        struct scmp_arg_cmp sock[] = {
            arg_eq(0, AF_UNIX),
            arg_masked(1, 0xf, SOCK_DGRAM),
        };
        rc = allow(ctx, w, resolve("socket"), 2, sock);
        if (rc == 0)
            rc = allow(ctx, w, resolve("connect"), 0, NULL);
    }
    if (rc == 0)
        rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc < 0) {
        snprintf(w->seccomp_why, sizeof w->seccomp_why,
                 "the filter did not load: %s", errname(-rc));
        return -1;
    }
    w->seccomp = true;
    return 0;
}

/* ------------------------------------------------------------------------
 * The test build's fault hook: SANDBOX_FAULT_HOOK="ACTION[:ARG] ..." makes
 * the server itself try what it must not, from a thread started after the
 * sandbox like the serving ones, and print one line per try. Not compiled
 * into the beneath binary (server/CMakeLists.txt: beneath_faults only).
 */
#ifdef BENEATH_FAULT_HOOKS

static bool hook_has(const char *word)
{
    const char *h = getenv("SANDBOX_FAULT_HOOK");
    size_t n = strlen(word);

    for (const char *p = h; p && (p = strstr(p, word)); p += n)
        if ((p == h || p[-1] == ' ') &&
            (p[n] == '\0' || p[n] == ' ' || p[n] == ':'))
            return true;
    return false;
}

static void hook_say(const char *action, const char *arg, int err)
{
    if (err)
        fprintf(stderr, "beneath: fault-hook: %s %s: refused: %s\n", action,
                arg, errname(err));
    else
        fprintf(stderr, "beneath: fault-hook: %s %s: DONE\n", action, arg);
}

static int try_read(const char *path)
{
    char b;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return errno;
    int err = read(fd, &b, 1) < 0 ? errno : 0;
    close(fd);
    return err;
}

static int try_write(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

    if (fd < 0)
        return errno;
    int err = write(fd, "x", 1) < 0 ? errno : 0;
    close(fd);
    return err;
}

static int try_exec(char *path)
{
    char *argv[] = {path, NULL};

    execve(path, argv, argv + 1);
    return errno; /* only on failure: else this process is @path now */
}

static int try_connect(const char *hostport)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    const char *colon = strrchr(hostport, ':');
    int fd, err = 0;

    sa.sin_port = htons((uint16_t)(colon ? strtoul(colon + 1, NULL, 10) : 1));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 &&
        errno != ECONNREFUSED)
        err = errno;
    close(fd);
    return err; /* ECONNREFUSED: the kernel let it out; nothing listens */
}

static int try_fork(void)
{
    pid_t pid = fork();

    if (pid < 0)
        return errno;
    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    return 0;
}

static int try_map_exec(void)
{
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED)
        return errno;
    munmap(p, 4096);
    return 0;
}

/* Sanitizer builds: a report must still come out of the sandbox. */
static void *leaked;

static int try_leak(void)
{
    leaked = malloc(64);
    leaked = NULL; /* lost: the leak check at exit reports 64 bytes */
    return 0;
}

static int try_overflow(void)
{
    char *p = malloc(8);
    volatile size_t at = 8; /* one past the end: ASan stops here */

    if (!p)
        return ENOMEM;
    p[at] = 'x';
    free(p);
    return 0;
}

static void *hook_tries(void *arg)
{
    char *list = arg, *save = NULL;

    for (char *t = strtok_r(list, " ", &save); t;
         t = strtok_r(NULL, " ", &save)) {
        char *a = strchr(t, ':'), none[] = "-";

        if (a)
            *a++ = '\0';
        else
            a = none; /* "read" without a path tries "-" (ENOENT) */
        if (strcmp(t, "read") == 0)
            hook_say(t, a, try_read(a));
        else if (strcmp(t, "write") == 0)
            hook_say(t, a, try_write(a));
        else if (strcmp(t, "exec") == 0)
            hook_say(t, a, try_exec(a));
        else if (strcmp(t, "connect") == 0)
            hook_say(t, a, try_connect(a));
        else if (strcmp(t, "fork") == 0)
            hook_say(t, "-", try_fork());
        else if (strcmp(t, "map-exec") == 0)
            hook_say(t, "-", try_map_exec());
        else if (strcmp(t, "leak") == 0)
            hook_say(t, "-", try_leak());
        else if (strcmp(t, "overflow") == 0)
            hook_say(t, "-", try_overflow());
    }
    return NULL;
}

/*
 * A filter of the kind outside ones are: system call @nr answers @err from
 * now on. Before the sandbox it plays a container without Landlock; after
 * it, an outer filter that blocks openat2 once beneath runs.
 */
static int hook_block(long nr, int err)
{
#if defined(__x86_64__)
    const unsigned arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
    const unsigned arch = AUDIT_ARCH_AARCH64;
#endif
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
        BPF_STMT(BPF_RET | BPF_K,
                 SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};

    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0 ? 0
                                                                        : errno;
}

/* no-landlock: the kernel (or a container's profile) lacks Landlock. */
static void hook_before(void)
{
    if (hook_has("no-landlock"))
        hook_say("no-landlock", "ENOSYS",
                 hook_block(SYS_landlock_create_ruleset, ENOSYS));
}

static void hook_after(void)
{
    const char *h = getenv("SANDBOX_FAULT_HOOK");
    const char *b = h ? strstr(h, "block-openat2:") : NULL;
    char *list;
    pthread_t t;

    if (!h)
        return;
    if (b) {
        int err = strncmp(b + 14, "ENOSYS", 6) == 0 ? ENOSYS : EPERM;
        hook_say("block-openat2", errname(err), hook_block(SYS_openat2, err));
    }
    list = strdup(h);
    if (list && pthread_create(&t, NULL, hook_tries, list) == 0)
        pthread_join(t, NULL);
    free(list);
}

#define HOOK_SKIP(wall) hook_has("skip-" wall)
#define HOOK_BEFORE() hook_before()
#define HOOK_AFTER() hook_after()
#else
#define HOOK_SKIP(wall) false
#define HOOK_BEFORE() ((void)0)
#define HOOK_AFTER() ((void)0)
#endif

/* ------------------------------------------------------------------------
 * The start-up line
 */

static void say(const struct walls *w, enum conf_sandbox mode)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (!f)
        return;
    fprintf(f, "beneath: sandbox: ");
    if (w->landlock) {
        fprintf(f, "landlock ABI %d (read beneath %u root%s", w->abi, w->roots,
                w->roots == 1 ? "" : "s");
        if (w->files)
            fprintf(f, ", read %u reloaded file%s", w->files,
                    w->files == 1 ? "" : "s");
        if (w->logs)
            fprintf(f, ", write %u log file%s", w->logs,
                    w->logs == 1 ? "" : "s");
        if (w->abi >= 4)
            fprintf(f, ", bind %u port%s, connect none", w->ports,
                    w->ports == 1 ? "" : "s");
        if (w->scoped_signal)
            fprintf(f, ", signals%s scoped",
                    w->scoped_abstract ? " and abstract sockets" : "");
        fprintf(f, ", no exec)");
    } else {
        fprintf(f, "no landlock (%s)", w->landlock_why);
    }
    if (w->seccomp)
        fprintf(f, ", seccomp allow-list (%u calls, %s for the rest)", w->calls,
                mode == CONF_SANDBOX_STRICT ? "kill" : "EPERM");
    else
        fprintf(f, ", no seccomp (%s)", w->seccomp_why);
#ifdef SANDBOX_ASAN
    fprintf(f, ", widened for ASan");
#endif
    fprintf(f, "\n");
    if (w->widened[0])
        fprintf(f, "beneath: sandbox: %s\n", w->widened);
    if (w->notes_len)
        fprintf(f, "beneath: sandbox: not applied: %s\n", w->notes);
    /* One write: whoever waits for the start-up lines sees it whole. */
    if (fclose(f) == 0) {
        ssize_t wr = write(STDERR_FILENO, buf, len);
        (void)wr;
    }
    free(buf);
}

int sandbox_apply(const struct conf *c, const struct listeners *ls)
{
    struct walls w = {.ruleset = -1};

    if (c->sandbox == CONF_SANDBOX_OFF) {
        static const char off[] = "beneath: sandbox: off (--sandbox off)\n";
        ssize_t wr = write(STDERR_FILENO, off, sizeof off - 1);
        (void)wr;
        HOOK_AFTER();
        return 0;
    }
    /* The time zone is read now: /etc is not readable afterwards. */
    tzset();
    HOOK_BEFORE();
    if (HOOK_SKIP("landlock"))
        snprintf(w.landlock_why, sizeof w.landlock_why, "skipped by the hook");
    else
        landlock_raise(&w, c, ls);
    if (HOOK_SKIP("seccomp"))
        snprintf(w.seccomp_why, sizeof w.seccomp_why, "skipped by the hook");
    else
        seccomp_raise(&w, c, ls);
    say(&w, c->sandbox);
    if (c->sandbox == CONF_SANDBOX_STRICT && (!w.landlock || !w.seccomp)) {
        fprintf(stderr, "beneath: --sandbox strict: %s is not in force\n",
                !w.landlock ? "Landlock" : "seccomp");
        return -1;
    }
    HOOK_AFTER();
    return 0;
}
