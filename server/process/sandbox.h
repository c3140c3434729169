/* SPDX-License-Identifier: MIT */
/*
 * sandbox.h - the process confines itself once it has done everything that
 * needs more (listeners bound, certificates read, privileges dropped): a
 * Landlock domain and a seccomp allow-list, the second and third walls
 * behind the confined resolver. docs/security.md says what each stops.
 */
#ifndef BENEATH_PROCESS_SANDBOX_H
#define BENEATH_PROCESS_SANDBOX_H

#include "conf.h"
#include "process/listen.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * sandbox_apply - confine the whole serving process for the rest of its
 * life, as @c->sandbox says:
 *
 *  - Landlock: read (files and directories) beneath the roots, as they are
 *    now (a deploy that renames a new tree into place or flips a symlink
 *    is served by the next generation, built for its roots); no read of
 *    the files @keeper (its PID) hands over (certificates, keys, password
 *    files, the configuration file, htpasswd and rule files:
 *    conf_reread_files); no write anywhere (the access log is open
 *    already); /proc/self/mountinfo for the resolver's directory cache;
 *    nothing else on the filesystem, execution included. ABI >= 4: TCP bind
 *    and connect to none. ABI >= 6: signals and abstract unix sockets
 *    scoped to the process. Rights the running kernel does not know are
 *    dropped and said so.
 *  - seccomp: an allow-list of the system calls the serving threads make;
 *    any other fails with EPERM (on) or kills the process (strict). Every
 *    thread, present and future (TSYNC).
 *
 * Call once, from the only thread, after the last step that needs more and
 * before any serving thread starts: Landlock confines the calling thread
 * and the threads it starts afterwards, never threads already running.
 * Prints one start-up line ("beneath: sandbox: ...") on stderr that says
 * what was applied and what not, and why.
 *
 * Returns 0 (on: also when the kernel lacks a part, which the line names),
 * or -1 after a message: strict, and a wall is not in force.
 */
int sandbox_apply(const struct conf *c, const struct listeners *ls,
                  pid_t keeper);

/*
 * sandbox_keeper - the keeper's own wall (keeper.h): a seccomp deny-list
 * (EPERM) of what a process that reads files, connects out, starts its
 * serving processes and waits for them never needs: exec (but execveat of
 * @exe, its own binary, with AT_EMPTY_PATH), ptrace, bind/listen, mounts
 * and namespaces, modules, kexec, bpf, perf, keyrings, identity changes.
 * The serving processes inherit it under their own allow-list: accept4
 * and Landlock stay allowed for them. No Landlock: the keeper reads the
 * files the serving processes may not. Returns the number of calls denied
 * (execveat counted once), or -1 after a line on stderr.
 */
int sandbox_keeper(int exe);

/*
 * sandbox_who - who refused @call (openat2, landlock_create_ruleset,
 * seccomp) with @err at start-up: when a seccomp filter was in place before
 * beneath started and the kernel has the call, writes into @buf (@n bytes)
 * a clause that names the filter (systemd's RestrictSUIDSGID=, a unit's
 * SystemCallFilter=, a container's profile), the facts it rests on
 * (/proc/self/status) and what gives the call back, and returns true.
 * Returns false when the kernel answered (no filter in place, or a kernel
 * older than the call): the caller's own words about the kernel stand.
 * sandbox_apply asks it about the walls' own calls.
 */
bool sandbox_who(const char *call, int err, char *buf, size_t n);

/* sandbox_who_keeper - @filters seccomp filters in place are the keeper's
 * own (sandbox_keeper), not a filter that was there before beneath. */
void sandbox_who_keeper(int filters);

/* sandbox_who_prepare - read what sandbox_who needs from /proc/self/status
 * now, while it is readable (sandbox_apply calls it before Landlock). */
void sandbox_who_prepare(void);

#endif
