// SPDX-License-Identifier: MIT
/*
 * self_signed.c - the --tls-self-signed certificate and its key kept in the
 * state directory (self_signed.h).
 *
 * Security decisions: the key file is written 0600 under a temporary name
 * (O_EXCL|O_NOFOLLOW, so nothing planted there is written through) and
 * renamed into place, so a reader never sees half a key; the directories
 * made on the way are 0700. A kept key is taken only when it is a regular
 * file of ours that no one else may read (not a symlink, owned by the
 * effective user, no group or other bits); anything else, or a pair that
 * does not load (a key not matching its certificate, an expired or foreign
 * certificate), is replaced by a new pair. Only start-up reads or writes
 * here (before privileges are dropped and the sandbox is up).
 */
#include "process/self_signed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CERT_NAME "cert.pem"
#define KEY_NAME "key.pem"

/* The value of @name in @env, or NULL (empty counts as unset). */
static const char *env_get(char *const *env, const char *name)
{
    size_t n = strlen(name);

    for (; env && *env; env++)
        if (strncmp(*env, name, n) == 0 && (*env)[n] == '=' && (*env)[n + 1])
            return *env + n + 1;
    return NULL;
}

const char *self_signed_state_dir(char *const *env, char *buf, size_t size)
{
    const char *v;
    int n;

    if ((v = env_get(env, "STATE_DIRECTORY")) != NULL)
        /* systemd lists one directory per StateDirectory= entry, ':' apart */
        n = snprintf(buf, size, "%.*s", (int)strcspn(v, ":"), v);
    else if ((v = env_get(env, "XDG_STATE_HOME")) != NULL)
        n = snprintf(buf, size, "%s/beneath", v);
    else if ((v = env_get(env, "HOME")) != NULL)
        n = snprintf(buf, size, "%s/.local/state/beneath", v);
    else
        return NULL;
    return n > 0 && (size_t)n < size ? buf : NULL;
}

/* mkdir -p @path, each new directory 0700; 0 or -errno. */
static int make_dirs(char *path)
{
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        int err = mkdir(path, 0700) == 0 || errno == EEXIST ? 0 : -errno;
        *p = c;
        if (err || c == '\0')
            return err;
    }
}

/* @len bytes of @text as @name in @dfd, mode @mode, atomically. */
static int write_file(int dfd, const char *name, const char *text, size_t len,
                      mode_t mode)
{
    char tmp[64];
    int fd, err = 0;

    /* of this process: two starts at once never write through each other */
    snprintf(tmp, sizeof tmp, ".%s.%ld.new", name, (long)getpid());
    (void)unlinkat(dfd, tmp, 0);
    fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                mode);
    if (fd < 0)
        return -errno;
    for (size_t off = 0; off < len && !err;) {
        ssize_t n = write(fd, text + off, len - off);
        if (n < 0 && errno != EINTR)
            err = -errno;
        else if (n > 0)
            off += (size_t)n;
    }
    if (!err && fsync(fd) != 0)
        err = -errno;
    if (close(fd) != 0 && !err)
        err = -errno;
    if (!err && renameat(dfd, tmp, dfd, name) != 0)
        err = -errno;
    if (err)
        (void)unlinkat(dfd, tmp, 0);
    return err;
}

/* Whether the key file at @path is one that only we may read. */
static bool key_private(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           st.st_uid == geteuid() && (st.st_mode & 077) == 0;
}

int self_signed_get(const char *dir, bool dry, time_t now,
                    struct tls_material *m, struct tls_material_diag *d,
                    char *note, size_t size)
{
    char sub[4096], cert[4200], key[4200];
    int dfd, err;

    snprintf(note, size, "not kept (no state directory)");
    if (dir && (size_t)snprintf(sub, sizeof sub, "%s/%s", dir,
                                SELF_SIGNED_SUBDIR) < sizeof sub) {
        snprintf(cert, sizeof cert, "%s/%s", sub, CERT_NAME);
        snprintf(key, sizeof key, "%s/%s", sub, KEY_NAME);
        if (key_private(key) &&
            tls_material_load(m, cert, key, NULL, now, d) == 0) {
            if (m->n_certs == 1 && strcmp(m->subject, "CN=localhost") == 0 &&
                m->not_after - now > (time_t)SELF_SIGNED_RENEW_DAYS * 86400) {
                snprintf(note, size, "read from %s", sub);
                return 0;
            }
            tls_material_free(m);
        }
    }
    err = tls_material_self_signed(m, now, TLS_MATERIAL_SELF_SIGNED_DAYS, d);
    if (err || !dir || dry) {
        if (!err && dir)
            snprintf(note, size, "not kept (--check writes nothing)");
        return err;
    }
    err = make_dirs(sub);
    dfd = err ? -1 : open(sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (!err && dfd < 0)
        err = -errno;
    /* the key first: a certificate beside an old key does not load */
    if (!err)
        err = write_file(dfd, KEY_NAME, m->key_pem, m->key_len, 0600);
    if (!err)
        err = write_file(dfd, CERT_NAME, m->cert_pem, m->cert_len, 0644);
    if (dfd >= 0)
        close(dfd);
    if (err)
        snprintf(note, size, "not kept: %s: %s (a new one at each start)", sub,
                 strerror(-err));
    else
        snprintf(note, size, "kept in %s", sub);
    return 0;
}
