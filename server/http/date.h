/* SPDX-License-Identifier: MIT */
/*
 * date.h - HTTP dates (RFC 9110 section 5.6.7).
 */
#ifndef BENEATH_HTTP_DATE_H
#define BENEATH_HTTP_DATE_H

#include <time.h>

/* "Sun, 06 Nov 1994 08:49:37 GMT" plus the NUL. */
#define DATE_LEN 30

/*
 * date_format - write @t as an IMF-fixdate into @buf (DATE_LEN bytes).
 */
void date_format(time_t t, char buf[DATE_LEN]);

/*
 * date_parse - parse an HTTP date in any of the three forms a recipient must
 * accept: IMF-fixdate, RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime
 * ("Sun Nov  6 08:49:37 1994"). Leading and trailing spaces are allowed.
 *
 * Returns 0 and sets @out, or -EINVAL for anything else (an invalid date is
 * ignored by the caller, as RFC 9110 says for If-Modified-Since).
 */
int date_parse(const char *s, time_t *out);

#endif
