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
 * sandbox_apply - confine the whole process for the rest of its life, as
 * @c->sandbox says:
 *
 *  - Landlock: read (files and directories) beneath the root - or, when the
 *    root's path goes through a symlink a deploy flips, beneath the
 *    directory that holds its targets; no read of the files a SIGHUP
 *    re-reads (certificates, keys, password files, the configuration file,
 *    htpasswd and rule files: conf_reread_files): @keeper (its PID) hands
 *    them over (keeper.h); write and create in the access log's
 *    directory; removal in the directories of the unix sockets bound here;
 *    /proc/self/mountinfo for the resolver's directory cache; nothing else
 *    on the filesystem, execution included. ABI >= 4: TCP bind on the
 *    listening ports only, TCP connect to none. ABI >= 6: signals and
 *    abstract unix sockets scoped to the process. Rights the running
 *    kernel does not know are dropped and said so.
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
 * sandbox_keeper - the keeper's own walls (keeper.h): a seccomp deny-list
 * (EPERM) of what a process that reads files, connects out and signals
 * its child never needs: exec, ptrace, bind/listen/accept, mounts and
 * namespaces, modules, kexec, bpf, perf, keyrings, identity changes.
 * No Landlock: it reads the files the serving process may not. As root
 * (no --user), it first drops every capability but CAP_DAC_OVERRIDE and
 * CAP_DAC_READ_SEARCH. Returns the number of calls denied, or -1 after a
 * line on stderr.
 */
int sandbox_keeper(void);

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

/* sandbox_who_prepare - read what sandbox_who needs from /proc/self/status
 * now, while it is readable (sandbox_apply calls it before Landlock). */
void sandbox_who_prepare(void);

#endif
