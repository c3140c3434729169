/* SPDX-License-Identifier: MIT */
/*
 * say.h - the server's lines on stderr. A block of start-up lines goes out
 * in one write(2), so that whoever waits for one sees the whole block. A
 * serving process started by a SIGHUP says so in every line of its
 * start-up ("beneath: SIGHUP: ..."), its errors included: stderr passes
 * through a stream that puts the prefix in, from say_prefix_begin until
 * say_prefix_end (once it serves, its lines are its own again).
 */
#ifndef BENEATH_PROCESS_SAY_H
#define BENEATH_PROCESS_SAY_H

#include <stddef.h>

/*
 * say_block - write the @len bytes of @buf, lines that start "beneath: ",
 * to stderr in one write, with the current prefix after each "beneath: ".
 */
void say_block(const char *buf, size_t len);

/*
 * say_prefix_begin - from now on, "beneath: " at the start of each line
 * written to stderr (or by say_block) is followed by @prefix (static
 * storage). say_prefix_end - no more.
 */
void say_prefix_begin(const char *prefix);
void say_prefix_end(void);

#endif
