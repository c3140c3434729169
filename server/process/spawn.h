/* SPDX-License-Identifier: MIT */
/*
 * spawn.h - start a serving process from the keeper: a new image of the
 * keeper's own binary (execveat of a descriptor opened at start-up), never
 * a bare fork of the keeper. The keeper has threads (the ACME manager,
 * libcurl's resolver) and holds keys: a fork would give the serving process
 * a copy of its memory and of locks another thread may hold. A new image
 * starts with neither, and with its own address-space layout.
 *
 * The serving process finds the socket to its keeper at SPAWN_FD, named by
 * the environment variable SPAWN_ENV; everything else (listeners, the
 * files to read, its generation) comes over that socket (keeper.h).
 */
#ifndef BENEATH_PROCESS_SPAWN_H
#define BENEATH_PROCESS_SPAWN_H

#include <sys/types.h>

/* Where a serving process finds its keeper's socket. */
#define SPAWN_FD 3
#define SPAWN_ENV "BENEATH_SERVING_FD"

/*
 * spawn_exe - open the running binary (/proc/self/exe) for spawn_serving:
 * at start-up, before privileges are dropped. Returns an O_PATH
 * descriptor, or -errno.
 */
int spawn_exe(void);

/*
 * spawn_env - the environment of a serving process: the caller's without
 * what is the keeper's alone (NOTIFY_SOCKET, LISTEN_PID, LISTEN_FDS,
 * LISTEN_FDNAMES), with SPAWN_ENV set. Built before forking (the child may
 * not allocate). Free with spawn_env_free. NULL when out of memory.
 */
char **spawn_env(void);
void spawn_env_free(char **env);

/*
 * spawn_serving - fork; the child puts @sock at SPAWN_FD, marks every other
 * descriptor above 2 close-on-exec and executes @exe with @argv and @env,
 * using only async-signal-safe calls. Signals blocked in the caller stay
 * blocked in the child (the serving process sets its own mask).
 * Returns the child's PID, or -errno (nothing started). A child whose exec
 * fails writes one line on stderr and exits 127.
 */
pid_t spawn_serving(int exe, char *const argv[], char *const env[], int sock);

#endif
