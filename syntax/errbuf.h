/* SPDX-License-Identifier: MIT */
/*
 * errbuf.h - format an error message into a caller's buffer.
 *
 * The option parsers of the server (cache rules, --header) report what is
 * wrong in a buffer the caller prints; they never print themselves.
 */
#ifndef BENEATH_SYNTAX_ERRBUF_H
#define BENEATH_SYNTAX_ERRBUF_H

#include <stddef.h>

/* printf into @err (@size bytes, always terminated); nothing if @size is 0. */
__attribute__((format(printf, 3, 4))) void errbuf_say(char *err, size_t size,
                                                      const char *fmt, ...);

#endif
