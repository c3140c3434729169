/* SPDX-License-Identifier: MIT */
/*
 * listing.h - directory listings: collect entries, then render them.
 *
 * Collection and rendering are separate so other formats (JSON) can reuse
 * the entries.
 */
#ifndef LISTING_H
#define LISTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

enum listing_kind {
    LISTING_FILE,
    LISTING_DIR,
    LISTING_OTHER, /* symlink, FIFO, socket, device: shown by name only */
};

struct listing_entry {
    char *name;
    enum listing_kind kind;
    uint64_t size;
    time_t mtime;
};

struct listing {
    struct listing_entry *v;
    size_t n;
};

/*
 * listing_collect - read the directory @dir_fd (opened O_RDONLY|O_DIRECTORY;
 * the fd is borrowed and stays open) into @out, sorted by name (bytewise).
 * "." and ".." are left out, and names starting with '.' unless @dotfiles.
 * Entries are examined with fstatat(AT_SYMLINK_NOFOLLOW): a symlink is
 * never followed, so nothing outside the directory is looked at.
 * Release @out with listing_free whatever the result.
 *
 * Returns 0, or -ENOMEM, -EMFILE or another readdir/dup error.
 */
int listing_collect(int dir_fd, bool dotfiles, struct listing *out);

/* listing_free - release @l's entries; @l may be zeroed. */
void listing_free(struct listing *l);

/*
 * listing_html - render @l as an HTML page titled with @path (decoded, shown
 * escaped). Names are HTML-escaped in text and percent-encoded in links.
 * @out receives a malloc'ed buffer of @len bytes, owned by the caller.
 *
 * Returns 0 or -ENOMEM.
 */
int listing_html(const struct listing *l, const char *path, char **out,
                 size_t *len);

#endif
