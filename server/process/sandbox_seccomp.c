// SPDX-License-Identifier: MIT
/*
 * sandbox_seccomp.c - the seccomp allow-list: the system calls the serving
 * threads make, with their arguments checked where a call has a dangerous
 * use beside the one served (sandbox.c's header says which).
 */
#include "common/elems.h"
#include "process/sandbox_walls.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

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
    /* the keeper's records, descriptors beside them (keeper.h) */
    "recvmsg",
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

/* The calls allowed with their arguments checked; 0 or -errno. */
static int allow_checked(scmp_filter_ctx ctx, struct walls *w,
                         const struct listeners *ls)
{
    bool unix_listener = false;

    /* Threads only: no fork, no new process of any kind. */
    int rc =
        allow_if(ctx, w, "clone", arg_masked(0, CLONE_THREAD, CLONE_THREAD));
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
    return rc;
}

/* Build and load the filter; 0, or -1 with w->seccomp_why. */
int sandbox_seccomp_raise(struct walls *w, const struct conf *c,
                          const struct listeners *ls)
{
    uint32_t deflt = c->sandbox == CONF_SANDBOX_STRICT ? SCMP_ACT_KILL_PROCESS
                                                       : SCMP_ACT_ERRNO(EPERM);
    uint32_t allow_action = SECCOMP_RET_ALLOW;
    scmp_filter_ctx ctx;
    int rc = 0;

    /* seccomp(2) itself may be refused by a filter already in place. */
    if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &allow_action) != 0) {
        int err = errno;

        if (!sandbox_who("seccomp", err, w->seccomp_why, sizeof w->seccomp_why))
            snprintf(w->seccomp_why, sizeof w->seccomp_why,
                     "this kernel has no seccomp filters (%s)",
                     sandbox_errname(err));
        return -1;
    }
    ctx = seccomp_init(deflt);
    if (!ctx) {
        snprintf(w->seccomp_why, sizeof w->seccomp_why, "seccomp_init failed");
        return -1;
    }
    /* Every thread, and the optimiser's binary tree over the call numbers. */
    if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1) < 0 ||
        seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, deflt) < 0)
        rc = -EINVAL;
    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    /* the kernel's own errno when the load fails, not libseccomp's */
    seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
    for (size_t i = 0; rc == 0 && i < sizeof allowed / sizeof allowed[0]; i++)
        rc = allow(ctx, w, resolve(allowed[i]), 0, NULL);

    if (rc == 0)
        rc = allow_checked(ctx, w, ls);
    if (rc == 0)
        rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc < 0) {
        snprintf(w->seccomp_why, sizeof w->seccomp_why,
                 "the filter did not load: %s", sandbox_errname(-rc));
        return -1;
    }
    w->seccomp = true;
    return 0;
}

/* ------------------------------------------------------------------------
 * The keeper's list: denied, EPERM; everything else it may do (read the
 * files it hands over, connect out for ACME, signal and wait for its child).
 */

/* clang-format off */
static const char *const keeper_denied[] = {
    "execve", /* execveat: only of its own binary (sandbox_keeper) */
#ifndef SANDBOX_ASAN
    /* (the leak check at exit ptraces every thread from a clone) */
    "ptrace", "process_vm_readv", "process_vm_writev",
#endif
    /* accept4 stays: the serving processes inherit this list */
    "bind", "listen",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
    "mount_setattr", "name_to_handle_at", "open_by_handle_at",
    "init_module", "finit_module", "delete_module", "kexec_load",
    "kexec_file_load", "reboot", "swapon", "swapoff", "bpf",
    "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
    "personality", "iopl", "ioperm", "acct", "quotactl", "settimeofday",
    "clock_settime", "adjtimex", "sethostname", "setdomainname",
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid",
    "setgroups", "setfsuid", "setfsgid", "capset",
};
/* clang-format on */

/*
 * execveat(@exe, "", argv, envp, AT_EMPTY_PATH) and nothing else: any
 * other descriptor, or any flag, is refused. Two rules, either refuses.
 */
static int keeper_exec(scmp_filter_ctx ctx, int exe)
{
    int nr = resolve("execveat");
    int rc;

    if (nr < 0)
        return 0;
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
                          SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)exe));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
                              SCMP_A4(SCMP_CMP_NE, AT_EMPTY_PATH));
    return rc;
}

int sandbox_keeper(int exe)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    unsigned calls = 0;
    int rc = ctx ? 0 : -ENOMEM;

    /* every thread (none yet: the ACME manager starts after) */
    if (rc == 0 && seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1) < 0)
        rc = -EINVAL;
    if (rc == 0)
        seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
    for (size_t i = 0; rc == 0 && i < N_ELEMS(keeper_denied); i++) {
        int nr = resolve(keeper_denied[i]);

        if (nr < 0)
            continue; /* not on this architecture */
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
        calls += rc == 0;
    }
    if (rc == 0)
        rc = keeper_exec(ctx, exe);
    calls += rc == 0;
    if (rc == 0)
        rc = seccomp_load(ctx);
    if (ctx)
        seccomp_release(ctx);
    if (rc < 0) {
        fprintf(stderr, "beneath: keeper: its seccomp list did not load: %s\n",
                sandbox_errname(-rc));
        return -1;
    }
    return (int)calls;
}
