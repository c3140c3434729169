/* SPDX-License-Identifier: MIT */
/*
 * mime.h - Content-Type from a file name's extension (built-in table).
 */
#ifndef MIME_H
#define MIME_H

/*
 * mime_type - the Content-Type for @name, by its last extension, compared
 * without regard to case. Text types carry "; charset=utf-8".
 *
 * Returns a static string; "application/octet-stream" when the extension is
 * unknown or absent.
 */
const char *mime_type(const char *name);

#endif
