/* SPDX-License-Identifier: MIT */
/*
 * date_cache.h - the Date field of this second (RFC 9110 6.6.1), formatted
 * once a second per thread, for the replies of both protocols.
 */
#ifndef BENEATH_TRANSPORT_CONN_DATE_CACHE_H
#define BENEATH_TRANSPORT_CONN_DATE_CACHE_H

#include <time.h>

/*
 * date_cache_text - @now as an IMF-fixdate; the text is the calling
 * thread's and stays until its next call with another second.
 */
const char *date_cache_text(time_t now);

#endif
