/* SPDX-License-Identifier: MIT */
/*
 * log_template.h - --log-format's templates are a syntax of the
 * configuration: syntax/log_template.h. This name stays for the files that
 * still include it from here (server/observe/, tests/test_log.c).
 */
#ifndef BENEATH_HTTP_LOG_TEMPLATE_H
#define BENEATH_HTTP_LOG_TEMPLATE_H

#include "syntax/log_template.h"

#endif
