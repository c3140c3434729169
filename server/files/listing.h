/* SPDX-License-Identifier: MIT */
/*
 * listing.h - directory listings: collect entries, order them, render them.
 *
 * Collection and rendering are separate so other formats (JSON) can reuse
 * the entries.
 *
 * Cost bound: a listing holds at most LISTING_MAX entries. Past that the
 * directory is still read to the end to count its entries (readdir only:
 * no fstatat, no memory), and the page says how many were left out. So one
 * listing costs at most LISTING_MAX fstatat calls, LISTING_MAX names in
 * memory and a page of LISTING_MAX rows, however large the directory.
 */
#ifndef BENEATH_FILES_LISTING_H
#define BENEATH_FILES_LISTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

/* Entries one listing holds and renders. */
#define LISTING_MAX 10000

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
    /* entries the directory has (dotfiles aside); more than n when the
     * listing stopped at its bound; 0 is read as n */
    size_t total;
};

enum listing_key {
    LISTING_BY_NAME,
    LISTING_BY_SIZE,
    LISTING_BY_TIME,
};

/* The order of a listing: by name ascending unless the query says. */
struct listing_order {
    enum listing_key key;
    bool desc;
};

/*
 * listing_collect - read the directory @dir_fd (opened O_RDONLY|O_DIRECTORY;
 * the fd is borrowed and stays open) into @out, sorted by name (bytewise).
 * "." and ".." are left out, and names starting with '.' unless @dotfiles.
 * Entries are examined with fstatat(AT_SYMLINK_NOFOLLOW): a symlink is
 * never followed, so nothing outside the directory is looked at. At most
 * LISTING_MAX entries are kept (the first ones readdir gives); @out->total
 * counts them all. Release @out with listing_free whatever the result.
 *
 * Returns 0, or -ENOMEM, -EMFILE or another readdir/dup error.
 */
int listing_collect(int dir_fd, bool dotfiles, struct listing *out);

/* listing_collect_max - listing_collect keeping at most @max entries. */
int listing_collect_max(int dir_fd, bool dotfiles, size_t max,
                        struct listing *out);

/*
 * listing_keep_fn - whether the entry @name (a directory when @dir) may be
 * shown; @st is its fstatat, or NULL past the listing's bound (counted,
 * not examined).
 */
typedef bool listing_keep_fn(void *arg, const char *name, bool dir,
                             const struct stat *st);

/*
 * listing_collect_keep - listing_collect_max that shows and counts only the
 * entries @keep (NULL: every one) keeps: a hidden entry is neither a row
 * nor part of @out->total.
 */
int listing_collect_keep(int dir_fd, bool dotfiles, size_t max,
                         listing_keep_fn *keep, void *arg, struct listing *out);

/* listing_free - release @l's entries; @l may be zeroed. */
void listing_free(struct listing *l);

/*
 * listing_order_from - the order the query asks for: @sort "name", "size"
 * or "time", @order "asc" or "desc" (each NULL when absent). An unknown or
 * absent value leaves that part at its default (name, ascending).
 */
void listing_order_from(const char *sort, const char *order,
                        struct listing_order *o);

/*
 * listing_sort - sort @l by @o, folders (LISTING_DIR) before everything
 * else in every order; ties (same size or time) by name ascending, so the
 * order is total and the same on every request.
 */
void listing_sort(struct listing *l, const struct listing_order *o);

/* "1023 B", "9.8 KiB", "12 KiB", "1.0 MiB" ... "16 EiB", with the NUL. */
#define LISTING_HUMAN_LEN 16

/*
 * listing_human_size - @n bytes in binary units, rounded up as ls -h does
 * (a size is never shown smaller than it is): one decimal below 10 of the
 * unit, whole numbers from 10, the next unit from 1024.
 */
void listing_human_size(uint64_t n, char out[LISTING_HUMAN_LEN]);

/*
 * listing_html - render @l as an HTML page titled with @path (decoded,
 * root-relative, "" for the root), in order @o (column headers link to the
 * other orders). Names are HTML-escaped in text (bytes that are not UTF-8
 * and control bytes shown as U+FFFD) and percent-encoded in links; sizes
 * in human units with the exact byte count in a title attribute;
 * modification times in UTC. No script; light and dark colours through
 * prefers-color-scheme. @out receives a malloc'ed buffer of @len bytes,
 * owned by the caller.
 *
 * Returns 0 or -ENOMEM.
 */
int listing_html(const struct listing *l, const char *path,
                 const struct listing_order *o, char **out, size_t *len);

#endif
