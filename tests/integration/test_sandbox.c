/* SPDX-License-Identifier: MIT */
/*
 * test_sandbox.c - end-to-end tests of the sandbox (server/sandbox*.c): the
 * start-up line and /proc/PID/status; Landlock on its own stopping what the
 * unsafe lexical resolver lets through; the test build's fault hook making
 * the server itself try what it must not (beneath_faults, $BENEATH_FAULTS_BIN),
 * wall by wall; an outer seccomp filter blocking openat2 before the sandbox
 * and after it (the keeper's own filter under ours); root swaps (a new
 * serving process, walls built for the new tree), log reopen and strict
 * mode.
 *
 * Every test here can fail: each refusal has a control run with
 * --sandbox off (or the other wall skipped) in which the same try succeeds.
 */
#include "harness.h"
#include "site.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The Landlock ABI of the running kernel; 0 without Landlock. */
static int landlock_abi(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
                       LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
}

/* The whole line of @text holding @needle (harness-owned), or NULL. */
static char *line_with(const char *text, const char *needle)
{
    const char *p = strstr(text, needle);
    if (!p)
        return NULL;
    while (p > text && p[-1] != '\n')
        p--;
    return hmem(p, strcspn(p, "\n"));
}

/* "Key:\tvalue" of /proc/@pid/status, harness-owned, or NULL. */
static char *pid_status(pid_t pid, const char *key)
{
    char *st = tree_read(hfmt("/proc/%d/status", (int)pid), NULL);
    char *l = st ? line_with(st, hfmt("%s:", key)) : NULL;
    if (!l)
        return NULL;
    l += strlen(key) + 1;
    while (*l == ' ' || *l == '\t')
        l++;
    return l;
}

/* The same of the serving process of @s. */
static char *proc_status(const struct server *s, const char *key)
{
    return pid_status(server_serving_pid(s), key);
}

/* From here on this (forked) test starts beneath_faults. */
static void use_faults_bin(void)
{
    const char *b = getenv("BENEATH_FAULTS_BIN");
    ck_assert_msg(b && *b, "BENEATH_FAULTS_BIN is not set");
    setenv("BENEATH_BIN", b, 1);
}

/* ===== the start-up line ================================================ */

START_TEST(startup_line_on)
{
    struct server *s = server_start(site.www, NULL);
    char *e = server_stderr(s);
    char *l = line_with(e, "beneath: sandbox: ");
    int abi = landlock_abi();

    EXPECT(l != NULL, "no sandbox line at start-up:\n%s", e);
    if (abi > 0) {
        EXPECT(strstr(l, hfmt("landlock ABI %d (read beneath 1 root", abi)),
               "the line does not give ABI %d and the root: %s", abi, l);
        EXPECT(strstr(l, "no exec)"), "execution not named: %s", l);
        /* the listening sockets are the keeper's, handed over bound */
        if (abi >= 4)
            EXPECT(strstr(l, "bind none, connect none"), "ports not named: %s",
                   l);
        EXPECT(strstr(l, "no write,"), "writing not named: %s", l);
        EXPECT(strstr(l, hfmt("no read right on the configuration, keys and "
                              "htpasswd files (the keeper, pid %d, hands "
                              "them over)",
                              (int)s->pid)),
               "the keeper not named: %s", l);
        if (abi >= 6)
            EXPECT(strstr(l, "signals and abstract sockets scoped"),
                   "scoping not named: %s", l);
    } else {
        EXPECT(strstr(l, "no landlock ("), "no reason for no Landlock: %s", l);
    }
    EXPECT(strstr(l, "seccomp allow-list (") &&
               strstr(l, " calls, EPERM for the rest)"),
           "no seccomp allow-list: %s", l);
    /* everything this kernel offers was applied (no thread predates it) */
    if (abi >= 6)
        EXPECT(strstr(e, "sandbox: not applied") == NULL,
               "ABI %d, yet something was not applied:\n%s", abi, e);
    /* the kernel's own word: a filter, and no new privileges */
    EXPECT(proc_status(s, "Seccomp") &&
               strcmp(proc_status(s, "Seccomp"), "2") == 0,
           "Seccomp: %s, want 2 (filter)", proc_status(s, "Seccomp"));
    EXPECT(proc_status(s, "NoNewPrivs") &&
               strcmp(proc_status(s, "NoNewPrivs"), "1") == 0,
           "NoNewPrivs: %s", proc_status(s, "NoNewPrivs"));
    /* the line comes before the listening line, in the start-up block */
    EXPECT(strstr(e, "sandbox: ") < strstr(e, "listening on"),
           "the sandbox line is not part of the start-up block:\n%s", e);
    expect_get(s, "/readme.txt", 200, "GET /readme.txt");
    server_stop_clean(s);
}
END_TEST

START_TEST(startup_line_off_and_strict)
{
    struct server *s = server_start(site.www, "--sandbox", "off", NULL);
    char *e = server_stderr(s);
    EXPECT(strstr(e, "beneath: sandbox: off (--sandbox off)\n"),
           "--sandbox off: no line saying so:\n%s", e);
    EXPECT(proc_status(s, "Seccomp") &&
               strcmp(proc_status(s, "Seccomp"), "0") == 0,
           "--sandbox off: Seccomp: %s", proc_status(s, "Seccomp"));
    server_stop_clean(s);

    if (landlock_abi() == 0) {
        char *out;
        int ws =
            beneath_run((const char *[]){"--listen", "127.0.0.1:0", "--sandbox",
                                         "strict", site.www, NULL},
                        NULL, 15000, &out, &e);
        EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) != 0,
               "strict without Landlock: %s", wstatus_str(ws));
        return;
    }
    s = server_start(site.www, "--sandbox", "strict", NULL);
    e = server_stderr(s);
    EXPECT(strstr(e, " calls, kill for the rest)"),
           "--sandbox strict: the line does not say refused calls kill:\n%s",
           e);
    expect_get(s, "/sub/", 200, "strict: GET /sub/");
    expect_get(s, "/link-abs", 403, "strict: GET /link-abs");
    server_stop_clean(s);
}
END_TEST

/* ===== Landlock alone against the lexical resolver ====================== */

/*
 * The unsafe baseline follows every symlink: what stops these is the
 * sandbox alone. Symlinks to a file outside (absolute, relative, deep), to
 * a directory outside, to /etc and /proc/self/root, and ".." through a
 * symlinked directory ("up" -> "..").
 */
static const char *const escapes[] = {
    "/link-abs",
    "/link-rel",
    "/link-rel-deep",
    "/link-dir/inner.txt",
    "/link-dir-rel/inner.txt",
    "/link-dir/",
    "/passwd",
    "/procroot/etc/passwd",
    "/etc-link/passwd",
    "/etc-link/",
    "/up/secret.txt",
    "/up/outside/inner.txt",
    "/sub/up2/secret.txt",
    "/up/",
};

static void plant_escapes(void)
{
    /* in the shared site, once: idempotent across tests */
    struct stat st;
    if (lstat(tree_path(site.www, "etc-link"), &st) != 0) {
        tree_symlink(site.www, "/etc", "etc-link");
        tree_symlink(site.www, "..", "up");
        tree_symlink(site.www, "../..", "sub/up2");
    }
}

START_TEST(lexical_contained_by_landlock)
{
    if (landlock_abi() == 0) {
        fprintf(stderr, "SKIP lexical_contained_by_landlock: no Landlock\n");
        return;
    }
    plant_escapes();
    harness_forbid(site.secret);
    harness_forbid("root:x:0:0");
    struct server_opts o = {
        .root = site.www,
        .no_resolver = true,
        .args =
            (const char *[]){"--resolver", "lexical", "--listing", "on", NULL},
    };
    struct server *s = server_start_opts(&o);
    for (size_t i = 0; i < N_ELEMS(escapes); i++) {
        struct http_response *r = raw_get(s->port, escapes[i]);
        EXPECT(r->status == 403 || r->status == 404,
               "lexical + sandbox: GET %s: status %d", escapes[i], r->status);
    }
    /* what is inside is still served, through symlinks that stay inside */
    struct http_response *r = raw_get(s->port, "/link-ok");
    EXPECT(r->status == 200 && strcmp(r->body, site.range) == 0,
           "GET /link-ok: %d", r->status);
    expect_get(s, "/link-ok-dir/index.html", 200,
               "GET /link-ok-dir/index.html");
    server_stop_clean(s);
    /* the refusals are the kernel's: EACCES in the access log */
    EXPECT(strstr(server_stdout(s), "errno=EACCES"),
           "no EACCES in the access log:\n%s", server_stdout(s));
}
END_TEST

START_TEST(lexical_leaks_without_sandbox)
{
    /* The control: the same requests with --sandbox off do leak, so the
     * test above would fail if the sandbox let them through. */
    plant_escapes();
    struct server_opts o = {
        .root = site.www,
        .no_resolver = true,
        .args = (const char *[]){"--resolver", "lexical", "--sandbox", "off",
                                 "--listing", "on", NULL},
    };
    struct server *s = server_start_opts(&o);
    size_t leaks = 0;
    for (size_t i = 0; i < N_ELEMS(escapes); i++) {
        struct http_response *r = raw_get(s->port, escapes[i]);
        if (r->status == 200)
            leaks++;
    }
    EXPECT(leaks == N_ELEMS(escapes),
           "lexical without sandbox served only %zu of %zu", leaks,
           N_ELEMS(escapes));
    server_stop_clean(s);
}
END_TEST

/* ===== the fault hook ==================================================== */

static char *hook_line(const char *err, const char *shown)
{
    char *l = line_with(err, hfmt("fault-hook: %s: ", shown));
    if (!l)
        return NULL;
    return l + strlen("beneath: fault-hook: ") + strlen(shown) + 2;
}

/* Start beneath_faults with @hook and @args (the hook runs before the
 * listening line, so its lines are there once it started). */
static struct server *start_hooked(const char *hook, const char **args)
{
    use_faults_bin();
    struct server_opts o = {
        .root = site.www,
        .args = args,
        .env = (const char *[]){hfmt("SANDBOX_FAULT_HOOK=%s", hook), NULL},
    };
    return server_start_opts(&o);
}

struct wall_case {
    const char *name;
    const char *extra;   /* hook words that pick the walls */
    const char *sandbox; /* --sandbox */
    /* expected: NULL = DONE, else the errno name of the refusal */
    const char *read_outside, *write_outside, *exec, *connect, *fork, *map_exec;
};

/*
 * "skip-seccomp" skips the serving process's own allow-list; the keeper's
 * deny-list, which every serving process inherits, still stands: exec
 * (execve; execveat but of the keeper's own binary) is its EPERM before
 * Landlock's EACCES could be seen. What Landlock alone decides there: the
 * reads, writes and connects, EACCES.
 */
static const struct wall_case walls[] = {
    {"both walls", "", "on", "EACCES", "EACCES", "EPERM", "EPERM", "EPERM",
     "EPERM"},
    {"landlock alone", "skip-seccomp", "on", "EACCES", "EACCES", "EPERM",
     "EACCES", NULL, NULL},
    {"seccomp alone", "skip-landlock", "on", NULL, NULL, "EPERM", "EPERM",
     "EPERM", "EPERM"},
    {"no sandbox", "", "off", NULL, NULL, "-", NULL, NULL, NULL},
};

static void expect_try(const char *err, const char *wall, const char *shown,
                       const char *want)
{
    char *got = hook_line(err, shown);
    EXPECT(got != NULL, "%s: no fault-hook line for '%s':\n%s", wall, shown,
           err);
    if (want)
        EXPECT(strcmp(got, hfmt("refused: %s", want)) == 0,
               "%s: %s: got '%s', want refused: %s", wall, shown, got, want);
    else
        EXPECT(strcmp(got, "DONE") == 0, "%s: %s: got '%s', want DONE", wall,
               shown, got);
}

LOOP_TEST(fault_hook_walls, walls)
{
    const struct wall_case *w = &walls[_i];
    int abi = landlock_abi();

    if (abi == 0 && strcmp(w->sandbox, "on") == 0 && w->read_outside) {
        fprintf(stderr, "SKIP fault_hook_walls %s: no Landlock\n", w->name);
        return;
    }
    if (abi < 4 && strcmp(w->name, "landlock alone") == 0) {
        fprintf(stderr, "SKIP fault_hook_walls %s: Landlock ABI %d < 4\n",
                w->name, abi);
        return;
    }
    char *logdir = tree_new();
    char *outside = tree_path(tree_new(), "planted");
    char *hook =
        hfmt("%s read:%s read:/etc/shadow write:%s connect:127.0.0.1:1 "
             "fork map-exec%s",
             w->extra, site.secret_path, outside,
             w->exec && strcmp(w->exec, "-") != 0 ? " exec:/bin/true" : "");
    const char *args[] = {"--access-log", tree_path(logdir, "access.log"),
                          "--sandbox", w->sandbox, NULL};
    struct server *s = start_hooked(hook, args);
    char *e = server_stderr(s);

    expect_try(e, w->name, hfmt("read %s", site.secret_path), w->read_outside);
    expect_try(e, w->name, hfmt("write %s", outside), w->write_outside);
    if (w->exec && strcmp(w->exec, "-") != 0)
        expect_try(e, w->name, "exec /bin/true", w->exec);
    expect_try(e, w->name, "connect 127.0.0.1:1", w->connect);
    expect_try(e, w->name, "fork -", w->fork);
    expect_try(e, w->name, "map-exec -", w->map_exec);
    struct stat st;
    EXPECT((stat(outside, &st) == 0) == (w->write_outside == NULL),
           "%s: the planted file %s", w->name,
           w->write_outside ? "exists" : "is missing");
    if (w->read_outside) {
        /* /etc/shadow too (root could read it without the sandbox) */
        expect_try(e, w->name, "read /etc/shadow", w->read_outside);
    }
    /* the server still serves, and its own log still takes lines */
    expect_get(s, "/readme.txt", 200, "GET /readme.txt after the tries");
    server_stop_clean(s);
    EXPECT(file_wait_for(tree_path(logdir, "access.log"), "/readme.txt", 2000),
           "%s: the access log did not get the request", w->name);
}
END_TEST

START_TEST(fault_hook_strict_kills)
{
    if (landlock_abi() == 0) {
        fprintf(stderr, "SKIP fault_hook_strict_kills: no Landlock\n");
        return;
    }
    use_faults_bin();
    char *out, *err;
    int ws = beneath_run(
        (const char *[]){"--listen", "127.0.0.1:0", "--sandbox", "strict",
                         site.www, NULL},
        (const char *[]){"SANDBOX_FAULT_HOOK=skip-landlock fork", NULL}, 15000,
        &out, &err);
    /* skip-landlock: strict refuses to start without Landlock */
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) != 0 &&
               strstr(err, "--sandbox strict: Landlock is not in force"),
           "strict without Landlock: %s\n%s", wstatus_str(ws), err);
    ws =
        beneath_run((const char *[]){"--listen", "127.0.0.1:0", "--sandbox",
                                     "strict", site.www, NULL},
                    (const char *[]){"SANDBOX_FAULT_HOOK=exec:/bin/true", NULL},
                    15000, &out, &err);
    EXPECT(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGSYS,
           "strict: a refused call (execve) must kill with SIGSYS: %s\n%s",
           wstatus_str(ws), err);
    EXPECT(strstr(err, "fault-hook: exec") == NULL,
           "strict: the hook lived to report:\n%s", err);
}
END_TEST

/* A filter in place before the walls refuses one of their calls, as a
 * container profile without Landlock (the hook's filter answers ENOSYS) or
 * a unit's SystemCallFilter= without seccomp (EPERM) did: the other wall
 * stands, beneath serves, and the line names the filter, not the kernel.
 * The sandbox line's end: an ASan build's server says it was widened. */
#ifdef __SANITIZE_ADDRESS__
#define SANDBOX_LINE_END ", widened for ASan\n"
#else
#define SANDBOX_LINE_END "\n"
#endif
static const struct {
    const char *hook, *line;
} refused_walls[] = {
    {"no-landlock ENOSYS",
     "beneath: sandbox: no landlock (landlock_create_ruleset refused with "
     "ENOSYS by a seccomp filter in place before beneath started "
     "(Seccomp_filters: 1, NoNewPrivs: 1 in /proc/self/status), not by the "
     "kernel (unless it was built without it): that filter (a container "
     "runtime's seccomp profile, or a parent's) must allow "
     "landlock_create_ruleset), seccomp allow-list ("},
    {"no-seccomp EPERM",
     ", no seccomp (seccomp refused with EPERM by a seccomp filter in place "
     "before beneath started (Seccomp_filters: 1, NoNewPrivs: 1 in "
     "/proc/self/status), not by the kernel: that filter (a container "
     "runtime's seccomp profile, or a parent's) must allow "
     "seccomp)" SANDBOX_LINE_END},
};

LOOP_TEST(wall_refused_by_filter, refused_walls)
{
    const char *hook = refused_walls[_i].hook;
    char *word = hfmt("%.*s", (int)strcspn(hook, " "), hook);
    struct server *s = start_hooked(word, NULL);
    char *e = server_stderr(s);

    EXPECT(strstr(e, hfmt("fault-hook: %s: DONE", hook)) &&
               strstr(e, refused_walls[_i].line),
           "%s: the start-up line does not say who refused the wall:\n%s", word,
           e);
    EXPECT(proc_status(s, "Seccomp") &&
               strcmp(proc_status(s, "Seccomp"), "2") == 0,
           "%s: Seccomp: %s", word, proc_status(s, "Seccomp"));
    expect_get(s, "/sub/", 200, hfmt("%s: GET /sub/", word));
    server_stop_clean(s);
}
END_TEST

START_TEST(strict_without_landlock)
{
    /* Without Landlock (the hook's filter answers ENOSYS), strict refuses
     * to start. */
    char *out, *err;
    use_faults_bin();
    int ws =
        beneath_run((const char *[]){"--listen", "127.0.0.1:0", "--sandbox",
                                     "strict", site.www, NULL},
                    (const char *[]){"SANDBOX_FAULT_HOOK=no-landlock", NULL},
                    15000, &out, &err);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) != 0 &&
               strstr(err, "--sandbox strict: Landlock is not in force"),
           "strict without Landlock: %s\n%s", wstatus_str(ws), err);
}
END_TEST

START_TEST(release_binary_has_no_hook)
{
    /* The beneath binary ignores the hook's variable and holds none of it. */
    struct server_opts o = {
        .root = site.www,
        .env = (const char *[]){"SANDBOX_FAULT_HOOK=fork skip-landlock", NULL},
    };
    struct server *s = server_start_opts(&o);
    char *e = server_stderr(s);
    EXPECT(strstr(e, "fault-hook") == NULL && strstr(e, "skipped") == NULL,
           "beneath ran the fault hook:\n%s", e);
    server_stop_clean(s);
    size_t len;
    char *bin = tree_read(getenv("BENEATH_BIN"), &len);
    EXPECT(bin != NULL, "cannot read %s", getenv("BENEATH_BIN"));
    EXPECT(memmem(bin, len, "SANDBOX_FAULT_HOOK", 18) == NULL,
           "%s holds the fault hook", getenv("BENEATH_BIN"));
    const char *fb = getenv("BENEATH_FAULTS_BIN");
    char *faults = fb ? tree_read(fb, &len) : NULL;
    EXPECT(faults && memmem(faults, len, "SANDBOX_FAULT_HOOK", 18),
           "the control: %s should hold the hook", fb ? fb : "(unset)");
}
END_TEST

START_TEST(sanitizer_reports_from_inside)
{
    /* ASan builds: the sandbox leaves the sanitizer what it needs, so a
     * leak found at exit and an overflow found while serving are still
     * reported (unsymbolized: module+offset). */
#ifdef __SANITIZE_ADDRESS__
    struct server *s = start_hooked("leak", NULL);
    server_stop(s, 20000);
    char *e = server_stderr(s);
    EXPECT(strstr(e, "ERROR: LeakSanitizer: detected memory leaks") &&
               strstr(e, "Direct leak of 64 byte") && !strstr(e, "fatal error"),
           "no leak report from inside the sandbox:\n%s", e);
    char *out, *err;
    int ws =
        beneath_run((const char *[]){"--listen", "127.0.0.1:0", site.www, NULL},
                    (const char *[]){"SANDBOX_FAULT_HOOK=overflow", NULL},
                    20000, &out, &err);
    EXPECT(!WIFEXITED(ws) || WEXITSTATUS(ws) != 0, "overflow: %s",
           wstatus_str(ws));
    EXPECT(strstr(err, "ERROR: AddressSanitizer: heap-buffer-overflow") &&
               strstr(err, "WRITE of size 1"),
           "no overflow report from inside the sandbox:\n%s", err);
#else
    fprintf(stderr, "SKIP sanitizer_reports_from_inside: not an ASan build\n");
#endif
}
END_TEST

/* ===== outer filters and the resolver's fallback ======================== */

static const int outer_errs[] = {ENOSYS, EPERM};

LOOP_TEST(outer_filter_before, outer_errs)
{
    /* A container's filter answers openat2 before beneath starts: the probe
     * falls back to the emulation, our filter stacks on top, both stay. */
    int err = outer_errs[_i];
    harness_forbid(site.secret);
    struct server_opts o = {
        .root = site.www,
        .no_resolver = true,
        .args = (const char *[]){"--resolver", "auto", NULL},
        .block_openat2 = err,
    };
    struct server *s = server_start_opts(&o);
    char *e = server_stderr(s);
    /* and the line says who refused openat2: not the kernel */
    EXPECT(strstr(e, hfmt("beneath: resolver emulated (auto: openat2 "
                          "refused with %s by a seccomp filter in place "
                          "before beneath started (Seccomp_filters: 1, "
                          "NoNewPrivs: 1 in /proc/self/status), not by the "
                          "kernel: that filter (a container runtime's "
                          "seccomp profile, or a parent's) must allow "
                          "openat2)",
                          strerrorname_np(err))),
           "openat2 blocked (%s) first: the emulation does not serve, or "
           "the line does not say who blocked it:\n%s",
           strerror(err), e);
    EXPECT(strstr(e, "seccomp allow-list ("), "no sandbox:\n%s", e);
    /* the serving process inherits the keeper's list over the outer one */
    EXPECT(pid_status(s->pid, "Seccomp_filters") &&
               strcmp(pid_status(s->pid, "Seccomp_filters"), "2") == 0,
           "the keeper's Seccomp_filters: %s, want 2 (outer + the keeper's)",
           pid_status(s->pid, "Seccomp_filters"));
    EXPECT(proc_status(s, "Seccomp_filters") &&
               strcmp(proc_status(s, "Seccomp_filters"), "3") == 0,
           "Seccomp_filters: %s, want 3 (outer + the keeper's + ours)",
           proc_status(s, "Seccomp_filters"));
    expect_get(s, "/sub/deeper/", 200, "GET /sub/deeper/");
    expect_get(s, "/link-rel", 403, "GET /link-rel");
    server_stop_clean(s);
    EXPECT(strstr(server_stdout(s), "resolver=emulated") &&
               !strstr(server_stdout(s), "resolver=kernel"),
           "not every request went to the emulation:\n%s", server_stdout(s));
}
END_TEST

LOOP_TEST(outer_filter_after, outer_errs)
{
    /* The other order: the sandbox first, then a filter that blocks
     * openat2 (installed by the hook after ours, as an outer one would be
     * seen from inside): openat2 worked at start-up, the first request
     * meets the block, a probe confirms it, the emulation serves. */
    int err = outer_errs[_i];
    harness_forbid(site.secret);
    const char *args[] = {"--resolver", "auto", NULL};
    use_faults_bin();
    struct server_opts o = {
        .root = site.www,
        .no_resolver = true,
        .args = args,
        .env = (const char *[]){hfmt("SANDBOX_FAULT_HOOK=block-openat2:%s",
                                     err == ENOSYS ? "ENOSYS" : "EPERM"),
                                NULL},
    };
    struct server *s = server_start_opts(&o);
    char *e = server_stderr(s);
    EXPECT(strstr(e, "resolver kernel (auto: openat2 available)"),
           "openat2 works at start-up:\n%s", e);
    EXPECT(strstr(e, "fault-hook: block-openat2 ") && strstr(e, ": DONE"),
           "the later filter was not installed:\n%s", e);
    EXPECT(proc_status(s, "Seccomp_filters") &&
               strcmp(proc_status(s, "Seccomp_filters"), "3") == 0,
           "Seccomp_filters: %s, want 3 (the keeper's + ours + the later "
           "one)",
           proc_status(s, "Seccomp_filters"));
    for (int i = 0; i < 3; i++) {
        expect_get(s, "/sub/deeper/", 200, "GET /sub/deeper/ after the block");
        expect_get(s, "/link-rel", 403, "GET /link-rel after the block");
        expect_get(s, "/../secret.txt", 403,
                   "GET /../secret.txt after the block");
    }
    server_stop_clean(s);
    char *log = server_stdout(s);
    EXPECT(strstr(log, "resolver=emulated") && !strstr(log, "resolver=kernel"),
           "the emulation does not serve after the block:\n%s", log);
}
END_TEST

/* ===== root swaps, log reopen ============================================ */

/* Start the lexical resolver (it follows every link: Landlock alone stops
 * what leaves the walls) over @root. */
static struct server *start_lexical(const char *root)
{
    struct server_opts o = {
        .root = root,
        .no_resolver = true,
        .args = (const char *[]){"--resolver", "lexical", NULL},
    };
    return server_start_opts(&o);
}

/* Point the symlink @dir/current at @target, atomically. */
static void flip(const char *dir, const char *target)
{
    EXPECT(symlink(target, tree_path(dir, "next")) == 0 &&
               rename(tree_path(dir, "next"), tree_path(dir, "current")) == 0,
           "flip to %s: %s", target, strerror(errno));
}

/*
 * A deploy flips the root's symlink and sends SIGHUP: a new serving process
 * serves the tree the link names now, wherever it is, under walls built for
 * that tree alone. No generation reads beyond its own root: not the
 * directory holding the link's target (the next release beside it), not
 * the tree served before, not what is beside them.
 */
START_TEST(swap_symlink_new_walls)
{
    if (landlock_abi() == 0) {
        fprintf(stderr, "SKIP swap_symlink_new_walls: no Landlock\n");
        return;
    }
    char *b = tree_new();
    tree_build(b, "releases/1/index.html=V1\n",
               "releases/1/next.txt -> ../2/index.html",
               "releases/2/index.html=V2\n",
               "releases/2/prev.txt -> ../1/index.html",
               "elsewhere/index.html=ELSEWHERE\n",
               "elsewhere/prev.txt -> ../releases/2/index.html",
               "current -> releases/1", NULL);
    tree_write_str(b, "secret.txt", site.secret);
    harness_forbid(site.secret);
    struct server *s = start_lexical(tree_path(b, "current"));
    char *e = server_stderr(s);
    EXPECT(strstr(e, "landlock ABI ") && strstr(e, "(read beneath 1 root,") &&
               !strstr(e, "which holds the target"),
           "the walls are not the root's alone:\n%s", e);
    expect_get_body(s, "/", "V1\n", "releases/1");
    expect_get(s, "/next.txt", 403, "the next release, beside the root");

    flip(b, "releases/2");
    expect_get_body(s, "/", "V1\n", "releases/1 until SIGHUP");
    EXPECT(server_reload(s, 10000) > 0, "the flip was not applied:\n%s",
           server_stderr(s));
    expect_get_body(s, "/", "V2\n", "after a flip to releases/2");
    expect_get(s, "/prev.txt", 403, "the release served before");

    /* out of releases/ too: the new walls are built for it */
    flip(b, "elsewhere");
    EXPECT(server_reload(s, 10000) > 0, "the flip was not applied:\n%s",
           server_stderr(s));
    expect_get_body(s, "/", "ELSEWHERE\n", "after a flip out of releases/");
    expect_get(s, "/prev.txt", 403, "the release served before");
    expect_get(s, "/../secret.txt", 403, "GET /../secret.txt");
    server_stop_clean(s);
    EXPECT(strstr(server_stdout(s), "errno=EACCES"),
           "the refusals are not Landlock's (EACCES):\n%s", server_stdout(s));
}
END_TEST

/*
 * The deploy the sandbox used to refuse (403 until a restart): the new tree
 * renamed onto the root's path, then SIGHUP. The new serving process opens
 * the path anew and its walls name the new tree: it serves, and the old
 * tree (renamed aside) is outside them.
 */
START_TEST(swap_rename_new_walls)
{
    if (landlock_abi() == 0) {
        fprintf(stderr, "SKIP swap_rename_new_walls: no Landlock\n");
        return;
    }
    char *b = tree_new();
    tree_build(b, "www/index.html=V1\n", "www.new/index.html=V2\n",
               "www.new/old.txt -> ../www.old/index.html", NULL);
    struct server *s = start_lexical(tree_path(b, "www"));
    expect_get_body(s, "/", "V1\n", "before the deploy");
    EXPECT(rename(tree_path(b, "www"), tree_path(b, "www.old")) == 0 &&
               rename(tree_path(b, "www.new"), tree_path(b, "www")) == 0,
           "rename: %s", strerror(errno));
    expect_get_body(s, "/", "V1\n", "the old tree until SIGHUP");
    EXPECT(server_reload(s, 10000) > 0, "the deploy was not applied:\n%s",
           server_stderr(s));
    expect_get_body(s, "/", "V2\n", "GET / after a rename deploy");
    expect_get(s, "/old.txt", 403, "the old tree, renamed aside");
    server_stop_clean(s);
    EXPECT(strstr(server_stdout(s), "errno=EACCES"),
           "the refusal is not EACCES:\n%s", server_stdout(s));
}
END_TEST

/*
 * The serving process has no write right at all: each generation opens the
 * access log at its start, before its walls. A rotation is a rename and a
 * SIGHUP: the new generation creates the file again and writes there.
 */
START_TEST(log_rotation_reopens)
{
    char *d = tree_new();
    char *logp = tree_path(d, "access.log");
    struct server *s = server_start(site.www, "--access-log", logp, NULL);
    char *e = server_stderr(s);
    if (landlock_abi() > 0)
        EXPECT(strstr(e, "no write,"), "writing is not refused:\n%s", e);
    expect_get(s, "/readme.txt?first", 200, "GET first");
    EXPECT(file_wait_for(logp, "?first", 2000), "no first line");
    EXPECT(rename(logp, tree_path(d, "access.log.1")) == 0, "rotate: %s",
           strerror(errno));
    EXPECT(server_reload(s, 10000) > 0, "the rotation was not applied:\n%s",
           server_stderr(s));
    struct stat st;
    EXPECT(stat(logp, &st) == 0, "the new generation did not create %s", logp);
    expect_get(s, "/readme.txt?second", 200, "GET second");
    EXPECT(file_wait_for(logp, "?second", 2000),
           "the log was not created again after rotation:\n%s",
           server_stderr_since_startup(s));
    char *old = tree_read(tree_path(d, "access.log.1"), NULL);
    EXPECT(old && !strstr(old, "?second"), "the rotated file got the line");
    server_stop_clean(s);
}
END_TEST

START_TEST(emulated_cache_under_sandbox)
{
    /* The emulated backend's directory cache reads /proc/self/mountinfo
     * and watches directories with inotify, from the serving threads. */
    char *w = tree_new();
    tree_mkdir(w, "a");
    tree_mkdir(w, "a/b");
    tree_write_str(w, "a/b/f.txt", "ONE\n");
    tree_mkdir(w, "c");
    tree_write_str(w, "c/f.txt", "TWO\n");
    struct server_opts o = {
        .root = w,
        .no_resolver = true,
        .args =
            (const char *[]){"--resolver", "emulated", "--threads", "1", NULL},
    };
    struct server *s = server_start_opts(&o);
    struct http_response *r = raw_get(s->port, "/a/b/f.txt");
    EXPECT(r->status == 200 && strcmp(r->body, "ONE\n") == 0, "first: %d",
           r->status);
    /* the cache holds a and a/b; moving b away must be seen */
    EXPECT(rename(tree_path(w, "a/b"), tree_path(w, "a/old")) == 0 &&
               rename(tree_path(w, "c"), tree_path(w, "a/b")) == 0,
           "rename: %s", strerror(errno));
    r = raw_get(s->port, "/a/b/f.txt");
    EXPECT(r->status == 200 && strcmp(r->body, "TWO\n") == 0,
           "after the move: %d %s", r->status, r->body);
    /* the cache's fds: mountinfo was readable (else no cache fds at all) */
    char *fds = hfmt("/proc/%d/fd", (int)server_serving_pid(s));
    int mountinfo = 0;
    for (int fd = 0; fd < 256; fd++) {
        char buf[256];
        ssize_t n = readlink(hfmt("%s/%d", fds, fd), buf, sizeof buf - 1);
        if (n > 0) {
            buf[n] = '\0';
            mountinfo += strstr(buf, "mountinfo") != NULL;
        }
    }
    EXPECT(mountinfo >= 1, "no worker opened /proc/self/mountinfo");
    server_stop_clean(s);
    EXPECT(*server_stderr_since_startup(s) == '\0' ||
               !strstr(server_stderr_since_startup(s), "rror"),
           "errors:\n%s", server_stderr_since_startup(s));
}
END_TEST

const struct check_main check_main = {
    .suite = "e2e_sandbox",
    .fixture = HARNESS_FIXTURE(60),
    .tcases = {
        {"startup", .unchecked_setup = site_suite_setup,
         .tests = {&startup_line_on, &startup_line_off_and_strict}},
        {"lexical", .unchecked_setup = site_suite_setup,
         .tests = {&lexical_contained_by_landlock,
                   &lexical_leaks_without_sandbox}},
        {"faults", .unchecked_setup = site_suite_setup,
         .loops = {LOOP(fault_hook_walls), LOOP(wall_refused_by_filter)},
         .tests = {&fault_hook_strict_kills, &strict_without_landlock,
                   &release_binary_has_no_hook,
                   &sanitizer_reports_from_inside}},
        {"outer", .unchecked_setup = site_suite_setup,
         .loops = {LOOP(outer_filter_before), LOOP(outer_filter_after)}},
        {"features", .unchecked_setup = site_suite_setup,
         .tests = {&swap_symlink_new_walls, &swap_rename_new_walls,
                   &log_rotation_reopens, &emulated_cache_under_sandbox}}}};
