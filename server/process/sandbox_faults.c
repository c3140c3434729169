// SPDX-License-Identifier: MIT
/*
 * sandbox_faults.c - compiled into the test binary beneath_faults only
 * (BENEATH_FAULT_HOOKS).
 */
#include "process/sandbox_walls.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
 * The test build's fault hook: SANDBOX_FAULT_HOOK="ACTION[:ARG] ..." makes
 * the server itself try what it must not, from a thread started after the
 * sandbox like the serving ones, and print one line per try. Not compiled
 * into the beneath binary (server/CMakeLists.txt: beneath_faults only).
 */

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
                arg, sandbox_errname(err));
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

/* no-landlock: a container's profile lacks Landlock; no-seccomp: a unit's
 * SystemCallFilter= refuses seccomp(2) (EPERM). */
void sandbox_hook_before(void)
{
    if (hook_has("no-landlock"))
        hook_say("no-landlock", "ENOSYS",
                 hook_block(SYS_landlock_create_ruleset, ENOSYS));
    if (hook_has("no-seccomp"))
        hook_say("no-seccomp", "EPERM", hook_block(SYS_seccomp, EPERM));
}

void sandbox_hook_after(void)
{
    const char *h = getenv("SANDBOX_FAULT_HOOK");
    const char *b = h ? strstr(h, "block-openat2:") : NULL;
    char *list;
    pthread_t t;

    if (!h)
        return;
    if (b) {
        int err = strncmp(b + 14, "ENOSYS", 6) == 0 ? ENOSYS : EPERM;
        hook_say("block-openat2", sandbox_errname(err),
                 hook_block(SYS_openat2, err));
    }
    list = strdup(h);
    if (list && pthread_create(&t, NULL, hook_tries, list) == 0)
        pthread_join(t, NULL);
    free(list);
}

bool sandbox_hook_skip(const char *wall)
{
    char word[32];

    snprintf(word, sizeof word, "skip-%s", wall);
    return hook_has(word);
}
