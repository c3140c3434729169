/* SPDX-License-Identifier: MIT */
/*
 * harness_server.c - start beneath (optionally under a seccomp filter, in a
 * mount namespace of its own, or with a lower fd limit), learn its ports from
 * the listening lines, signal, wait for and stop it, read its output; and run
 * it to completion for --help, --check and bad options.
 */
#include "harness_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* --- processes ---------------------------------------------------------- */

static const char *bin_path(void)
{
    const char *b = getenv("BENEATH_BIN");
    ck_assert_msg(b && *b, "BENEATH_BIN is not set (path of beneath)");
    return b;
}

void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000,
                          .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct argv_buf {
    char **v;
    size_t n;
    size_t cap;
};

static void argv_push(struct argv_buf *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        size_t ncap = a->cap ? a->cap * 2 : 16;
        char **n = realloc(a->v, ncap * sizeof(*n));
        if (n == NULL)
            harness_die_oom();
        a->v = n;
        a->cap = ncap;
    }
    a->v[a->n++] = s ? hfmt("%s", s) : NULL;
    a->v[a->n] = NULL;
}

/*
 * The environment minus BENEATH_* and the state directories, plus @extra;
 * unless @extra names one, XDG_STATE_HOME is a new directory of the test's
 * (what a server keeps across starts, --tls-self-signed's certificate,
 * stays out of the home directory and out of other tests).
 */
static void build_env(struct argv_buf *e, const char **extra)
{
    bool state = false;

    for (char **p = environ; *p; p++)
        if (strncmp(*p, "BENEATH_", 8) != 0 &&
            strncmp(*p, "XDG_STATE_HOME=", 15) != 0 &&
            strncmp(*p, "STATE_DIRECTORY=", 16) != 0)
            argv_push(e, *p);
    for (const char **p = extra; p && *p; p++) {
        state = state || strncmp(*p, "XDG_STATE_HOME=", 15) == 0 ||
                strncmp(*p, "STATE_DIRECTORY=", 16) == 0;
        argv_push(e, *p);
    }
    if (!state)
        argv_push(e, hfmt("XDG_STATE_HOME=%s", tree_new()));
}

#if defined(__x86_64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_AARCH64
#endif

/*
 * In the child before exec: make openat2 fail with @err, the way container
 * seccomp profiles do (ENOSYS, or EPERM). Returns 0 or -1.
 */
static int block_openat2(int err)
{
#if defined(AUDIT_ARCH_HERE) && defined(SYS_openat2)
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HERE, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
        BPF_STMT(BPF_RET | BPF_K,
                 SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = (unsigned short)N_ELEMS(f), .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
#else
    (void)err;
    errno = ENOSYS;
    return -1;
#endif
}

/* fork + exec with stdout/stderr to files; the child dies with the test. */
static pid_t spawn_seccomp(char **argv, char **envp, const char *out,
                           const char *err, int block);

static const char *bind_src, *bind_dst; /* for the next spawn only */
static unsigned spawn_nofile;           /* likewise; 0: inherit */

static pid_t spawn(char **argv, char **envp, const char *out, const char *err)
{
    return spawn_seccomp(argv, envp, out, err, 0);
}

static pid_t spawn_seccomp(char **argv, char **envp, const char *out,
                           const char *err, int block)
{
    pid_t parent = getpid();
    int ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int efd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int nfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    ck_assert_msg(ofd >= 0 && efd >= 0 && nfd >= 0, "open log files: %s",
                  strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        dup2(nfd, 0);
        dup2(ofd, 1);
        dup2(efd, 2);
        /* nothing of the test (client sockets, ...) leaks into the server */
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
        signal(SIGPIPE, SIG_DFL);
        if (bind_src &&
            (unshare(CLONE_NEWNS) != 0 ||
             mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
             mount(bind_src, bind_dst, NULL, MS_BIND, NULL) != 0)) {
            dprintf(2, "harness: bind mount %s on %s: %s\n", bind_src, bind_dst,
                    strerror(errno));
            _exit(127);
        }
        if (spawn_nofile) {
            struct rlimit rl = {spawn_nofile, spawn_nofile};
            if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
                dprintf(2, "harness: RLIMIT_NOFILE %u: %s\n", spawn_nofile,
                        strerror(errno));
                _exit(127);
            }
        }
        if (block && block_openat2(block) != 0) {
            dprintf(2, "harness: seccomp: %s\n", strerror(errno));
            _exit(127);
        }
        execve(argv[0], argv, envp);
        dprintf(2, "harness: exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(ofd);
    close(efd);
    close(nfd);
    return pid;
}

static int count_listening(const char *err)
{
    int n = 0;
    for (const char *p = err; (p = strstr(p, "listening on http://")); p++)
        n++;
    return n;
}

static void parse_listening(struct server *s, const char *err)
{
    const char *p = err;
    s->n_listen = 0;
    while ((p = strstr(p, "listening on http://")) &&
           s->n_listen < SERVER_MAX_LISTEN) {
        p += strlen("listening on http://");
        const char *h = p, *colon;
        if (*h == '[') {
            const char *rb = strchr(h, ']');
            if (rb == NULL)
                break;
            colon = rb + 1;
        } else {
            colon = h + strcspn(h, ": \n");
        }
        if (*colon != ':')
            break;
        size_t hl = (size_t)(colon - h);
        if (hl >= sizeof(s->hosts[0]))
            break;
        memcpy(s->hosts[s->n_listen], h, hl);
        s->hosts[s->n_listen][hl] = '\0';
        s->ports[s->n_listen] = (unsigned)strtoul(colon + 1, NULL, 10);
        s->n_listen++;
    }
    s->port = s->n_listen > 0 ? s->ports[0] : 0;
}

struct server *server_start_opts(const struct server_opts *o)
{
    struct server *s = harness_alloc(sizeof(*s));
    struct argv_buf a = {0}, e = {0};

    s->dir = tree_new();
    s->out_path = tree_path(s->dir, "stdout");
    s->err_path = tree_path(s->dir, "stderr");

    argv_push(&a, bin_path());
    if (!o->no_listen) {
        argv_push(&a, "--listen");
        argv_push(&a, "127.0.0.1:0");
    }
    if (!o->no_resolver) {
        argv_push(&a, "--resolver");
        argv_push(&a, harness_backend());
    }
    for (const char *const *p = o->args; p && *p; p++)
        argv_push(&a, *p);
    if (o->root)
        argv_push(&a, o->root);
    build_env(&e, o->env);

    bind_src = o->bind_src;
    bind_dst = o->bind_dst;
    spawn_nofile = o->nofile;
    s->pid =
        spawn_seccomp(a.v, e.v, s->out_path, s->err_path, o->block_openat2);
    bind_src = bind_dst = NULL;
    spawn_nofile = 0;
    free(a.v);
    free(e.v);
    harness_add_server(s);

    int want = o->n_listen > 0 ? o->n_listen : 1;
    long long deadline = now_ms() + (o->startup_ms > 0 ? o->startup_ms : 15000);
    for (;;) {
        char *err = server_stderr(s);
        if (count_listening(err) >= want) {
            /* the line may still be in the middle of being written */
            sleep_ms(20);
            err = server_stderr(s);
            parse_listening(s, err);
            s->err_startup = strlen(err);
            EXPECT(s->n_listen >= want && s->port > 0,
                   "could not parse the listening line(s) in:\n%s", err);
            return s;
        }
        if (waitpid(s->pid, &s->wstatus, WNOHANG) == s->pid) {
            s->reaped = true;
            EXPECT(0, "beneath exited during start-up (%s); stderr:\n%s",
                   wstatus_str(s->wstatus), server_stderr(s));
        }
        if (now_ms() > deadline)
            EXPECT(0,
                   "no 'listening on http://' line within the bound; "
                   "stderr so far:\n%s",
                   err);
        sleep_ms(10);
    }
}

struct server *server_start(const char *root, ...)
{
    const char *args[64];
    size_t n = 0;
    va_list ap;

    va_start(ap, root);
    for (const char *p; (p = va_arg(ap, const char *)) != NULL;) {
        ck_assert_msg(n + 1 < N_ELEMS(args), "too many arguments");
        args[n++] = p;
    }
    va_end(ap);
    args[n] = NULL;
    struct server_opts o = {.root = root, .args = args};
    return server_start_opts(&o);
}

void server_signal(struct server *s, int sig)
{
    if (!s->reaped)
        kill(s->pid, sig);
}

bool server_wait(struct server *s, int ms)
{
    long long deadline = now_ms() + ms;
    while (!s->reaped) {
        pid_t r = waitpid(s->pid, &s->wstatus, WNOHANG);
        if (r == s->pid) {
            s->reaped = true;
            break;
        }
        if (now_ms() > deadline)
            return false;
        sleep_ms(5);
    }
    return true;
}

int server_stop(struct server *s, int ms)
{
    if (s->reaped)
        return s->wstatus;
    kill(s->pid, SIGTERM);
    if (!server_wait(s, ms)) {
        fprintf(stderr,
                "harness: beneath pid %d ignored SIGTERM for %d ms, "
                "SIGKILL\n",
                (int)s->pid, ms);
        kill(s->pid, SIGKILL);
        waitpid(s->pid, &s->wstatus, 0);
        s->reaped = true;
    }
    return s->wstatus;
}

char *wstatus_str(int ws)
{
    if (WIFEXITED(ws))
        return hfmt("exit status %d", WEXITSTATUS(ws));
    if (WIFSIGNALED(ws))
        return hfmt("killed by signal %d (%s)", WTERMSIG(ws),
                    strsignal(WTERMSIG(ws)));
    return hfmt("wait status 0x%x", ws);
}

/* Lines a server may print after start-up without anything being wrong. */
static bool expected_line(const char *line)
{
    static const char *const ok[] = {
        "beneath: SIGTERM: stopping",
        "beneath: SIGINT: stopping",
        "beneath: SIGHUP: ",
        /* an older generation drained after a SIGHUP (keeper.h) */
        "beneath: generation ",
        "beneath: drain-timeout: ",
        /* library chatter on bad requests: one test of its own
         * (stderr_quiet_on_bad_requests) rather than failing every test */
        "beneath: libmicrohttpd: ",
    };
    if (*line == '\0')
        return true;
    for (size_t i = 0; i < N_ELEMS(ok); i++)
        if (strncmp(line, ok[i], strlen(ok[i])) == 0)
            return true;
    return false;
}

void server_stop_clean(struct server *s)
{
    int ws = server_stop(s, 20000);
    char *err = server_stderr(s);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
           "beneath did not exit cleanly on SIGTERM: %s", wstatus_str(ws));
    EXPECT(strstr(err, "Sanitizer") == NULL &&
               strstr(err, "runtime error:") == NULL,
           "sanitizer report in beneath's stderr");
    /* STYLE 13: the integration tests check that stderr stays quiet */
    const char *p = server_stderr_since_startup(s);
    for (char *line; (line = hline(&p)) != NULL;)
        EXPECT(expected_line(line), "unexpected message on stderr: %s", line);
}

/* The children of the keeper @s: how many, and in *@newest the last one
 * started (/proc lists them oldest first), or 0. */
static int children(const struct server *s, pid_t *newest)
{
    char *kids = tree_read(
        hfmt("/proc/%d/task/%d/children", (int)s->pid, (int)s->pid), NULL);
    int n = 0;

    *newest = 0;
    for (char *p = kids, *end; p && *p; p = end) {
        long c = strtol(p, &end, 10);
        if (end == p)
            break;
        *newest = (pid_t)c;
        n++;
    }
    return n;
}

unsigned server_https_port(const struct server *s)
{
    const char *needle = "listening on https://127.0.0.1:";
    const char *p = strstr(server_stderr(s), needle);

    EXPECT(p, "no https line:\n%s", server_stderr(s));
    return (unsigned)strtoul(p + strlen(needle), NULL, 10);
}

pid_t server_serving_pid(const struct server *s)
{
    pid_t newest;

    return children(s, &newest) > 0 ? newest : s->pid;
}

int server_serving_count(const struct server *s)
{
    pid_t newest;

    return children(s, &newest);
}

bool server_drained(const struct server *s, int ms)
{
    long long deadline = now_ms() + ms;

    while (server_serving_count(s) > 1) {
        if (now_ms() > deadline)
            return false;
        sleep_ms(10);
    }
    return true;
}

/* Lines that end a reload: a new generation serves, or the old one stays. */
#define RELOAD_SERVING ") serving; generation "
#define RELOAD_KEPT "keeping the old configuration"

static int count_in(const char *text, const char *needle)
{
    int n = 0;

    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static int reloads_ended(const char *err)
{
    return count_in(err, RELOAD_SERVING) + count_in(err, RELOAD_KEPT);
}

pid_t server_reload(struct server *s, int ms)
{
    int before = reloads_ended(server_stderr(s));
    long long deadline = now_ms() + ms;
    char *err;

    server_signal(s, SIGHUP);
    while (reloads_ended(err = server_stderr(s)) == before) {
        EXPECT(now_ms() < deadline,
               "no new generation serving, and no 'keeping the old "
               "configuration', within %d ms of SIGHUP; stderr:\n%s",
               ms, err);
        sleep_ms(5);
    }
    /* the line may still be in the middle of being written */
    sleep_ms(5);
    err = server_stderr(s);
    /* the last line that ended a reload says which way it went */
    const char *serving = NULL, *kept = NULL;
    for (const char *p = err; (p = strstr(p, RELOAD_SERVING)); p++)
        serving = p;
    for (const char *p = err; (p = strstr(p, RELOAD_KEPT)); p++)
        kept = p;
    if (!serving || (kept && kept > serving))
        return 0;
    /* "beneath: SIGHUP: generation N (pid P) serving; ..." */
    const char *pid = serving;
    while (pid > err && strncmp(pid, "(pid ", 5) != 0)
        pid--;
    EXPECT(strncmp(pid, "(pid ", 5) == 0, "no pid in the serving line:\n%s",
           err);
    /* until the old one is gone it may still take a connection */
    EXPECT(server_drained(s, (int)(deadline - now_ms())),
           "%d serving processes %d ms after SIGHUP: the old one did not "
           "drain and exit; stderr:\n%s",
           server_serving_count(s), ms, server_stderr(s));
    return (pid_t)strtol(pid + 5, NULL, 10);
}

void server_reload_refused(struct server *s, const char *why)
{
    pid_t serving = server_serving_pid(s);

    EXPECT(server_reload(s, 10000) == 0,
           "SIGHUP: applied, want the old configuration kept (%s):\n%s", why,
           server_stderr(s));
    EXPECT(strstr(server_stderr(s), why), "SIGHUP: '%s' not said:\n%s", why,
           server_stderr(s));
    EXPECT(server_serving_count(s) == 1 && server_serving_pid(s) == serving,
           "SIGHUP: the old serving process (pid %d) is not the one left",
           (int)serving);
}

int pid_fd_count(pid_t pid)
{
    char *p = hfmt("/proc/%d/fd", (int)pid);
    DIR *d = opendir(p);
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

int server_fd_count(const struct server *s)
{
    return pid_fd_count(server_serving_pid(s));
}

int server_fd_count_settled(const struct server *s)
{
    int last = server_fd_count(s), same = 0;
    for (int i = 0; i < 200 && same < 10; i++) {
        sleep_ms(20);
        int n = server_fd_count(s);
        same = n == last ? same + 1 : 0;
        last = n;
    }
    return last;
}

char *server_stderr(const struct server *s)
{
    char *e = tree_read(s->err_path, NULL);
    return e ? e : hfmt("%s", "");
}

char *server_stdout(const struct server *s)
{
    char *o = tree_read(s->out_path, NULL);
    return o ? o : hfmt("%s", "");
}

char *server_stderr_since_startup(const struct server *s)
{
    char *e = server_stderr(s);
    size_t n = strlen(e);
    return e + (s->err_startup < n ? s->err_startup : n);
}

char *server_url(const struct server *s, int i, const char *path)
{
    return hfmt("http://%s:%u%s", s->hosts[i], s->ports[i], path);
}

bool file_wait_for(const char *path, const char *needle, int ms)
{
    long long deadline = now_ms() + ms;
    for (;;) {
        char *t = tree_read(path, NULL);
        if (t && strstr(t, needle))
            return true;
        if (now_ms() > deadline)
            return false;
        sleep_ms(20);
    }
}

int beneath_run(const char **args, const char **env, int ms, char **out,
                char **err)
{
    struct argv_buf a = {0}, e = {0};
    char *dir = tree_new();
    char *op = tree_path(dir, "stdout"), *ep = tree_path(dir, "stderr");

    argv_push(&a, bin_path());
    for (const char **p = args; p && *p; p++)
        argv_push(&a, *p);
    build_env(&e, env);
    pid_t pid = spawn(a.v, e.v, op, ep);
    free(a.v);
    free(e.v);

    int ws = 0;
    long long deadline = now_ms() + ms;
    for (;;) {
        if (waitpid(pid, &ws, WNOHANG) == pid)
            break;
        if (now_ms() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &ws, 0);
            fprintf(stderr, "harness: beneath did not finish within %d ms\n",
                    ms);
            break;
        }
        sleep_ms(5);
    }
    char *o = tree_read(op, NULL), *r = tree_read(ep, NULL);
    if (out)
        *out = o ? o : hfmt("%s", "");
    if (err)
        *err = r ? r : hfmt("%s", "");
    return ws;
}

void expect_bad_options(const struct bad_option *rows, size_t n,
                        const char *root)
{
    for (size_t i = 0; i < n; i++) {
        const struct bad_option *b = &rows[i];
        const char *args[] = {b->opt,        b->value, "--check", "--listen",
                              "127.0.0.1:0", root,     NULL};
        char *out, *err;
        int ws = beneath_run(args, NULL, 30000, &out, &err);

        EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 2,
               "%s %s: %s, want exit 2\n%s", b->opt, b->value, wstatus_str(ws),
               err);
        EXPECT(strstr(err, b->msg) != NULL, "%s %s: stderr lacks \"%s\":\n%s",
               b->opt, b->value, b->msg, err);
    }
}
