// SPDX-License-Identifier: MIT
/*
 * handed.c - the configuration's files, opened by path or handed over by
 * the keeper (handed.h).
 */
#include "common/handed.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct handed_set current; /* under lock */
static bool active;               /* under lock */

int handed_add(struct handed_set *s, const char *path, int fd)
{
    char *p = strdup(path);

    if (p && s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        struct handed_file *v = realloc(s->v, cap * sizeof *v);

        if (v) {
            s->v = v;
            s->cap = cap;
        }
    }
    if (!p || s->n == s->cap) {
        free(p);
        if (fd >= 0)
            close(fd);
        return -ENOMEM;
    }
    s->v[s->n++] = (struct handed_file){.path = p, .fd = fd};
    return 0;
}

void handed_clear(struct handed_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i].fd >= 0)
            close(s->v[i].fd);
        free(s->v[i].path);
    }
    free(s->v);
    *s = (struct handed_set){0};
}

void handed_begin(struct handed_set *s)
{
    pthread_mutex_lock(&lock);
    handed_clear(&current);
    current = *s;
    *s = (struct handed_set){0};
    active = true;
    pthread_mutex_unlock(&lock);
}

void handed_end(void)
{
    pthread_mutex_lock(&lock);
    handed_clear(&current);
    pthread_mutex_unlock(&lock);
}

/* A dup of @fd at offset 0: -1 with errno on failure. */
static int rewound(int fd, int flags)
{
    int d = fcntl(fd, (flags & O_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 0);

    if (d >= 0 && lseek(d, 0, SEEK_SET) < 0 && errno != ESPIPE) {
        int err = errno;
        close(d);
        errno = err;
        return -1;
    }
    return d;
}

/* The errno for a file of mode @mode: 0 for a regular file. */
static int type_errno(mode_t mode)
{
    if (S_ISREG(mode))
        return 0;
    return S_ISDIR(mode) ? EISDIR : EINVAL;
}

/* @fd if it is a regular file, else -1 with errno (@fd closed). */
static int regular(int fd)
{
    struct stat st;
    int err;

    if (fd < 0)
        return -1;
    err = fstat(fd, &st) != 0 ? errno : type_errno(st.st_mode);
    if (err == 0)
        return fd;
    close(fd);
    errno = err;
    return -1;
}

int handed_open_path(const char *path, int flags)
{
    struct stat st;
    int err;

    /*
     * Looked at before it is opened: a device is not opened at all. The
     * open is non-blocking (a FIFO put in its place meanwhile does not
     * wait for a writer) and what it opened is looked at again.
     */
    if (stat(path, &st) != 0)
        return -1;
    err = type_errno(st.st_mode);
    if (err) {
        errno = err;
        return -1;
    }
    return regular(open(path, flags | O_NONBLOCK | O_NOCTTY));
}

int handed_pem_certificate(const char *path, char *why, size_t size)
{
    /* a regular file only: a FIFO would hang the start, a device read on */
    int fd = handed_open_path(path, O_RDONLY | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    bool pem = false;
    char line[128];

    if (f == NULL) {
        snprintf(why, size, "%s: %s", path, handed_strerror(errno));
        if (fd >= 0)
            close(fd);
        return -EINVAL;
    }
    while (!pem && fgets(line, sizeof line, f))
        pem = strncmp(line, "-----BEGIN CERTIFICATE-----", 27) == 0;
    fclose(f);
    if (pem)
        return 0;
    snprintf(why, size, "%s: no PEM certificate", path);
    return -EINVAL;
}

int handed_open(const char *path, int flags)
{
    int fd = -1, err = EACCES;

    pthread_mutex_lock(&lock);
    if (!active) {
        pthread_mutex_unlock(&lock);
        return handed_open_path(path, flags);
    }
    for (size_t i = 0; i < current.n; i++) {
        if (strcmp(current.v[i].path, path) != 0)
            continue;
        if (current.v[i].fd < 0) {
            err = -current.v[i].fd;
        } else {
            fd = rewound(current.v[i].fd, flags);
            err = errno;
        }
        break;
    }
    pthread_mutex_unlock(&lock);
    if (fd < 0) {
        errno = err;
        return -1;
    }
    return regular(fd);
}

const char *handed_strerror(int err)
{
    if (err == EINVAL)
        return "not a regular file (a FIFO, socket or device)";
    return strerror(err);
}
