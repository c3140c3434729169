/* SPDX-License-Identifier: MIT */
/*
 * say.h - blocks of start-up lines on stderr, each in one write(2), so that
 * whoever waits for one sees the whole block at once.
 */
#ifndef BENEATH_PROCESS_SAY_H
#define BENEATH_PROCESS_SAY_H

#include <stddef.h>

/*
 * say_block - write the @len bytes of @buf, lines that start "beneath: ",
 * to stderr in one write, with @prefix (a later generation's "SIGHUP: ";
 * "" for none) after each "beneath: ".
 */
void say_block(const char *buf, size_t len, const char *prefix);

#endif
