// SPDX-License-Identifier: MIT
/*
 * date_cache.c - the Date of this second, per thread (date_cache.h).
 */
#include "transport/conn/date_cache.h"

#include "http/date.h"

const char *date_cache_text(time_t now)
{
    static _Thread_local time_t at;
    static _Thread_local char text[DATE_LEN];

    if (now != at) {
        date_format(now, text);
        at = now;
    }
    return text;
}
