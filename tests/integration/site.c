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
    tree_build(
        w, "index.html=<!doctype html><title>root index</title>ROOT-INDEX\n",
        "style.css=body { color: #333; }\n", "app.js=console.log('beneath');\n",
        "logo.svg=<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n",
        "blob.unknownx=opaque bytes\n", "readme.txt=plain text\n",
        "data.json={\"a\": 1}\n", "caf\xc3\xa9.txt=UTF8-NAME\n",
        "404.html=<!doctype html><title>not here</title>CUSTOM-404-PAGE\n",
        "sub/index.html=SUB-INDEX\n", "sub/deeper/index.html=DEEPER-INDEX\n",
        "sub/.hidden=NESTED-HIDDEN\n", "sp ace/index.html=SPACE-INDEX\n",
        "noindex/only-file-here.txt=x\n", "multi/home.html=MULTI-HOME\n",
        "multi/index.html=MULTI-INDEX\n", "list/c.txt=c\n",
        "list/<b>&\"x'.txt=escaped\n", "list/b-dir/",
        "list/.dotfile-in-list=hidden\n", ".hidden=HIDDEN-CONTENT\n",
        ".well-known/x=WELL-KNOWN\n",
        /* the traversal set, inside */
        "link-rel -> ../secret.txt", "link-dir-rel -> ../outside",
        "link-rel-deep -> sub/../../secret.txt", "link-ok -> range.txt",
        "link-ok-dir -> sub", "loop-a -> loop-b", "loop-b -> loop-a",
        "procroot -> /proc/self/root", "passwd -> /etc/passwd", "fifo|", NULL);
    tree_write(w, "img.png", png, sizeof(png) - 1);
    for (size_t i = 0; i < SITE_RANGE_LEN; i++)
        site.range[i] = chars[i % (sizeof(chars) - 1)];
    site.range[SITE_RANGE_LEN] = '\0';
    tree_write(w, "range.txt", site.range, SITE_RANGE_LEN);
    site.big = hbuf(SITE_BIG_LEN);
    for (size_t i = 0; i < SITE_BIG_LEN; i++)
        site.big[i] = chars[(i * 7 + i / 4096) % (sizeof(chars) - 1)];
    tree_write(w, "big.bin", site.big, SITE_BIG_LEN);
    tree_write_str(w, "list/a.txt", hfill(12345, 'a'));

    /* the traversal set, with names known only now */
    tree_symlink(w, site.secret_path, "link-abs");
    tree_symlink(w, tree_path(b, "outside"), "link-dir");
    tree_mknod_null(w, "null");
    tree_socket(w, "sock");

    for (size_t i = 0; i < N_ELEMS(mtime_files); i++)
        tree_mtime(w, mtime_files[i], SITE_MTIME);

    tree_mkdir(b, "www-plain");
    site.plain = tree_path(b, "www-plain");
    tree_write_str(site.plain, "index.html", "PLAIN-INDEX\n");
}

void site_suite_setup(void)
{
    harness_suite_setup();
    site_build();
}
