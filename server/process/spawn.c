// SPDX-License-Identifier: MIT
/*
 * spawn.c - a serving process as a new image of the keeper's binary
 * (spawn.h). Between fork and exec the child only moves descriptors and
 * calls execveat: everything it needs (the environment, the arguments) was
 * built before the fork.
 */
#include "process/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

int spawn_exe(void)
{
    int fd = open("/proc/self/exe", O_PATH | O_CLOEXEC);

    if (fd < 0)
        return -errno;
    if (fd <= SPAWN_FD) {
        /* not where the child puts its keeper's socket before the exec */
        int high = fcntl(fd, F_DUPFD_CLOEXEC, SPAWN_FD + 1);
        int err = high < 0 ? -errno : 0;

        close(fd);
        return high < 0 ? err : high;
    }
    return fd;
}

/* Variables that are the keeper's alone. */
static bool keepers(const char *e)
{
    static const char *const names[] = {"NOTIFY_SOCKET", "LISTEN_PID",
                                        "LISTEN_FDS", "LISTEN_FDNAMES",
                                        SPAWN_ENV};

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i]);

        if (strncmp(e, names[i], n) == 0 && e[n] == '=')
            return true;
    }
    return false;
}

char **spawn_env(void)
{
    size_t n = 0, k = 0;

    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!keepers(environ[i]) && !(env[k++] = strdup(environ[i])))
            goto out_free;
    char set[64];
    snprintf(set, sizeof set, "%s=%d", SPAWN_ENV, SPAWN_FD);
    if (!(env[k] = strdup(set)))
        goto out_free;
    return env;
out_free:
    spawn_env_free(env);
    return NULL;
}

void spawn_env_free(char **env)
{
    for (size_t i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}

/* The child's way to exec: async-signal-safe calls only. */
static _Noreturn void child(int exe, char *const argv[], char *const env[],
                            int sock)
{
    static const char fail[] = "beneath: keeper: cannot start the serving "
                               "process: exec failed\n";

    if (sock == SPAWN_FD)
        (void)fcntl(sock, F_SETFD, 0);
    else if (dup2(sock, SPAWN_FD) < 0)
        goto out_fail;
    /* nothing else of the keeper's crosses: not its keys, not its sockets */
    (void)syscall(SYS_close_range, SPAWN_FD + 1, ~0U, CLOSE_RANGE_CLOEXEC);
    syscall(SYS_execveat, exe, "", argv, env, AT_EMPTY_PATH);
out_fail:
    (void)!write(STDERR_FILENO, fail, sizeof fail - 1);
    _exit(127);
}

pid_t spawn_serving(int exe, char *const argv[], char *const env[], int sock)
{
    pid_t pid = fork();

    if (pid < 0)
        return -errno;
    if (pid == 0)
        child(exe, argv, env, sock);
    return pid;
}
