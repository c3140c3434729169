/* SPDX-License-Identifier: MIT */
/*
 * sandbox_walls.h - what the parts of the sandbox share (sandbox.c raises
 * them in order and says what is in force; sandbox_landlock.c and
 * sandbox_seccomp.c build one wall each; sandbox_faults.c is the test
 * build's fault hook). Not a public interface: sandbox.h is.
 */
#ifndef BENEATH_PROCESS_SANDBOX_WALLS_H
#define BENEATH_PROCESS_SANDBOX_WALLS_H

#include "process/sandbox.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANDBOX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANDBOX_ASAN 1
#endif
#endif

/* What was raised, for the start-up line. */
struct walls {
    int abi;          /* Landlock ABI; 0: none */
    int ruleset;      /* fd, or -1 */
    uint64_t fs;      /* filesystem rights this ABI handles */
    bool landlock;    /* the domain is in force */
    bool seccomp;     /* the filter is in force */
    unsigned roots;   /* hierarchies read beneath */
    pid_t kept;       /* the keeper that hands them over */
    unsigned calls;   /* system calls allowed */
    int counted[128]; /* their numbers */
    bool scoped_signal, scoped_abstract;
    char landlock_why[512]; /* why no Landlock, when !landlock */
    char seccomp_why[512];  /* why no seccomp, when !seccomp */
    char notes[1024];       /* what was not applied, "; " between */
    size_t notes_len;
};

/* Add "what was not applied" text to @w's notes ("; " between). */
__attribute__((format(printf, 2, 3))) void sandbox_note(struct walls *w,
                                                        const char *fmt, ...);

/* The errno's name ("EACCES"), or "?". */
const char *sandbox_errname(int err);

/* Build and enforce the Landlock domain; 0, or -1 with w->landlock_why. */
int sandbox_landlock_raise(struct walls *w, const struct conf *c,
                           const struct listeners *ls);

/* Build and load the seccomp filter; 0, or -1 with w->seccomp_why. */
int sandbox_seccomp_raise(struct walls *w, const struct conf *c,
                          const struct listeners *ls);

#ifdef BENEATH_FAULT_HOOKS
/* SANDBOX_FAULT_HOOK names skip-@wall. */
bool sandbox_hook_skip(const char *wall);
/* Before the walls: the hook's no-landlock. */
void sandbox_hook_before(void);
/* After them: block-openat2 and the tries from a new thread. */
void sandbox_hook_after(void);
#else
static inline bool sandbox_hook_skip(const char *wall)
{
    (void)wall;
    return false;
}
static inline void sandbox_hook_before(void)
{
}
static inline void sandbox_hook_after(void)
{
}
#endif

#endif
