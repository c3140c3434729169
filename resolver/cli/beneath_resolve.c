/* SPDX-License-Identifier: MIT */
/*
 * beneath_resolve.c - the beneath-resolve command: one resolver_open_how call
 * from the shell, for scripts and for looking at what a backend answers.
 *
 *   beneath-resolve [--backend auto|kernel|emulated|lexical] [--flags LIST]
 *                   [--nofollow] [--oflags LIST] ROOT PATH
 *
 * Prints one line on stdout: "ok BACKEND /absolute/path" (the result as
 * /proc/self/fd names it) and exits 0; or the errno's name ("EXDEV") and
 * exits 1. Usage errors (and a ROOT that cannot be opened) go to stderr and
 * exit 2.
 */
#include "resolver.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_REFUSED 1
#define EXIT_USAGE 2

static const struct {
    const char *name;
    int bits;
} oflag_names[] = {
    {"path", O_PATH},
    {"rdonly", O_RDONLY},
    {"directory", O_DIRECTORY},
};
#define N_OFLAGS (sizeof(oflag_names) / sizeof(oflag_names[0]))

static void usage(FILE *f)
{
    fprintf(f,
            "usage: beneath-resolve [--backend auto|kernel|emulated|lexical]\n"
            "                       [--flags LIST] [--nofollow] "
            "[--oflags LIST] ROOT PATH\n"
            "  --flags   comma list of beneath,in-root,no-xdev,no-symlinks,\n"
            "            no-magiclinks,no-jumps (default beneath; \"\" for "
            "none)\n"
            "  --oflags  comma list of path,rdonly,directory (default path);\n"
            "            without path, O_NONBLOCK is added so a FIFO never "
            "blocks\n"
            "prints \"ok BACKEND /path\" and exits 0, or the errno name and "
            "exits 1;\n"
            "usage errors exit 2\n");
}

/* A comma list of oflag_names into open(2) bits; complains on stderr. */
static int parse_oflags(const char *list, int *out)
{
    char *copy = strdup(list);
    char *rest = copy;
    const char *name;
    int bits = 0;
    int err = 0;

    if (!copy) {
        perror("beneath-resolve");
        return -ENOMEM;
    }
    while (err == 0 && (name = strsep(&rest, ",")) != NULL) {
        size_t i = 0;

        while (i < N_OFLAGS && strcmp(name, oflag_names[i].name) != 0)
            i++;
        if (i < N_OFLAGS) {
            bits |= oflag_names[i].bits;
            continue;
        }
        fprintf(stderr, "beneath-resolve: unknown --oflags name \"%s\"\n",
                name);
        err = -EINVAL;
    }
    free(copy);
    if (err == 0)
        *out = bits;
    return err;
}

static int parse_backend(const char *name, enum resolver_backend *out)
{
    if (resolver_backend_parse(name, out) == 0)
        return 0;
    fprintf(stderr, "beneath-resolve: unknown backend \"%s\"\n", name);
    return -EINVAL;
}

static int parse_flags(const char *list, uint64_t *out)
{
    const char *bad;
    size_t bad_len;

    if (resolver_flags_parse(list, out, &bad, &bad_len) < 0) {
        fprintf(stderr, "beneath-resolve: unknown --flags name \"%.*s\"\n",
                (int)bad_len, bad);
        return -EINVAL;
    }
    if (resolver_flags_check(*out) < 0) {
        fprintf(stderr, "beneath-resolve: --flags: beneath and "
                        "in-root exclude each other\n");
        return -EINVAL;
    }
    return 0;
}

/*
 * The options into @how; 0 and the operands from argv[optind], or the exit
 * status to leave with (--help: 0 after the text, else EXIT_USAGE) as a
 * value >= 0 in *status and -1.
 */
static int parse_args(int argc, char **argv, struct resolver_how *how,
                      int *status)
{
    static const struct option longopts[] = {
        {"backend", required_argument, NULL, 'b'},
        {"flags", required_argument, NULL, 'f'},
        {"nofollow", no_argument, NULL, 'n'},
        {"oflags", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bool nofollow = false;
    int err = 0;
    int c;

    *status = EXIT_USAGE;
    while (err == 0 &&
           (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'b':
            err = parse_backend(optarg, &how->backend);
            break;
        case 'f':
            err = parse_flags(optarg, &how->resolve);
            break;
        case 'n':
            nofollow = true;
            break;
        case 'o':
            err = parse_oflags(optarg, &how->open_flags);
            break;
        case 'h':
            usage(stdout);
            *status = 0;
            return -1;
        default:
            usage(stderr);
            return -1;
        }
    }
    if (err < 0)
        return -1;
    if (argc - optind != 2) {
        usage(stderr);
        return -1;
    }
    if (nofollow)
        how->open_flags |= O_NOFOLLOW;
    if (!(how->open_flags & O_PATH))
        how->open_flags |= O_NONBLOCK;
    return 0;
}

/* Print what @fd is, as /proc/self/fd names it; consumes @fd. */
static int print_result(int fd, enum resolver_backend served)
{
    char link[64];
    char where[8192];
    ssize_t n;

    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    n = readlink(link, where, sizeof(where) - 1);
    close(fd);
    if (n < 0) {
        fprintf(stderr, "beneath-resolve: %s: %s\n", link, strerror(errno));
        return EXIT_REFUSED;
    }
    where[n] = '\0';
    printf("ok %s %s\n", resolver_backend_name(served), where);
    return 0;
}

int main(int argc, char **argv)
{
    struct resolver_how how = {
        .open_flags = O_PATH,
        .resolve = RESOLVER_BENEATH,
        .backend = RESOLVER_BACKEND_AUTO,
    };
    enum resolver_backend served;
    const char *name;
    int status;
    int root_fd;
    int fd;

    if (parse_args(argc, argv, &how, &status) < 0)
        return status;
    root_fd = open(argv[optind], O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) {
        fprintf(stderr, "beneath-resolve: %s: %s\n", argv[optind],
                strerror(errno));
        return EXIT_USAGE;
    }
    fd = resolver_open_how(root_fd, argv[optind + 1], &how, &served);
    close(root_fd);
    if (fd >= 0)
        return print_result(fd, served);
    name = resolver_errno_name(-fd);
    if (name)
        printf("%s\n", name);
    else
        printf("E%d\n", -fd);
    return EXIT_REFUSED;
}
