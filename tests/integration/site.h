/* SPDX-License-Identifier: MIT */
/*
 * site.h - the fixture site the end-to-end suites serve.
 *
 * Layout under base (a fresh temp dir):
 *   secret.txt            SECRET, outside the root: must never be served
 *   outside/inner.txt     SECRET too, reached only through escaping links
 *   www/                  the document root (see site.c for every entry)
 *   www-plain/            a root without 404.html
 */
#ifndef BENEATH_TESTS_INTEGRATION_SITE_H
#define BENEATH_TESTS_INTEGRATION_SITE_H

#include <stddef.h>
#include <time.h>

/* 2024-01-02 03:04:05 UTC: the mtime of every fixture file. */
#define SITE_MTIME ((time_t)1704164645)
#define SITE_MTIME_HTTP "Tue, 02 Jan 2024 03:04:05 GMT"
#define SITE_RANGE_LEN 100
#define SITE_BIG_LEN (1024 * 1024 + 123)

struct site {
    char *base;
    char *www;
    char *plain;  /* www-plain */
    char *secret; /* the secret's content */
    char *secret_path;
    char range[SITE_RANGE_LEN + 1]; /* content of /range.txt */
    char *big;                      /* content of /big.bin */
};

extern struct site site;

/* Build the site (harness-owned; call after harness_suite_setup). */
void site_build(void);
/* harness_suite_setup, then site_build: a tcase's suite set-up. */
void site_suite_setup(void);

#endif
