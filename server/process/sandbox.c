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
#include "process/sandbox_walls.h"
#include "process/say.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
        fprintf(f,
                ", no read right on the configuration, keys and htpasswd "
                "files (the keeper, pid %ld, hands them over), no write",
                (long)w->kept);
        if (w->abi >= 4)
            fprintf(f, ", bind none, connect none");
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
    if (w->notes_len)
        fprintf(f, "beneath: sandbox: not applied: %s\n", w->notes);
    /* One write: whoever waits for the start-up lines sees it whole. */
    if (fclose(f) == 0)
        say_block(buf, len);
    free(buf);
}

int sandbox_apply(const struct conf *c, const struct listeners *ls,
                  pid_t keeper)
{
    struct walls w = {.ruleset = -1, .kept = keeper};

    if (c->sandbox == CONF_SANDBOX_OFF) {
        static const char off[] = "beneath: sandbox: off (--sandbox off)\n";
        say_block(off, sizeof off - 1);
        sandbox_hook_after();
        return 0;
    }
    /* The time zone is read now: /etc is not readable afterwards. */
    tzset();
    sandbox_hook_before();
    /* and /proc/self/status, for who refused a wall (Landlock hides it) */
    sandbox_who_prepare();
    if (sandbox_hook_skip("landlock"))
        snprintf(w.landlock_why, sizeof w.landlock_why, "skipped by the hook");
    else
        sandbox_landlock_raise(&w, c, ls);
    if (sandbox_hook_skip("seccomp"))
        snprintf(w.seccomp_why, sizeof w.seccomp_why, "skipped by the hook");
    else
        sandbox_seccomp_raise(&w, c, ls);
    say(&w, c->sandbox);
    if (c->sandbox == CONF_SANDBOX_STRICT && (!w.landlock || !w.seccomp)) {
        fprintf(stderr, "beneath: --sandbox strict: %s is not in force\n",
                !w.landlock ? "Landlock" : "seccomp");
        return -1;
    }
    sandbox_hook_after();
    return 0;
}
