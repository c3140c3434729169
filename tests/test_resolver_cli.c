/* SPDX-License-Identifier: MIT */
/*
 * test_resolver_cli.c - the beneath-resolve contract: the command line run
 * on the fixture tree, its exit status and its one line of output.
 */
#include "test_resolver.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run beneath-resolve; returns its exit status, stdout in @out. */
static int run_cli(char *out, size_t size, const char *const *args)
{
    const char *argv[16];
    int pipefd[2];
    size_t n = 0;
    size_t argc = 0;
    int status;
    pid_t pid;

    argv[argc++] = BENEATH_RESOLVE_PATH;
    for (; *args && argc < N_ELEMS(argv) - 1; args++)
        argv[argc++] = *args;
    argv[argc] = NULL;
    ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);

        dup2(pipefd[1], 1);
        if (null >= 0)
            dup2(null, 2);
        execv(argv[0], (char *const *)(uintptr_t)argv);
        _exit(127);
    }
    close(pipefd[1]);
    for (;;) {
        ssize_t r = read(pipefd[0], out + n, size - 1 - n);

        if (r <= 0)
            break;
        n += (size_t)r;
    }
    out[n] = '\0';
    close(pipefd[0]);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static const struct {
    const char *args[8]; /* "ROOT" is replaced by the fixture root */
    int status;
    const char *out; /* "ROOT" in it likewise; NULL: not checked */
} cli_cases[] = {
    {{"--backend", "emulated", "--oflags", "rdonly", "ROOT", "a/b/f"},
     0,
     "ok emulated ROOT/a/b/f\n"},
    {{"--backend", "kernel", "ROOT", "rel"}, 0, "ok kernel ROOT/a/b\n"},
    {{"--backend", "lexical", "ROOT", "a/../f"}, 0, "ok lexical ROOT/f\n"},
    {{"--nofollow", "--backend", "emulated", "ROOT", "relf"},
     0,
     "ok emulated ROOT/relf\n"},
    {{"--flags", "in-root", "--backend", "kernel", "ROOT", "/a/b/../b/f"},
     0,
     "ok kernel ROOT/a/b/f\n"},
    {{"--oflags", "path,directory", "--backend", "emulated", "ROOT", "d"},
     0,
     "ok emulated ROOT/d\n"},
    {{"ROOT", "../secret"}, 1, "EXDEV\n"},
    {{"--backend", "emulated", "ROOT", "esc"}, 1, "EXDEV\n"},
    {{"--flags", "no-symlinks", "--oflags", "rdonly", "ROOT", "relf"},
     1,
     "ELOOP\n"},
    {{"--flags", "in-root", "ROOT", "missing"}, 1, "ENOENT\n"},
    {{"--oflags", "rdonly,directory", "ROOT", "f"}, 1, "ENOTDIR\n"},
    {{"--flags", "no-jumps", "ROOT", "mnt/x"}, 1, "EXDEV\n"},
    {{"--oflags", "rdonly", "ROOT", "fifo"}, 0, NULL},
    {{"--flags", "bogus", "ROOT", "f"}, 2, ""},
    {{"--flags", "beneath,in-root", "ROOT", "f"}, 2, ""},
    {{"--backend", "nope", "ROOT", "f"}, 2, ""},
    {{"--oflags", "write", "ROOT", "f"}, 2, ""},
    {{"ROOT"}, 2, ""},
    {{"ROOT", "f", "g"}, 2, ""},
    {{"--frobnicate", "ROOT", "f"}, 2, ""},
    {{"/nonexistent-root-dir", "f"}, 2, ""},
};

static void subst_root(const char *in, char *out, size_t size)
{
    const char *at = strstr(in, "ROOT");

    if (!at)
        snprintf(out, size, "%s", in);
    else
        snprintf(out, size, "%.*s%s%s", (int)(at - in), in, tr_root, at + 4);
}

START_TEST(cli)
{
    char argbuf[8][PATH_MAX];
    const char *args[9];
    char want[PATH_MAX + 64];
    char out[PATH_MAX + 64];
    size_t n = 0;
    int st;

    for (; n < 8 && cli_cases[_i].args[n]; n++) {
        subst_root(cli_cases[_i].args[n], argbuf[n], sizeof(argbuf[n]));
        args[n] = argbuf[n];
    }
    args[n] = NULL;
    st = run_cli(out, sizeof(out), args);
    ck_assert_msg(st == cli_cases[_i].status, "case %d: exit %d, want %d (%s)",
                  _i, st, cli_cases[_i].status, out);
    if (cli_cases[_i].out) {
        subst_root(cli_cases[_i].out, want, sizeof(want));
        ck_assert_str_eq(out, want);
    } else {
        ck_assert_int_eq(strncmp(out, "ok ", 3), 0);
    }
}
END_TEST

Suite *resolver_cli_suite(void)
{
    static const struct check_tcase tcases[] = {
        {"beneath-resolve", .loops = {{&cli, (int)N_ELEMS(cli_cases)}}}};

    return tr_suite("cli", tcases, N_ELEMS(tcases));
}
