// SPDX-License-Identifier: MIT
/*
 * date.c - format and parse HTTP dates without locale or strptime.
 *
 * Parsing is strict about the shape of each form (a malformed date must be
 * ignored, not guessed at), and checks ranges so timegm never normalises
 * "Feb 31" into March.
 */
#include "http/date.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const wdays[] = {"Sun", "Mon", "Tue", "Wed",
                                    "Thu", "Fri", "Sat"};
static const char *const wdays_long[] = {"Sunday",    "Monday",   "Tuesday",
                                         "Wednesday", "Thursday", "Friday",
                                         "Saturday"};
static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

void date_format(time_t t, char buf[DATE_LEN])
{
    struct tm tm;

    if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 > 9999 || tm.tm_year < -1899) {
        t = 0;
        gmtime_r(&t, &tm);
    }
    /* The fields are in range: the result is always DATE_LEN - 1 long. */
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%s, %02d %s %04d %02d:%02d:%02d GMT",
             wdays[tm.tm_wday], tm.tm_mday, months[tm.tm_mon],
             tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
    memcpy(buf, tmp, DATE_LEN - 1);
    buf[DATE_LEN - 1] = '\0';
}

/* Consume @lit exactly. */
static bool lit(const char **p, const char *s)
{
    size_t n = strlen(s);

    if (strncmp(*p, s, n) != 0)
        return false;
    *p += n;
    return true;
}

/* Consume exactly @n digits. */
static bool digits(const char **p, int n, int *out)
{
    int v = 0;

    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*p)[i]))
            return false;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *out = v;
    return true;
}

static bool month(const char **p, int *out)
{
    for (int i = 0; i < 12; i++)
        if (strncmp(*p, months[i], 3) == 0) {
            *p += 3;
            *out = i;
            return true;
        }
    return false;
}

/* "HH:MM:SS" */
static bool hms(const char **p, struct tm *tm)
{
    return digits(p, 2, &tm->tm_hour) && lit(p, ":") &&
           digits(p, 2, &tm->tm_min) && lit(p, ":") &&
           digits(p, 2, &tm->tm_sec);
}

/* Day name from @names, returns its index or -1. */
static int wday(const char **p, const char *const names[7])
{
    for (int i = 0; i < 7; i++)
        if (lit(p, names[i]))
            return i;
    return -1;
}

static bool leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static bool valid(const struct tm *tm, int year)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int max = mdays[tm->tm_mon] + (tm->tm_mon == 1 && leap(year));

    /* 60 seconds: a leap second is a valid time of day. */
    return tm->tm_mday >= 1 && tm->tm_mday <= max && tm->tm_hour <= 23 &&
           tm->tm_min <= 59 && tm->tm_sec <= 60;
}

/* IMF-fixdate after the day name: ", 06 Nov 1994 08:49:37 GMT" */
static bool imf(const char **p, struct tm *tm, int *year)
{
    return lit(p, ", ") && digits(p, 2, &tm->tm_mday) && lit(p, " ") &&
           month(p, &tm->tm_mon) && lit(p, " ") && digits(p, 4, year) &&
           lit(p, " ") && hms(p, tm) && lit(p, " GMT");
}

/* RFC 850 after the day name: ", 06-Nov-94 08:49:37 GMT" */
static bool rfc850(const char **p, struct tm *tm, int *year)
{
    int yy;

    if (!(lit(p, ", ") && digits(p, 2, &tm->tm_mday) && lit(p, "-") &&
          month(p, &tm->tm_mon) && lit(p, "-") && digits(p, 2, &yy) &&
          lit(p, " ") && hms(p, tm) && lit(p, " GMT")))
        return false;
    /*
     * RFC 9110 5.6.7: a two-digit year more than 50 years in the future is
     * in the past century. Taken relative to now.
     */
    time_t now = time(NULL);
    struct tm nt;
    gmtime_r(&now, &nt);
    int cur = nt.tm_year + 1900;
    *year = cur - cur % 100 + yy;
    if (*year > cur + 50)
        *year -= 100;
    return true;
}

/* asctime after the day name: " Nov  6 08:49:37 1994" */
static bool asc(const char **p, struct tm *tm, int *year)
{
    if (!(lit(p, " ") && month(p, &tm->tm_mon) && lit(p, " ")))
        return false;
    if (**p == ' ') {
        (*p)++;
        if (!digits(p, 1, &tm->tm_mday))
            return false;
    } else if (!digits(p, 2, &tm->tm_mday)) {
        return false;
    }
    return lit(p, " ") && hms(p, tm) && lit(p, " ") && digits(p, 4, year);
}

int date_parse(const char *s, time_t *out)
{
    struct tm tm = {0};
    int year = 0;
    bool ok;
    const char *p = s;

    while (*p == ' ' || *p == '\t')
        p++;
    /* Long names first: "Sunday" must not be read as "Sun" + garbage. */
    if (wday(&p, wdays_long) >= 0) {
        ok = rfc850(&p, &tm, &year);
    } else if (wday(&p, wdays) >= 0) {
        const char *q = p;
        ok = imf(&p, &tm, &year);
        if (!ok) {
            p = q;
            ok = asc(&p, &tm, &year);
        }
    } else {
        ok = false;
    }
    if (!ok)
        return -EINVAL;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '\0' || !valid(&tm, year))
        return -EINVAL;
    tm.tm_year = year - 1900;
    tm.tm_isdst = 0;
    time_t t = timegm(&tm);
    if (t == (time_t)-1 && !(year == 1969 && tm.tm_mon == 11))
        return -EINVAL;
    *out = t;
    return 0;
}
