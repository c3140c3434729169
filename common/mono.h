/* SPDX-License-Identifier: MIT */
/*
 * mono.h - the one monotonic clock of the tree. Deadlines, timeouts and
 * durations all read it; wall time (Date, log stamps) is elsewhere.
 *
 * mono_ns and mono_ms read CLOCK_MONOTONIC (exact, for durations);
 * mono_coarse_ms reads CLOCK_MONOTONIC_COARSE (a few ms late, no syscall,
 * for the deadlines a loop checks on every event).
 */
#ifndef BENEATH_COMMON_MONO_H
#define BENEATH_COMMON_MONO_H

#include <stdint.h>

/* mono_ns - CLOCK_MONOTONIC in ns. */
uint64_t mono_ns(void);

/* mono_ms - CLOCK_MONOTONIC in ms. */
int64_t mono_ms(void);

/* mono_coarse_ms - CLOCK_MONOTONIC_COARSE in ms. */
int64_t mono_coarse_ms(void);

#endif
