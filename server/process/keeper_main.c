// SPDX-License-Identifier: MIT
/*
 * keeper_main.c - the keeper's program (keeper.h): the process the user
 * started, which holds the listening sockets and starts serving processes,
 * one per configuration generation.
 *
 * Start: the listeners are bound (or taken from socket activation) and
 * --user looked up while the keeper may still do both; then it drops
 * privileges (as root without --user: every capability but reading and
 * writing files), raises its own seccomp list, and only then opens what
 * the configuration names for the first serving process - as it will for
 * every later one, so a file the keeper cannot open fails at start as it
 * would on a reload.
 *
 * Each generation: the configuration is loaded here (its messages printed
 * here, once), the files it names are opened, a serving process is started
 * (spawn.h) and given them with the listeners and the ACME records in
 * force. When it says it serves, the one before it is told to drain: it
 * stops accepting, finishes what it holds within --drain-timeout and
 * exits. A generation that fails its checks (it prints why, with
 * FILE:LINE, and exits 2) or is not serving within START_BOUND_MS changes
 * nothing: the old one serves on. The first generation failing ends the
 * keeper with its status, as one process would end.
 *
 * Signals: SIGHUP starts a generation (one more SIGHUP during a start
 * starts another after it); SIGTERM and SIGINT become a stop record to
 * every serving process (a second one: stop now). The serving generation
 * ending on its own ends the keeper with its status, or by its signal.
 */
#include "process/keeper_main.h"

#include "common/handed.h"
#include "common/mono.h"
#include "process/acme_conf.h"
#include "process/acme_serve.h"
#include "process/certs.h"
#include "process/keeper.h"
#include "process/listen.h"
#include "process/notify.h"
#include "process/sandbox.h"
#include "process/self_signed.h"
#include "process/spawn.h"
#include "tls/keyless.h"
#include "transport/h1/metrics_server.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define EXIT_CONF 2
/* A serving process not serving by then is stopped, the old one serves. */
#define START_BOUND_MS 60000

enum kid_state { KID_STARTING, KID_SERVING, KID_DRAINING };

/* One serving process. */
struct kid {
    pid_t pid;
    int fd; /* our end of its socketpair; -1 once it closed its end */
    unsigned gen;
    enum kid_state state;
    int64_t start_by;      /* KID_STARTING: ms by which it serves */
    struct keeper *keeper; /* for its signing thread */
    /* KID_DRAINING, until it says it accepts no more: who took over */
    unsigned successor;
    pid_t successor_pid;
    unsigned bound; /* its --drain-timeout */
    int signer;     /* our end of its keys' socket (keyless.h), or -1 */
    pthread_t signing;
    bool signing_runs;
    struct kid *next;
};

struct keeper {
    int argc;
    char **argv;
    int exe;             /* the binary serving processes run */
    char **env;          /* their environment */
    struct listeners ls; /* held for every generation */
    int metrics_fd;      /* --metrics-listen's socket, or -1 */
    char metrics_url[96];
    uid_t uid;
    gid_t gid;
    struct conf boot; /* the first generation's, once another serves:
                         the restart-only options' values in force */
    bool boot_set;
    struct conf cur;  /* the serving generation's configuration */
    struct conf next; /* the starting generation's (next_set) */
    bool next_set;
    struct kid *kids;
    unsigned gens; /* generations started so far */
    int sfd;
    bool stopping;
    bool again;  /* a SIGHUP came while a generation was starting */
    int filters; /* seccomp filters of its own (lock_down), inherited */
    int status;  /* the serving generation's end, as an exit status */
    int signo;   /* or the signal it was killed by (0: none) */
    struct acme_serve *acme;
    struct keyless_keys *keys; /* the TLS keys, which never leave */
};

/* ---- start-up ----------------------------------------------------------- */

int keeper_check_user(const struct conf *c, uid_t *uid, gid_t *gid)
{
    struct passwd *pw;

    if (!c->user)
        return 0;
    pw = getpwnam(c->user);
    if (!pw) {
        fprintf(stderr, "beneath: --user %s: no such user\n", c->user);
        return 1;
    }
    if (geteuid() != 0 && pw->pw_uid != geteuid()) {
        fprintf(stderr, "beneath: --user %s: switching needs root\n", c->user);
        return 1;
    }
    if (uid)
        *uid = pw->pw_uid;
    if (gid)
        *gid = pw->pw_gid;
    return 0;
}

/*
 * Started as root, the keeper keeps of root's capabilities only what its
 * work needs: reading any file (keys and htpasswd files, whoever owns
 * them: CAP_DAC_READ_SEARCH) and, without --user, writing --acme-dir
 * wherever it is (CAP_DAC_OVERRIDE). The rest leaves the permitted,
 * effective, inheritable and bounding sets, so no serving process it
 * starts can have more: with --user, none at all (an exec as a user
 * without file capabilities gains none); as root, those two. 0 or -errno.
 */
static int keep_caps(bool user)
{
    uint64_t keep = UINT64_C(1) << CAP_DAC_READ_SEARCH;
    struct __user_cap_header_struct h = {.version =
                                             _LINUX_CAPABILITY_VERSION_3};

    if (!user)
        keep |= UINT64_C(1) << CAP_DAC_OVERRIDE;
    struct __user_cap_data_struct d[2] = {
        {.effective = (uint32_t)keep, .permitted = (uint32_t)keep},
        {.effective = (uint32_t)(keep >> 32),
         .permitted = (uint32_t)(keep >> 32)},
    };
    return syscall(SYS_capset, &h, d) == 0 ? 0 : -errno;
}

static int drop_bounding(bool user)
{
    uint64_t keep = (UINT64_C(1) << CAP_DAC_READ_SEARCH) |
                    (user ? 0 : UINT64_C(1) << CAP_DAC_OVERRIDE);

    for (int c = 0; prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++)
        if (!(keep & (UINT64_C(1) << c)) &&
            prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0)
            return -errno;
    return 0;
}

/* --user, and as root the capabilities kept (keep_caps). 0 or -1. */
static int drop_privileges(const struct keeper *k, const char *user)
{
    bool root = geteuid() == 0;
    int err = root ? drop_bounding(user != NULL) : 0;

    if (err) {
        fprintf(stderr, "beneath: keeper: cannot drop capabilities: %s\n",
                strerror(-err));
        return -1;
    }
    if (!user) {
        err = root ? keep_caps(false) : 0;
        if (err)
            fprintf(stderr, "beneath: keeper: cannot drop capabilities: %s\n",
                    strerror(-err));
        return err ? -1 : 0;
    }
    /* the capabilities kept survive the change of user, then are set */
    if (root)
        (void)prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0);
    if (setgroups(1, &k->gid) != 0 || setgid(k->gid) != 0 ||
        setuid(k->uid) != 0) {
        fprintf(stderr, "beneath: --user %s: cannot switch: %s\n", user,
                strerror(errno));
        return -1;
    }
    if (k->uid != 0 &&
        (setuid(0) == 0 || geteuid() != k->uid || getegid() != k->gid)) {
        fprintf(stderr, "beneath: --user %s: privileges were not dropped\n",
                user);
        return -1;
    }
    if (root) {
        (void)prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
        err = keep_caps(true);
        if (err) {
            fprintf(stderr, "beneath: keeper: cannot keep reading files: %s\n",
                    strerror(-err));
            return -1;
        }
    }
    return 0;
}

/* The listening sockets and --metrics-listen; the number of problems. */
static int bind_all(struct keeper *k, const struct conf *c)
{
    int err = listen_open(c, &k->ls);

    if (err == -ENOMEM) {
        fprintf(stderr, "beneath: out of memory\n");
        return 1;
    }
    if (c->metrics_listen) {
        k->metrics_fd = metrics_server_bind(c->metrics_listen, k->metrics_url,
                                            sizeof k->metrics_url);
        if (k->metrics_fd < 0) {
            fprintf(stderr, "beneath: --metrics-listen %s: %s\n",
                    c->metrics_listen, strerror(-k->metrics_fd));
            k->metrics_fd = -1;
            err++;
        }
    }
    return err;
}

/* ---- generations -------------------------------------------------------- */

struct handing {
    int fd;
    int err;
};

/* conf_reread_files's callback: open @path and hand it over, but a key
 * (or its password): that stays here (hand_keys). */
static void hand_one(const char *what, const char *path, void *arg)
{
    struct handing *h = arg;

    if (strcmp(what, "tls-key") == 0 ||
        strcmp(what, "tls-key-password-file") == 0)
        return;
    /* a regular file only: a FIFO must not hang the keeper, nor a device
       be opened (the serving process says why it was refused) */
    int f = handed_open(path, O_RDONLY | O_CLOEXEC);

    int r = keeper_send(h->fd, KEEPER_FILE, f < 0 ? -errno : 0, &path, 1, f);
    if (r && !h->err)
        h->err = r;
    if (f >= 0)
        close(f);
}

/*
 * A key of @m (its PEM text) into the keeper's table; what the serving
 * process is told of @path: the public half (and @note), or @why not.
 */
static int hand_key(struct keeper *k, int fd, const char *path,
                    const struct tls_material *m, const char *why,
                    const char *note)
{
    BIO *b = m ? BIO_new_mem_buf(m->key_pem, (int)m->key_len) : NULL;
    EVP_PKEY *key = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
    uint8_t id[KEYLESS_ID_LEN];
    char *pem = NULL;
    int err = key ? keyless_keys_add(k->keys, key, id) : -EINVAL;

    char said[512];

    if (err == 0)
        pem = keyless_public_pem(key);
    /* why it cannot serve, naming the file as tls_material_load does */
    if (err == -ENOTSUP || !why || !why[0]) {
        snprintf(said, sizeof said, "%s: %s", path,
                 err == -ENOTSUP
                     ? "only EC and RSA keys can be kept by the keeper"
                     : "cannot read the key");
        why = said;
    }
    const char *f[] = {path, pem ? pem : "", pem ? note : why};
    int r = keeper_send(fd, KEEPER_KEY, 0, f, 3, -1);
    free(pem);
    EVP_PKEY_free(key);
    BIO_free(b);
    ERR_clear_error();
    return r;
}

struct keying {
    struct keeper *k;
    int fd;
    int err;
};

/* certs_each's callback: one certificate's key, read and kept here. */
static void key_one(const char *name, const char *cert, const char *key,
                    const char *password, void *arg)
{
    struct keying *g = arg;
    struct tls_material m;
    struct tls_material_diag d;
    int err = tls_material_load(&m, cert, key, password, time(NULL), &d);

    (void)name;
    err = hand_key(g->k, g->fd, key, err ? NULL : &m, d.error, "");
    if (err && !g->err)
        g->err = err;
    tls_material_free(&m);
}

/* The certificate in @m as a file to hand over (a memfd). -errno. */
static int memfd_of(const struct tls_material *m)
{
    int fd = memfd_create("self-signed", MFD_CLOEXEC);
    size_t off = 0;

    if (fd < 0)
        return -errno;
    while (off < m->cert_len) {
        ssize_t w = write(fd, m->cert_pem + off, m->cert_len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int err = w < 0 ? -errno : -EIO;
            close(fd);
            return err;
        }
        off += (size_t)w;
    }
    return fd;
}

/*
 * --tls-self-signed: the certificate made here (or read from the state
 * directory, which the keeper writes), its key kept here; the serving
 * process is given the certificate and the key's public half under
 * CERTS_SELF_SIGNED_CERT and _KEY.
 */
static int hand_self_signed(struct keeper *k, const struct conf *c, int fd)
{
    struct tls_material m;
    struct tls_material_diag d;
    char buf[4096], note[4200] = "";
    int err = self_signed_get(certs_state_dir(c, buf, sizeof buf), false,
                              time(NULL), &m, &d, note, sizeof note);
    int cert = err ? err : memfd_of(&m);
    const char *path = CERTS_SELF_SIGNED_CERT;

    if (cert >= 0 || !err)
        err = keeper_send(fd, KEEPER_FILE, cert < 0 ? cert : 0, &path, 1, cert);
    if (cert >= 0)
        close(cert);
    if (!err)
        err = hand_key(k, fd, CERTS_SELF_SIGNED_KEY, cert >= 0 ? &m : NULL,
                       d.error, note);
    tls_material_free(&m);
    return err;
}

/* The signer of @d's keys: a thread of its own (keyless_serve). */
static void *signing(void *arg)
{
    struct kid *d = arg;
    struct keeper *k = d->keeper;

    keyless_serve(k->keys, d->signer);
    return NULL;
}

/* @d's keys' socket: one end handed over, a thread on the other. */
static int hand_signer(struct keeper *k, struct kid *d)
{
    int sv[2], err;

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return -errno;
    d->signer = sv[0];
    d->keeper = k;
    err = keeper_send(d->fd, KEEPER_SIGNER, 0, NULL, 0, sv[1]);
    close(sv[1]);
    if (!err)
        err = -pthread_create(&d->signing, NULL, signing, d);
    d->signing_runs = err == 0;
    return err;
}

/* Everything a serving process of @c is given before it starts. */
static int hand_all(struct keeper *k, const struct conf *c, struct kid *d)
{
    struct handing h = {.fd = d->fd};
    struct keying g = {.k = k, .fd = d->fd};
    int fd = d->fd;
    unsigned gen = d->gen;

    conf_reread_files(c, hand_one, &h);
    if (!h.err && certs_wanted(c)) {
        certs_each(c, key_one, &g);
        h.err = g.err;
        if (!h.err && c->tls_self_signed)
            h.err = hand_self_signed(k, c, fd);
    }
    if (!h.err)
        h.err = hand_signer(k, d);
    for (size_t i = 0; i < k->ls.n && !h.err; i++) {
        const char *f[] = {k->ls.v[i].url, k->ls.v[i].tls && !k->ls.activated
                                               ? "tls"
                                               : "plain"};
        h.err = keeper_send(fd, KEEPER_LISTENER, 0, f, 2, k->ls.v[i].fd);
    }
    if (!h.err && k->metrics_fd >= 0) {
        const char *f[] = {k->metrics_url};
        h.err = keeper_send(fd, KEEPER_METRICS, 0, f, 1, k->metrics_fd);
    }
    if (!h.err)
        h.err = keeper_replay(fd);
    if (!h.err) {
        /* the seccomp filters in place that are the keeper's own */
        const char *f[] = {k->filters ? "1" : "0"};
        h.err = keeper_send(fd, KEEPER_GO, (int)gen, f, 1, -1);
    }
    return h.err;
}

static struct kid *kid_find(struct keeper *k, enum kid_state state)
{
    for (struct kid *d = k->kids; d; d = d->next)
        if (d->state == state)
            return d;
    return NULL;
}

static void kid_close_fd(struct kid *d)
{
    if (d->fd < 0)
        return;
    keeper_detach(d->fd);
    close(d->fd);
    d->fd = -1;
}

static void kid_free(struct keeper *k, struct kid *d)
{
    for (struct kid **p = &k->kids; *p; p = &(*p)->next)
        if (*p == d) {
            *p = d->next;
            break;
        }
    kid_close_fd(d);
    if (d->signer >= 0) {
        /* the thread's receive ends (the process is gone or going) */
        (void)shutdown(d->signer, SHUT_RDWR);
        if (d->signing_runs)
            pthread_join(d->signing, NULL);
        close(d->signer);
    }
    free(d);
}

/*
 * Start generation k->gens + 1 with @c. 0, or -errno after a line (nothing
 * runs then).
 */
static int start_kid(struct keeper *k, const struct conf *c)
{
    struct kid *d = calloc(1, sizeof *d);
    int sv[2] = {-1, -1}, err = -ENOMEM;

    if (!d)
        goto out_fail;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        err = -errno;
        goto out_fail;
    }
    d->gen = ++k->gens;
    d->fd = sv[0];
    d->signer = -1;
    d->state = KID_STARTING;
    d->start_by = mono_ms() + START_BOUND_MS;
    d->pid = spawn_serving(k->exe, k->argv, k->env, sv[1]);
    close(sv[1]);
    if (d->pid < 0) {
        err = d->pid;
        goto out_close;
    }
    d->next = k->kids;
    k->kids = d;
    if (d->gen > 1)
        fprintf(stderr,
                "beneath: SIGHUP: starting generation %u (pid %ld) with the "
                "configuration as it is now\n",
                d->gen, (long)d->pid);
    /* from now on it is given what is posted; it reads it once started */
    err = keeper_attach(d->fd);
    if (!err)
        err = hand_all(k, c, d);
    if (err) {
        fprintf(stderr,
                "beneath: keeper: cannot hand generation %u its files: %s\n",
                d->gen, strerror(-err));
        kill(d->pid, SIGKILL); /* reaped like one that failed its checks */
        kid_close_fd(d);
    }
    return 0;
out_close:
    close(sv[0]);
out_fail:
    k->gens -= d != NULL;
    free(d);
    fprintf(stderr, "beneath: keeper: cannot start a serving process: %s\n",
            strerror(-err));
    return err;
}

/* Options a generation cannot change: the keeper's, fixed at its start. */
static bool restart_only(const char *name)
{
    static const char *const names[] = {"listen", "metrics-listen", "user"};

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

struct names {
    bool restart; /* collect the restart-only ones, or the others */
    char buf[512];
    size_t len;
};

static void collect(const char *name, void *arg)
{
    struct names *n = arg;

    if (restart_only(name) != n->restart || n->len >= sizeof n->buf)
        return;
    int w = snprintf(n->buf + n->len, sizeof n->buf - n->len, "%s%s",
                     n->len ? ", " : "", name);
    if (w > 0)
        n->len += (size_t)w;
}

/* What a SIGHUP's generation changed, and what it could not. */
static void report(const struct keeper *k)
{
    struct names changed = {.restart = false};
    struct names fixed = {.restart = true};

    conf_diff(&k->cur, &k->next, collect, &changed);
    conf_diff(k->boot_set ? &k->boot : &k->cur, &k->next, collect, &fixed);
    fprintf(stderr, "beneath: SIGHUP: configuration applied; %s%s\n",
            changed.len ? "changed: " : "nothing changed",
            changed.len ? changed.buf : "");
    if (fixed.len)
        fprintf(stderr,
                "beneath: SIGHUP: needs a restart to change: %s (the running "
                "values stay)\n",
                fixed.buf);
}

static void acme_differs(const char *name, void *arg)
{
    if (strncmp(name, "acme", 4) == 0)
        *(bool *)arg = true;
}

/* Whether an option of --acme's differs between @a and @b. */
static bool acme_changed(const struct conf *a, const struct conf *b)
{
    bool changed = false;

    conf_diff(a, b, acme_differs, &changed);
    return changed;
}

/*
 * The --acme options changed: the manager of the old ones stops (an
 * exchange in flight is abandoned), what it posted is no longer in force,
 * and one for k->cur starts (it reads --acme-dir and posts what it has).
 */
static void acme_restart(struct keeper *k)
{
    acme_serve_close(k->acme);
    k->acme = NULL;
    keeper_forget();
    if (acme_serve_keep(&k->cur, k->keys, &k->acme) != 0 ||
        acme_serve_start(k->acme) != 0)
        fprintf(stderr, "beneath: SIGHUP: acme: the manager did not start "
                        "again; --acme certificates are not renewed\n");
}

/* @d says it serves: the generation before it drains. */
static void serving(struct keeper *k, struct kid *d)
{
    struct kid *old = kid_find(k, KID_SERVING);

    /* the old one drains by its own configuration's bound */
    unsigned bound = k->cur.drain_timeout;

    d->state = KID_SERVING;
    if (k->next_set) {
        bool acme = acme_changed(&k->cur, &k->next);

        report(k);
        if (!k->boot_set)
            k->boot = k->cur; /* kept: what the listeners were bound for */
        else
            conf_free(&k->cur);
        k->boot_set = true;
        k->cur = k->next;
        memset(&k->next, 0, sizeof k->next);
        k->next_set = false;
        if (acme)
            acme_restart(k);
    }
    if (!old) {
        notify_ready();
        return;
    }
    /* said (and READY=1) once the old one accepts no more: from then on
     * every new connection is the new generation's */
    old->state = KID_DRAINING;
    old->bound = bound;
    old->successor = d->gen;
    old->successor_pid = d->pid;
    keeper_tell(old->fd, KEEPER_DRAIN);
}

/* @old accepts no more (or ended): its successor has them all. */
static void handed_on(struct kid *old)
{
    if (!old->successor)
        return;
    fprintf(stderr,
            "beneath: SIGHUP: generation %u (pid %ld) serving; generation "
            "%u (pid %ld) drains (at most %u s)\n",
            old->successor, (long)old->successor_pid, old->gen, (long)old->pid,
            old->bound);
    old->successor = 0;
    notify_ready();
}

static void reload(struct keeper *k);

/* A record from @d; its end of the socket closing ends our side too. */
static void heard(struct keeper *k, struct kid *d)
{
    struct keeper_msg m;
    int r = keeper_recv(d->fd, &m);

    if (r > 0 && m.type == KEEPER_READY && d->state == KID_STARTING) {
        serving(k, d);
        if (k->again) {
            k->again = false;
            reload(k);
        }
    } else if (r > 0 && m.type == KEEPER_DRAINING) {
        handed_on(d);
    } else if (r > 0 && m.type == KEEPER_ACK) {
        keeper_ack_seen(m.val);
    } else if (r > 0 && m.type == KEEPER_ONDEMAND && keeper_field(&m, 0)) {
        /* --acme-on-demand: a handshake's name; told when none comes */
        const char *name = keeper_field(&m, 0);
        int e = acme_serve_request(k->acme, &k->cur, name);

        if (e < 0 && e != -EEXIST)
            (void)keeper_send(d->fd, KEEPER_ONDEMAND, e,
                              (const char *const[]){name}, 1, -1);
    } else if (r <= 0 && r != -ENOMEM) {
        kid_close_fd(d); /* it is ending: SIGCHLD tells how */
    }
    keeper_msg_release(&m);
}

/* SIGHUP: the configuration as it is now, in a new serving process. */
static void reload(struct keeper *k)
{
    struct conf_diag d = {0};
    int err;

    if (k->stopping)
        return;
    if (kid_find(k, KID_STARTING)) {
        k->again = true;
        return;
    }
    notify_reloading();
    err = conf_load(&k->next, k->argc, k->argv, environ, &d);
    for (size_t i = 0; i < d.n_warnings; i++)
        fprintf(stderr, "beneath: SIGHUP: %s\n", d.warnings[i]);
    for (size_t i = 0; i < d.n; i++)
        fprintf(stderr, "beneath: SIGHUP: %s\n", d.msgs[i]);
    conf_diag_free(&d);
    if (err) {
        conf_free(&k->next);
        fprintf(stderr, "beneath: SIGHUP: %s; keeping the old configuration\n",
                err == -ENOMEM ? "out of memory"
                               : "the configuration has errors");
        notify_ready();
        return;
    }
    k->next_set = true;
    if (start_kid(k, &k->next) != 0) {
        conf_free(&k->next);
        k->next_set = false;
        fprintf(stderr, "beneath: SIGHUP: keeping the old configuration\n");
        notify_ready();
    }
}

/* The words for how a process ended. */
static void ended_how(int st, char *buf, size_t n)
{
    if (WIFEXITED(st))
        snprintf(buf, n, "exited with status %d", WEXITSTATUS(st));
    else
        snprintf(buf, n, "was killed by signal %d (%s)", WTERMSIG(st),
                 strsignal(WTERMSIG(st)));
}

/* @d ended with wait status @st. */
static void ended(struct keeper *k, struct kid *d, int st)
{
    char how[96];

    ended_how(st, how, sizeof how);
    switch (d->state) {
    case KID_STARTING:
        if (k->stopping && d->gen > 1)
            break; /* a reload given up: not the server's end */
        if (!kid_find(k, KID_SERVING)) {
            /* the first generation: the keeper ends as it did */
            k->status = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
            k->signo = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
            if (k->signo)
                fprintf(stderr,
                        "beneath: keeper: the serving process (pid %ld) %s; "
                        "stopping\n",
                        (long)d->pid, how);
            k->stopping = true;
            break;
        }
        fprintf(stderr,
                "beneath: SIGHUP: generation %u (pid %ld) %s before serving; "
                "keeping the old configuration (generation %u)\n",
                d->gen, (long)d->pid, how, kid_find(k, KID_SERVING)->gen);
        if (k->next_set) {
            conf_free(&k->next);
            k->next_set = false;
        }
        notify_ready();
        if (k->again) {
            k->again = false;
            kid_free(k, d);
            reload(k);
            return;
        }
        break;
    case KID_SERVING:
        k->status = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
        k->signo = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
        if (!k->stopping) {
            fprintf(stderr,
                    "beneath: keeper: the serving process (pid %ld) %s; "
                    "stopping\n",
                    (long)d->pid, how);
            k->stopping = true;
            notify_stopping();
            /* the others end with it */
            for (struct kid *o = k->kids; o; o = o->next)
                if (o != d && o->fd >= 0)
                    keeper_stop(o->fd, SIGTERM);
        }
        break;
    case KID_DRAINING:
        handed_on(d);
        /* it said how it drained; only an unusual end is the keeper's */
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            fprintf(stderr, "beneath: generation %u (pid %ld) %s\n", d->gen,
                    (long)d->pid, how);
        break;
    }
    kid_free(k, d);
}

/* Reap every serving process that ended. */
static void reap(struct keeper *k)
{
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);

        if (pid <= 0)
            return;
        for (struct kid *d = k->kids; d; d = d->next)
            if (d->pid == pid) {
                ended(k, d, st);
                break;
            }
    }
}

/* A serving process not serving in time is stopped. The next deadline. */
static int64_t overdue(struct keeper *k, int64_t now)
{
    int64_t next = -1;

    for (struct kid *d = k->kids; d; d = d->next) {
        if (d->state != KID_STARTING || d->start_by == 0)
            continue;
        if (d->start_by <= now) {
            fprintf(stderr,
                    "beneath: keeper: generation %u (pid %ld) is not serving "
                    "after %d s: stopping it\n",
                    d->gen, (long)d->pid, START_BOUND_MS / 1000);
            kill(d->pid, SIGKILL);
            d->start_by = 0;
            continue;
        }
        if (next < 0 || d->start_by < next)
            next = d->start_by;
    }
    return next;
}

/*
 * SIGTERM or SIGINT: every serving process stops (a second: now). The
 * listening sockets are shut down first (not merely closed: the serving
 * processes hold them too), so that a new connection is refused at once
 * rather than queued for the length of the drain - but not one the
 * service manager passed: it keeps it for the next start.
 */
static void stop(struct keeper *k, int signo)
{
    if (!k->stopping) {
        notify_stopping();
        /* an order under way is abandoned, not finished against a
         * serving process that is going */
        keeper_acks_end();
        acme_serve_stop(k->acme);
        for (size_t i = 0; i < k->ls.n && !k->ls.activated; i++)
            if (k->ls.v[i].fd >= 0)
                (void)shutdown(k->ls.v[i].fd, SHUT_RDWR);
    }
    k->stopping = true;
    for (struct kid *d = k->kids; d; d = d->next) {
        if (d->state == KID_STARTING && d->gen > 1)
            kill(d->pid, SIGKILL); /* a reload under way: given up */
        else if (d->fd >= 0)
            keeper_stop(d->fd, signo); /* the first reads it once it serves */
    }
}

/* One signal from the signalfd. */
static void signalled(struct keeper *k)
{
    struct signalfd_siginfo si;

    if (read(k->sfd, &si, sizeof si) != sizeof si)
        return;
    if (si.ssi_signo == SIGCHLD)
        reap(k);
    else if (si.ssi_signo == SIGHUP)
        reload(k);
    else
        stop(k, (int)si.ssi_signo);
}

/* One wait: a signal, records, or a start overdue. 0, or -1 (poll). */
static int loop_once(struct keeper *k)
{
    {
        struct pollfd p[64];
        struct kid *who[64];
        nfds_t n = 0;
        int64_t now = mono_ms(), next = overdue(k, now);

        p[n++] = (struct pollfd){.fd = k->sfd, .events = POLLIN};
        for (struct kid *d = k->kids; d && n < 64; d = d->next)
            if (d->fd >= 0) {
                who[n] = d;
                p[n++] = (struct pollfd){.fd = d->fd, .events = POLLIN};
            }
        int timeout = next < 0 ? -1 : (int)(next - now);
        if (poll(p, n, timeout) < 0) {
            if (errno == EINTR)
                return 0;
            fprintf(stderr, "beneath: keeper: poll: %s\n", strerror(errno));
            return -1;
        }
        for (nfds_t i = 1; i < n; i++)
            if (p[i].revents)
                heard(k, who[i]);
        if (p[0].revents & POLLIN)
            signalled(k);
    }
    return 0;
}

/* Until every serving process has ended. The exit status. */
static int loop(struct keeper *k)
{
    while (k->kids)
        if (loop_once(k) != 0) {
            stop(k, SIGTERM);
            return 1;
        }
    return k->status;
}

/*
 * End the way the serving generation ended, so that whoever started
 * beneath (a shell, systemd, a container engine) sees what it would have
 * seen of one process. The keeper is not dumpable: no core file with a
 * key.
 */
static int end_as(const struct keeper *k)
{
    sigset_t one;

    if (!k->signo)
        return k->status;
    signal(k->signo, SIG_DFL);
    sigemptyset(&one);
    sigaddset(&one, k->signo);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    raise(k->signo);
    return 1; /* a signal that does not end a process */
}

static void keeper_free(struct keeper *k)
{
    acme_serve_close(k->acme);
    keeper_forget();
    while (k->kids)
        kid_free(k, k->kids);
    keyless_keys_free(k->keys); /* no signing thread is left */
    if (k->metrics_fd >= 0)
        close(k->metrics_fd);
    listen_close(&k->ls);
    if (k->exe >= 0)
        close(k->exe);
    if (k->sfd >= 0)
        close(k->sfd);
    spawn_env_free(k->env);
    conf_free(&k->cur);
    conf_free(&k->next);
    conf_free(&k->boot);
}

/* Signals are read from a signalfd, blocked in every thread. */
static int signals(struct keeper *k)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, NULL);
    /* a closed stderr, or a serving process gone mid-record */
    signal(SIGPIPE, SIG_IGN);
    k->sfd = signalfd(-1, &set, SFD_CLOEXEC);
    if (k->sfd < 0) {
        fprintf(stderr, "beneath: keeper: signalfd: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

/* Privileges dropped, the keeper's walls raised, its line said. */
static int lock_down(struct keeper *k)
{
    const struct conf *c = &k->cur;
    int calls = 0;

    bool root = geteuid() == 0;

    if (drop_privileges(k, c->user) != 0)
        return -1;
    if (c->sandbox != CONF_SANDBOX_OFF) {
        calls = sandbox_keeper(k->exe);
        if (calls < 0)
            return -1;
        k->filters = 1;
    }
    /* no core file, no ptrace by another process of the same user (the
     * serving processes included): the keeper holds the keys */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (c->sandbox == CONF_SANDBOX_OFF)
        fprintf(stderr,
                "beneath: keeper: pid %ld reads the configuration, TLS keys "
                "and htpasswd files and hands them to each serving process; "
                "no walls of its own (--sandbox off)\n",
                (long)getpid());
    else
        fprintf(stderr,
                "beneath: keeper: pid %ld reads the configuration, TLS keys "
                "and htpasswd files and hands them to each serving process; "
                "no landlock, seccomp deny-list (%d calls: exec but of its "
                "own binary, ptrace, bind/listen, mounts and namespaces, "
                "modules, identity changes; EPERM)%s\n",
                (long)getpid(), calls,
                !root     ? ""
                : c->user ? "; of root's capabilities, only reading files "
                            "(dac_read_search)"
                          : "; as root, only the capabilities to read and "
                            "write files (dac_override, dac_read_search)");
    return 0;
}

int keeper_main(struct conf *c, int argc, char *argv[])
{
    struct keeper k = {
        .argc = argc,
        .argv = argv,
        .exe = -1,
        .metrics_fd = -1,
        .sfd = -1,
        .status = 1,
    };
    int status = EXIT_CONF;

    k.cur = *c;
    memset(c, 0, sizeof *c);
    /* --acme-dir writable: said before anything listens */
    if (acme_conf_check(&k.cur) != 0 ||
        bind_all(&k, &k.cur) + keeper_check_user(&k.cur, &k.uid, &k.gid) != 0)
        goto out;
    listen_caps_drop(); /* bound: no capability to bind is kept */
    status = 1;
    k.exe = spawn_exe();
    if (k.exe < 0) {
        fprintf(stderr, "beneath: keeper: /proc/self/exe: %s\n",
                strerror(-k.exe));
        goto out;
    }
    if (!(k.env = spawn_env()) || keyless_keys_new(&k.keys) != 0) {
        fprintf(stderr, "beneath: out of memory\n");
        goto out;
    }
    if (signals(&k) != 0 || lock_down(&k) != 0)
        goto out;
    /* --acme: --acme-dir read, its certificates posted for the first
     * generation; the manager writes --acme-dir as the serving user */
    if (acme_serve_keep(&k.cur, k.keys, &k.acme) != 0)
        goto out;
    if (start_kid(&k, &k.cur) != 0)
        goto out;
    /* the manager starts once the first generation serves (or never) */
    while (k.kids && !kid_find(&k, KID_SERVING))
        if (loop_once(&k) != 0)
            break;
    if (kid_find(&k, KID_SERVING) && acme_serve_start(k.acme) != 0)
        stop(&k, SIGTERM);
    status = loop(&k);
    status = k.signo ? end_as(&k) : status;
out:
    keeper_free(&k);
    return status;
}
