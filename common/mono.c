// SPDX-License-Identifier: MIT
/*
 * mono.c - the one monotonic clock (mono.h).
 */
#include "common/mono.h"

#include <time.h>

static struct timespec now(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return ts;
}

uint64_t mono_ns(void)
{
    struct timespec ts = now(CLOCK_MONOTONIC);

    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int64_t mono_ms(void)
{
    struct timespec ts = now(CLOCK_MONOTONIC);

    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t mono_coarse_ms(void)
{
    struct timespec ts = now(CLOCK_MONOTONIC_COARSE);

    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
