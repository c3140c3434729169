// SPDX-License-Identifier: MIT
/*
 * sandbox_who.c - who refused a system call at start-up: a seccomp filter
 * that was in place before beneath ran (systemd's RestrictSUIDSGID= or
 * SystemCallFilter=, a container runtime's profile, a parent's filter), or
 * the kernel. The start-up lines say which, so a missing wall or the
 * emulated backend is never blamed on the kernel when a unit file or a
 * profile is the cause, and they say what to change.
 *
 * The facts come from the kernel itself: /proc/self/status (Seccomp:,
 * Seccomp_filters:, NoNewPrivs:), uname's release for calls older kernels
 * lack, and one probe that tells systemd's RestrictSUIDSGID= filter from
 * any other: fchmod(-1, S_ISUID) fails with EPERM under it (the filter
 * looks at the mode before the kernel looks at the fd) and with EBADF
 * otherwise. DynamicUser=yes implies it (a uid does not tell DynamicUser=:
 * with a static user of the same name, systemd uses that). The status is
 * read before the
 * sandbox is raised (sandbox_who_prepare), since Landlock then hides it.
 */
#include "process/sandbox.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

/* What /proc/self/status says; -1 where a line is missing. */
struct status {
    long seccomp; /* 0 none, 1 strict, 2 filter */
    long filters; /* Seccomp_filters (Linux 5.9) */
    long nnp;     /* NoNewPrivs */
};

/*
 * Read before the sandbox (Landlock hides /proc/self/status) and kept:
 * sandbox_who_prepare reads it again, status_get only the first time.
 */
static struct status facts = {-1, -1, -1};
static bool facts_read;
/* filters the keeper raised: in place before, but beneath's own */
static long keepers;

void sandbox_who_keeper(int filters)
{
    keepers = filters;
}

static void status_read(void)
{
    struct status *st = &facts;
    char line[256];
    FILE *f = fopen("/proc/self/status", "re");

    facts_read = true;
    *st = (struct status){-1, -1, -1};
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        long *to = NULL;

        if (!colon)
            continue;
        *colon = '\0';
        if (strcmp(line, "Seccomp") == 0)
            to = &st->seccomp;
        else if (strcmp(line, "Seccomp_filters") == 0)
            to = &st->filters;
        else if (strcmp(line, "NoNewPrivs") == 0)
            to = &st->nnp;
        if (to)
            *to = strtol(colon + 1, NULL, 10);
    }
    fclose(f);
    if (st->filters >= keepers && keepers > 0) {
        st->filters -= keepers;
        if (st->filters == 0)
            st->seccomp = 0; /* only beneath's own: none before it */
    }
}

static const struct status *status_get(void)
{
    if (!facts_read)
        status_read();
    return &facts;
}

void sandbox_who_prepare(void)
{
    status_read();
}

/* The calls asked about: since which kernel, and whether a kernel of that
 * version or later may still be built without it. */
static const struct call {
    const char *name;
    int major, minor;
    bool optional;
} calls[] = {
    {"openat2", 5, 6, false},
    {"landlock_create_ruleset", 5, 13, true},
    {"seccomp", 3, 17, false},
};

/* The running kernel is older than @c's first. */
static bool kernel_before(const struct call *c)
{
    struct utsname u;
    int ma = 0, mi = 0;

    char *end;

    if (uname(&u) != 0)
        return false;
    ma = (int)strtol(u.release, &end, 10);
    if (end == u.release || *end != '.')
        return false;
    mi = (int)strtol(end + 1, NULL, 10);
    return ma < c->major || (ma == c->major && mi < c->minor);
}

/* systemd's RestrictSUIDSGID= filter is in place. */
static bool restrict_suid_sgid(void)
{
    if (fchmod(-1, 0) == 0 || errno != EBADF)
        return false;
    return fchmod(-1, S_ISUID) != 0 && errno == EPERM;
}

bool sandbox_who(const char *call, int err, char *buf, size_t n)
{
    static const struct call unknown = {"", 0, 0, true};
    const struct call *c = &unknown;
    const struct status *st = status_get();
    const char *name = strerrorname_np(err);
    bool unit = getenv("INVOCATION_ID") != NULL;

    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        if (strcmp(calls[i].name, call) == 0)
            c = &calls[i];
    if (st->seccomp < 2 || (err == ENOSYS && kernel_before(c)))
        return false;
    if (!name)
        name = "?";
    if (strcmp(call, "openat2") == 0 && err == ENOSYS && restrict_suid_sgid()) {
        /* its filter cannot read openat2's flags, so it refuses them all */
        snprintf(buf, n,
                 "openat2 refused with ENOSYS by systemd's RestrictSUIDSGID= "
                 "(which DynamicUser=yes implies), not by the kernel: "
                 "DynamicUser=no, a system User= and RestrictSUIDSGID=no in a "
                 "drop-in (systemctl edit) turn the kernel backend back on, "
                 "as the packaged beneath.service has them");
        return true;
    }
    snprintf(buf, n,
             "%s refused with %s by a seccomp filter in place before beneath "
             "started (Seccomp_filters: %ld, NoNewPrivs: %ld in "
             "/proc/self/status), not by the kernel%s: %s must allow %s",
             call, name, st->filters, st->nnp,
             err == ENOSYS && c->optional ? " (unless it was built without it)"
                                          : "",
             unit ? "the unit's SystemCallFilter="
                  : "that filter (a container runtime's seccomp profile, or a "
                    "parent's)",
             call);
    return true;
}
