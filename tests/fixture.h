/* SPDX-License-Identifier: MIT */
/*
 * fixture.h - build a file tree for a test from a declarative list, and
 * remove it again.
 *
 * Each entry of the list is one of:
 *   "dir/"            a directory (mode 0755)
 *   "file"            an empty regular file (mode 0644)
 *   "file=text"       a regular file holding text
 *   "name -> target"  a symlink with that text (target may be anything)
 *   "name|"           a FIFO
 * Missing parent directories are made on the way. Paths are relative to the
 * fixture root and must not contain "..". Also the scratch directory of a
 * Check test (fixture_dir_setup) and the process's fd count.
 */
#ifndef BENEATH_TESTS_FIXTURE_H
#define BENEATH_TESTS_FIXTURE_H

#include <stddef.h>

/*
 * fixture_make - mkdtemp "$TMPDIR/beneath-XXXXXX" (TMPDIR defaults to /tmp)
 * into @root (@size bytes), then fixture_build it with @spec.
 *
 * Returns 0, or -errno; on failure the directory is removed and, when @bad
 * is not NULL, *bad names the entry that failed (NULL for mkdtemp).
 */
int fixture_make(const char *const *spec, size_t n, char *root, size_t size,
                 const char **bad);

/*
 * fixture_build - create the @n entries of @spec below the directory @root.
 *
 * Returns 0, or -errno with *bad (when not NULL) the failing entry.
 */
int fixture_build(const char *root, const char *const *spec, size_t n,
                  const char **bad);

/*
 * fixture_remove - remove @root and everything below it, not following
 * symlinks and not crossing into mounts (unmount them first).
 *
 * Returns 0, or -errno of the first failure (removal goes on past it).
 */
int fixture_remove(const char *root);

/* fixture_count_fds - the number of open fds of this process, or -errno. */
int fixture_count_fds(void);

/*
 * A checked fixture for Check suites: fixture_dir_setup makes an empty
 * fixture_make directory for the test in fixture_dir (the test fails if it
 * cannot), fixture_dir_teardown removes it and everything in it.
 */
extern char fixture_dir[128];
void fixture_dir_setup(void);
void fixture_dir_teardown(void);

/*
 * fixture_path - fixture_dir/@name, in one of four buffers of the calling
 * thread that are reused in turn: valid until its fourth call after this.
 */
const char *fixture_path(const char *name);

/*
 * fixture_free_port - a TCP port of 127.0.0.1 that a bind() took and gave
 * back just now, chosen at random *below* the kernel's ephemeral range
 * (net.ipv4.ip_local_port_range). A port the kernel picked for bind(0) comes
 * from that range, and so do the local ports of every client connection of
 * the tests running beside this one (ctest -j): one of them could take it
 * before the process the port is meant for binds it ("Address already in
 * use": acme_pebble's agent, CI). Below the range only another test's own
 * choice can collide, and those are spread over ~20,000 ports. Fails the
 * test when 500 tries find none.
 */
unsigned fixture_free_port(void);

#endif
