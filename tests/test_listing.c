// SPDX-License-Identifier: MIT
/* test_listing.c - directory entries and HTML escaping of the listing. */
#include "listing.h"

#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static int rm(const char *path, const struct stat *st, int flag,
              struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void put(const char *name, const char *content)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(content, f);
    fclose(f);
}

static void setup(void)
{
    char path[256];

    snprintf(dir, sizeof dir, "%s/beneath-listing-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    put("b.txt", "12345");
    put("a<script>&\"'.html", "x");
    put(".hidden", "h");
    put("with space", "");
    snprintf(path, sizeof path, "%s/sub", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/link", dir);
    ck_assert_int_eq(symlink("/etc/passwd", path), 0);
}

static void teardown(void)
{
    nftw(dir, rm, 16, FTW_DEPTH | FTW_PHYS);
}

static int open_dir(void)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    return fd;
}

START_TEST(collect_sorted_no_dotfiles)
{
    struct listing l;
    int fd = open_dir();

    ck_assert_int_eq(listing_collect(fd, false, &l), 0);
    ck_assert_uint_eq(l.n, 5);
    ck_assert_str_eq(l.v[0].name, "a<script>&\"'.html");
    ck_assert_str_eq(l.v[1].name, "b.txt");
    ck_assert_int_eq(l.v[1].kind, LISTING_FILE);
    ck_assert_uint_eq(l.v[1].size, 5);
    ck_assert_str_eq(l.v[2].name, "link");
    /* the symlink is not followed: no size of /etc/passwd */
    ck_assert_int_eq(l.v[2].kind, LISTING_OTHER);
    ck_assert_uint_eq(l.v[2].size, 0);
    ck_assert_str_eq(l.v[3].name, "sub");
    ck_assert_int_eq(l.v[3].kind, LISTING_DIR);
    ck_assert_str_eq(l.v[4].name, "with space");
    listing_free(&l);
    /* the fd is borrowed: still open and usable */
    ck_assert_int_eq(fcntl(fd, F_GETFD), FD_CLOEXEC);
    ck_assert_int_eq(listing_collect(fd, true, &l), 0);
    ck_assert_uint_eq(l.n, 6);
    ck_assert_str_eq(l.v[0].name, ".hidden");
    listing_free(&l);
    close(fd);
}
END_TEST

START_TEST(html_escapes)
{
    struct listing l;
    char *html;
    size_t len;
    int fd = open_dir();

    ck_assert_int_eq(listing_collect(fd, false, &l), 0);
    close(fd);
    ck_assert_int_eq(listing_html(&l, "d<i>r/", &html, &len), 0);
    ck_assert_uint_eq(strlen(html), len);
    ck_assert_ptr_null(strstr(html, "<script>"));
    ck_assert_ptr_null(strstr(html, "<i>"));
    ck_assert_ptr_nonnull(strstr(html, "Index of /d&lt;i&gt;r/"));
    ck_assert_ptr_nonnull(
        strstr(html, ">a&lt;script&gt;&amp;&quot;&#39;.html</a>"));
    ck_assert_ptr_nonnull(
        strstr(html, "href=\"./a%3Cscript%3E%26%22%27.html\""));
    ck_assert_ptr_nonnull(strstr(html, "href=\"./with%20space\""));
    ck_assert_ptr_nonnull(strstr(html, "href=\"./sub/\">sub/</a>"));
    ck_assert_ptr_nonnull(strstr(html, "href=\"../\""));
    ck_assert_ptr_null(strstr(html, "hidden"));
    free(html);
    listing_free(&l);
}
END_TEST

START_TEST(empty_root_listing)
{
    struct listing l = {0};
    char *html;
    size_t len;

    ck_assert_int_eq(listing_html(&l, "", &html, &len), 0);
    ck_assert_ptr_null(strstr(html, "../"));
    free(html);
    listing_free(&l);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("listing");
    TCase *tc = tcase_create("dir");
    SRunner *sr;
    int failed;

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, collect_sorted_no_dotfiles);
    tcase_add_test(tc, html_escapes);
    tcase_add_test(tc, empty_root_listing);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
