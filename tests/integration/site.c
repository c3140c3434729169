/* SPDX-License-Identifier: MIT */
/*
 * site.c - build the fixture site of site.h: regular files of every common
 * type, directories with and without index, a listing directory with a name
 * that needs HTML escaping, dotfiles, and the traversal set (symlinks out of
 * the root, absolute and relative, to files and directories, a loop, a FIFO,
 * a socket and a character device).
 */
#include "site.h"

#include "harness.h"

#include <stdlib.h>
#include <string.h>

struct site site;

static const char *const mtime_files[] = {
    "index.html",     "style.css",  "app.js",
    "logo.svg",       "img.png",    "blob.unknownx",
    "readme.txt",     "range.txt",  "big.bin",
    "sub/index.html", "list/a.txt", "list/c.txt",
    "404.html",       "data.json",  "sub/deeper/index.html",
};

void site_build(void)
{
    static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    static const char chars[] =
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    char *b = tree_new();
    char *w;

    site.base = b;
    site.secret = hfmt("SECRET-%s", hrandom(32));
    tree_write_str(b, "secret.txt", site.secret);
    site.secret_path = tree_path(b, "secret.txt");
    tree_mkdir(b, "outside");
    tree_write_str(b, "outside/inner.txt", site.secret);

    tree_mkdir(b, "www");
    w = site.www = tree_path(b, "www");
    tree_write_str(w, "index.html",
                   "<!doctype html><title>root index</title>ROOT-INDEX\n");
    tree_write_str(w, "style.css", "body { color: #333; }\n");
    tree_write_str(w, "app.js", "console.log('beneath');\n");
    tree_write_str(w, "logo.svg",
                   "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n");
    tree_write(w, "img.png", png, sizeof(png) - 1);
    tree_write_str(w, "blob.unknownx", "opaque bytes\n");
    tree_write_str(w, "readme.txt", "plain text\n");
    tree_write_str(w, "data.json", "{\"a\": 1}\n");
    for (size_t i = 0; i < SITE_RANGE_LEN; i++)
        site.range[i] = chars[i % (sizeof(chars) - 1)];
    site.range[SITE_RANGE_LEN] = '\0';
    tree_write(w, "range.txt", site.range, SITE_RANGE_LEN);
    site.big = hbuf(SITE_BIG_LEN);
    for (size_t i = 0; i < SITE_BIG_LEN; i++)
        site.big[i] = chars[(i * 7 + i / 4096) % (sizeof(chars) - 1)];
    tree_write(w, "big.bin", site.big, SITE_BIG_LEN);
    tree_write_str(w, "404.html",
                   "<!doctype html><title>not here</title>CUSTOM-404-PAGE\n");

    tree_mkdir(w, "sub");
    tree_write_str(w, "sub/index.html", "SUB-INDEX\n");
    tree_mkdir(w, "sub/deeper");
    tree_write_str(w, "sub/deeper/index.html", "DEEPER-INDEX\n");
    tree_write_str(w, "sub/.hidden", "NESTED-HIDDEN\n");
    tree_mkdir(w, "noindex");
    tree_write_str(w, "noindex/only-file-here.txt", "x\n");
    tree_mkdir(w, "multi");
    tree_write_str(w, "multi/home.html", "MULTI-HOME\n");
    tree_write_str(w, "multi/index.html", "MULTI-INDEX\n");

    tree_mkdir(w, "list");
    char *a = hbuf(12345);
    memset(a, 'a', 12345);
    tree_write(w, "list/a.txt", a, 12345);
    tree_write_str(w, "list/c.txt", "c\n");
    tree_write_str(w, "list/<b>&\"x'.txt", "escaped\n");
    tree_mkdir(w, "list/b-dir");
    tree_write_str(w, "list/.dotfile-in-list", "hidden\n");

    tree_write_str(w, ".hidden", "HIDDEN-CONTENT\n");
    tree_mkdir(w, ".well-known");
    tree_write_str(w, ".well-known/x", "WELL-KNOWN\n");

    /* the traversal set */
    tree_symlink(w, site.secret_path, "link-abs");
    tree_symlink(w, "../secret.txt", "link-rel");
    tree_symlink(w, tree_path(b, "outside"), "link-dir");
    tree_symlink(w, "../outside", "link-dir-rel");
    tree_symlink(w, "sub/../../secret.txt", "link-rel-deep");
    tree_symlink(w, "range.txt", "link-ok");
    tree_symlink(w, "sub", "link-ok-dir");
    tree_symlink(w, "loop-b", "loop-a");
    tree_symlink(w, "loop-a", "loop-b");
    tree_symlink(w, "/proc/self/root", "procroot");
    tree_symlink(w, "/etc/passwd", "passwd");
    tree_mkfifo(w, "fifo");
    tree_mknod_null(w, "null");
    tree_socket(w, "sock");

    for (size_t i = 0; i < N_ELEMS(mtime_files); i++)
        tree_mtime(w, mtime_files[i], SITE_MTIME);

    tree_mkdir(b, "www-plain");
    site.plain = tree_path(b, "www-plain");
    tree_write_str(site.plain, "index.html", "PLAIN-INDEX\n");
}
