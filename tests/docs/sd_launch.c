/* SPDX-License-Identifier: MIT */
/*
 * sd_launch.c - a tiny systemd-style socket activator for the e2e tests.
 *
 *   SD_LAUNCH_EXEC=/path/to/beneath [SD_LAUNCH_UNIX=/path/sock]
 *   [SD_LAUNCH_PID=other] sd_launch ARGS...
 *
 * Binds a TCP socket on 127.0.0.1 port 0 (and a Unix socket when
 * SD_LAUNCH_UNIX is set), puts them at fds 3 (and 4), sets LISTEN_FDS and
 * LISTEN_PID (its own pid, which exec keeps; SD_LAUNCH_PID overrides it to
 * test a foreign LISTEN_PID) and execs SD_LAUNCH_EXEC with ARGS. The
 * server learns the port from the socket itself and prints it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int fail(const char *what)
{
    fprintf(stderr, "sd_launch: %s: %s\n", what, strerror(errno));
    return 127;
}

/* Move @fd to @want (closing the original), without CLOEXEC. */
static int place(int fd, int want)
{
    if (fd == want)
        return 0;
    if (dup2(fd, want) < 0)
        return -1;
    close(fd);
    return 0;
}

int main(int argc, char *argv[])
{
    const char *exe = getenv("SD_LAUNCH_EXEC"); /* kept: harmless */
    const char *upath = getenv("SD_LAUNCH_UNIX");
    const char *pid = getenv("SD_LAUNCH_PID");
    struct sockaddr_in sin = {.sin_family = AF_INET};
    char buf[32];
    int n = 1, fd;

    (void)argc;
    if (!exe)
        return fprintf(stderr, "sd_launch: SD_LAUNCH_EXEC not set\n"), 127;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
        listen(fd, 64) != 0 || place(fd, 3) != 0)
        return fail("tcp socket");
    if (upath) {
        struct sockaddr_un sun = {.sun_family = AF_UNIX};

        if (strlen(upath) >= sizeof sun.sun_path)
            return fprintf(stderr, "sd_launch: unix path too long\n"), 127;
        memcpy(sun.sun_path, upath, strlen(upath) + 1);
        unlink(upath);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0 ||
            listen(fd, 64) != 0 || place(fd, 4) != 0)
            return fail("unix socket");
        n = 2;
    }
    snprintf(buf, sizeof buf, "%d", n);
    setenv("LISTEN_FDS", buf, 1);
    snprintf(buf, sizeof buf, "%ld", (long)getpid());
    setenv("LISTEN_PID", pid ? pid : buf, 1);
    argv[0] = strdup(exe);
    if (!argv[0])
        return fail("strdup");
    execv(argv[0], argv);
    return fail(exe);
}
