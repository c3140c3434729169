/* SPDX-License-Identifier: MIT */
/*
 * status.h - HTTP status codes, reason phrases and the errno -> status table.
 *
 * The one place where a resolver errno becomes an HTTP status (DESIGN.md step
 * 4). Changing a policy is changing one row in status.c.
 */
#ifndef BENEATH_HTTP_STATUS_H
#define BENEATH_HTTP_STATUS_H

/* Every status beneath sends or logs: X(code, NAME, "Reason Phrase"). */
#define HTTP_STATUS_MAP(X)                                                     \
    X(200, OK, "OK")                                                           \
    X(204, NO_CONTENT, "No Content")                                           \
    X(206, PARTIAL_CONTENT, "Partial Content")                                 \
    X(301, MOVED_PERMANENTLY, "Moved Permanently")                             \
    X(302, FOUND, "Found")                                                     \
    X(303, SEE_OTHER, "See Other")                                             \
    X(304, NOT_MODIFIED, "Not Modified")                                       \
    X(307, TEMPORARY_REDIRECT, "Temporary Redirect")                           \
    X(308, PERMANENT_REDIRECT, "Permanent Redirect")                           \
    X(400, BAD_REQUEST, "Bad Request")                                         \
    X(401, UNAUTHORIZED, "Unauthorized")                                       \
    X(403, FORBIDDEN, "Forbidden")                                             \
    X(404, NOT_FOUND, "Not Found")                                             \
    X(405, METHOD_NOT_ALLOWED, "Method Not Allowed")                           \
    X(408, REQUEST_TIMEOUT, "Request Timeout")                                 \
    X(412, PRECONDITION_FAILED, "Precondition Failed")                         \
    X(414, URI_TOO_LONG, "URI Too Long")                                       \
    X(416, RANGE_NOT_SATISFIABLE, "Range Not Satisfiable")                     \
    X(421, MISDIRECTED_REQUEST, "Misdirected Request")                         \
    X(431, REQUEST_HEADER_FIELDS_TOO_LARGE, "Request Header Fields Too Large") \
    X(500, INTERNAL_SERVER_ERROR, "Internal Server Error")                     \
    X(501, NOT_IMPLEMENTED, "Not Implemented")                                 \
    X(503, SERVICE_UNAVAILABLE, "Service Unavailable")                         \
    X(505, HTTP_VERSION_NOT_SUPPORTED, "HTTP Version Not Supported")

enum status {
#define STATUS_ENUM(code, name, reason) STATUS_##name = (code),
    HTTP_STATUS_MAP(STATUS_ENUM)
#undef STATUS_ENUM
};

/*
 * status_from_errno - the HTTP status for a resolver or open error.
 * @err: a positive errno (a negative one is accepted and negated).
 *
 * Returns 404 for ENOENT, ENOTDIR, ENAMETOOLONG; 403 for EACCES, EPERM and
 * the confinement refusals EXDEV, ELOOP, and ENXIO, ENODEV (a socket or a
 * device that open(2) refuses); 503 for EAGAIN; 500 otherwise.
 */
int status_from_errno(int err);

/*
 * status_reason - the reason phrase of @code ("Not Found").
 *
 * Returns "Unknown" for a code not in HTTP_STATUS_MAP.
 */
const char *status_reason(int code);

#endif
