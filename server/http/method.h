/* SPDX-License-Identifier: MIT */
/*
 * method.h - the request methods a static server answers.
 */
#ifndef BENEATH_HTTP_METHOD_H
#define BENEATH_HTTP_METHOD_H

enum http_method {
    HTTP_GET,
    HTTP_HEAD,
    HTTP_OPTIONS,
    HTTP_OTHER, /* any other token: 405 */
};

/* The Allow header of a 405 and of OPTIONS. */
#define HTTP_ALLOW "GET, HEAD, OPTIONS"

/* http_method_of - classify the method token @method (case-sensitive). */
enum http_method http_method_of(const char *method);

#endif
