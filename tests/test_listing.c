// SPDX-License-Identifier: MIT
/* test_listing.c - directory entries and HTML escaping of the listing. */
#include "check_main.h"
#include "fixture.h"
#include "listing.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const tree[] = {
    "b.txt=12345", "a<script>&\"'.html=x", ".hidden=h", "with space",
    "sub/",        "link -> /etc/passwd",
};

static void setup(void)
{
    const char *bad;

    fixture_dir_setup();
    ck_assert_msg(fixture_build(fixture_dir, tree, N_ELEMS(tree), &bad) == 0,
                  "fixture entry %s", bad);
}

static int open_dir(void)
{
    int fd = open(fixture_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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

const struct check_main check_main = {
    .suite = "listing",
    .tcases = {{"dir", setup, fixture_dir_teardown,
                .tests = {&collect_sorted_no_dotfiles, &html_escapes,
                          &empty_root_listing}}}};
