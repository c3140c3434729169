/* SPDX-License-Identifier: MIT */
/*
 * mime.h - Content-Type from a file name's extension (built-in table).
 */
#ifndef BENEATH_HTTP_MIME_H
#define BENEATH_HTTP_MIME_H

#include <stdbool.h>

/*
 * mime_type - the Content-Type for @name, by its last extension, compared
 * without regard to case. Text types carry "; charset=utf-8".
 *
 * Returns a static string; "application/octet-stream" when the extension is
 * unknown or absent.
 */
const char *mime_type(const char *name);

/*
 * mime_compressible - whether the type of @name (as mime_type finds it) is
 * worth compressing on the fly: a flag of its row in the table. Unknown
 * extensions are not.
 */
bool mime_compressible(const char *name);

#endif
