// SPDX-License-Identifier: MIT
/*
 * method.c - method tokens are case-sensitive (RFC 9110 9.1): "get" is not
 * GET, and gets 405 like any other unknown method.
 */
#include "http/method.h"

#include <string.h>

enum http_method http_method_of(const char *method)
{
    if (strcmp(method, "GET") == 0)
        return HTTP_GET;
    if (strcmp(method, "HEAD") == 0)
        return HTTP_HEAD;
    if (strcmp(method, "OPTIONS") == 0)
        return HTTP_OPTIONS;
    return HTTP_OTHER;
}
