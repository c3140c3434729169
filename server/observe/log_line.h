/* SPDX-License-Identifier: MIT */
/*
 * log_line.h - one access log line from a log_record, in a parsed
 * --log-format (log_template.h); shared by log.c (the buffer and its writer
 * thread) and log_line.c (the formatting), not by the rest of the daemon.
 */
#ifndef BENEATH_OBSERVE_LOG_LINE_H
#define BENEATH_OBSERVE_LOG_LINE_H

#include "observe/log.h"
#include "syntax/log_template.h"

#include <stddef.h>

/* A line being built; cut at LOG_LINE_MAX, always room for its '\n'. */
struct log_line {
    char buf[LOG_LINE_MAX];
    size_t len;
};

/* log_line_format - @r in the format @t into @ln, ending in '\n'. */
void log_line_format(const struct log_template *t, const struct log_record *r,
                     struct log_line *ln);

#endif
