// SPDX-License-Identifier: MIT
/*
 * test_listing.c - directory entries, their order, human sizes, the bound
 * on a listing, and the HTML renderer's escaping.
 */
#include "cases.h"
#include "check_main.h"
#include "files/listing.h"
#include "fixture.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct listing_order by_name = {LISTING_BY_NAME, false};

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
    ck_assert_uint_eq(l.total, 5);
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

/* The bound: entries past it are counted, not kept. */
START_TEST(collect_bounded)
{
    struct listing l;
    int fd = open_dir();

    ck_assert_int_eq(listing_collect_max(fd, false, 3, &l), 0);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_uint_eq(l.total, 5);
    /* the kept ones are sorted by name among themselves */
    ck_assert_int_lt(strcmp(l.v[0].name, l.v[1].name), 0);
    ck_assert_int_lt(strcmp(l.v[1].name, l.v[2].name), 0);

    char *html;
    size_t len;
    ck_assert_int_eq(listing_html(&l, "", &by_name, &html, &len), 0);
    ck_assert_ptr_nonnull(strstr(html, "<p>3 of 5 entries shown"));
    free(html);
    listing_free(&l);
    ck_assert_int_eq(listing_collect_max(fd, false, 0, &l), 0);
    ck_assert_uint_eq(l.n, 0);
    ck_assert_uint_eq(l.total, 5);
    listing_free(&l);
    close(fd);
}
END_TEST

/* Names asked of keep, with whether they were examined (a stat). */
struct asked {
    char names[16][64];
    bool examined[16];
    size_t n;
};

/* Hides "b.txt" and the directory "sub". */
static bool keep_some(void *arg, const char *name, bool dir,
                      const struct stat *st)
{
    struct asked *a = arg;

    ck_assert_uint_lt(a->n, N_ELEMS(a->names));
    snprintf(a->names[a->n], sizeof a->names[0], "%s", name);
    a->examined[a->n++] = st != NULL;
    if (strcmp(name, "sub") == 0)
        ck_assert(dir);
    return strcmp(name, "b.txt") != 0 && strcmp(name, "sub") != 0;
}

/* A hidden entry is neither a row nor counted; past the bound, by name. */
START_TEST(collect_keep)
{
    struct listing l;
    struct asked a = {0};
    int fd = open_dir();

    ck_assert_int_eq(
        listing_collect_keep(fd, false, LISTING_MAX, keep_some, &a, &l), 0);
    ck_assert_uint_eq(a.n, 5);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_uint_eq(l.total, 3);
    for (size_t i = 0; i < l.n; i++) {
        ck_assert_str_ne(l.v[i].name, "b.txt");
        ck_assert_str_ne(l.v[i].name, "sub");
    }
    listing_free(&l);
    /* nothing examined: every entry asked by name only, hidden ones not
     * counted */
    memset(&a, 0, sizeof a);
    ck_assert_int_eq(listing_collect_keep(fd, false, 0, keep_some, &a, &l), 0);
    ck_assert_uint_eq(a.n, 5);
    for (size_t i = 0; i < a.n; i++)
        ck_assert(!a.examined[i]);
    ck_assert_uint_eq(l.n, 0);
    ck_assert_uint_eq(l.total, 3);
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
    ck_assert_int_eq(listing_html(&l, "d<i>r/", &by_name, &html, &len), 0);
    ck_assert_uint_eq(strlen(html), len);
    ck_assert_ptr_null(strstr(html, "<script>"));
    ck_assert_ptr_null(strstr(html, "<i>"));
    ck_assert_ptr_nonnull(
        strstr(html, "<title>Index of /d&lt;i&gt;r/</title>"));
    ck_assert_ptr_nonnull(strstr(html, "<h1>Index of /d&lt;i&gt;r/</h1>"));
    ck_assert_ptr_nonnull(
        strstr(html, ">a&lt;script&gt;&amp;&quot;&#39;.html</a>"));
    ck_assert_ptr_nonnull(
        strstr(html, "href=\"./a%3Cscript%3E%26%22%27.html\""));
    ck_assert_ptr_nonnull(strstr(html, "href=\"./with%20space\""));
    ck_assert_ptr_nonnull(strstr(html, "href=\"./sub/\">sub/</a>"));
    ck_assert_ptr_nonnull(strstr(html, "href=\"../\""));
    ck_assert_ptr_null(strstr(html, "hidden"));
    /* a size in human units, the exact bytes in the title */
    ck_assert_ptr_nonnull(strstr(html, "title=\"5 bytes\">5 B</td>"));
    /* a page for phones and for dark mode, without script */
    ck_assert_ptr_nonnull(strstr(html, "<meta name=\"viewport\" "
                                       "content=\"width=device-width, "
                                       "initial-scale=1\">"));
    ck_assert_ptr_nonnull(strstr(html, "prefers-color-scheme:dark"));
    ck_assert_ptr_null(strstr(html, "<script"));
    ck_assert_ptr_null(strstr(html, "javascript"));
    free(html);
    listing_free(&l);
}
END_TEST

/* Names that are not UTF-8, or hold control bytes, in hand-made entries. */
static const struct name_case names[] = {
    {"bad\xff.txt", "bad\xef\xbf\xbd.txt", "bad%FF.txt"},
    {"caf\xc3\xa9", "caf\xc3\xa9", "caf%C3%A9"},
    {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", "%C0%AF"},
    {"nl\nx", "nl\xef\xbf\xbdx", "nl%0Ax"},
    {"\x7f", "\xef\xbf\xbd", "%7F"},
    {"q\"<>&'", "q&quot;&lt;&gt;&amp;&#39;", "q%22%3C%3E%26%27"},
    {"javascript:alert(1)", "javascript:alert(1)", "javascript%3Aalert%281%29"},
    {"?sort=x", "?sort=x", "%3Fsort%3Dx"},
};

LOOP_TEST(html_name_case, names)
{
    char name[64];
    struct listing_entry e = {.name = name, .kind = LISTING_FILE};
    struct listing l = {.v = &e, .n = 1};
    char *html, *want;
    size_t len;

    snprintf(name, sizeof name, "%s", names[_i].name);
    ck_assert_int_eq(listing_html(&l, "", &by_name, &html, &len), 0);
    ck_assert_int_ge(asprintf(&want, "<a href=\"./%s\">%s</a>", names[_i].href,
                              names[_i].shown),
                     0);
    ck_assert_msg(strstr(html, want), "%s not in\n%s", want, html);
    free(want);
    free(html);
}
END_TEST

START_TEST(empty_root_listing)
{
    struct listing l = {0};
    char *html;
    size_t len;

    ck_assert_int_eq(listing_html(&l, "", &by_name, &html, &len), 0);
    ck_assert_ptr_null(strstr(html, "../"));
    ck_assert_ptr_nonnull(strstr(html, "<p>0 entries"));
    free(html);
    listing_free(&l);
}
END_TEST

static const struct num_case sizes[] = {
    {0, "0 B"},
    {1, "1 B"},
    {1023, "1023 B"},
    {1024, "1.0 KiB"},
    {1025, "1.1 KiB"},
    {1536, "1.5 KiB"},
    {10239, "10 KiB"},
    {10240, "10 KiB"},
    {10241, "11 KiB"},
    {12345, "13 KiB"},
    {1048575, "1.0 MiB"},
    {1048576, "1.0 MiB"},
    {5000000000ull, "4.7 GiB"},
    {(uint64_t)1 << 40, "1.0 TiB"},
    {(uint64_t)1 << 50, "1.0 PiB"},
    {(uint64_t)1 << 60, "1.0 EiB"},
    {UINT64_MAX, "16 EiB"},
};

LOOP_TEST(human_size_case, sizes)
{
    char out[LISTING_HUMAN_LEN];

    listing_human_size(sizes[_i].in, out);
    ck_assert_msg(strcmp(out, sizes[_i].want) == 0, "%llu: '%s', want '%s'",
                  (unsigned long long)sizes[_i].in, out, sizes[_i].want);
}
END_TEST

/*
 * Sorting: every key and direction, folders first in each (as every peer
 * lists them); ties by name ascending.
 */
static const struct {
    const char *sort, *order;
    const char *want; /* names in order */
} orders[] = {
    {NULL, NULL, "c e a b d"},
    {"name", "asc", "c e a b d"},
    {"name", "desc", "e c d b a"},
    {"size", NULL, "c e d a b"},
    {"size", "asc", "c e d a b"},
    {"size", "desc", "e c b a d"},
    {"time", "asc", "e c b d a"},
    {"time", "desc", "c e a d b"},
    /* unknown values are ignored: that part stays at its default */
    {"bogus", "desc", "e c d b a"},
    {"size", "sideways", "c e d a b"},
    {"SIZE", NULL, "c e a b d"},
    {"", "", "c e a b d"},
};

LOOP_TEST(order_case, orders)
{
    struct listing_entry e[] = {
        {"d", LISTING_FILE, 5, 100}, {"b", LISTING_FILE, 900, 50},
        {"c", LISTING_DIR, 0, 200},  {"a", LISTING_FILE, 10, 200},
        {"e", LISTING_DIR, 7, 10},
    };
    struct listing l = {.v = e, .n = N_ELEMS(e)};
    struct listing_order o;
    char got[32] = "";

    listing_order_from(orders[_i].sort, orders[_i].order, &o);
    listing_sort(&l, &o);
    for (size_t i = 0; i < l.n; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s",
                 i ? " " : "", e[i].name);
    ck_assert_msg(strcmp(got, orders[_i].want) == 0,
                  "sort=%s order=%s: '%s', want '%s'", orders[_i].sort,
                  orders[_i].order, got, orders[_i].want);
}
END_TEST

/* The column headers link to the orders; the current one flips. */
START_TEST(column_links)
{
    struct listing l = {0};
    struct listing_order o = {LISTING_BY_SIZE, false};
    char *html;
    size_t len;

    ck_assert_int_eq(listing_html(&l, "x/", &o, &html, &len), 0);
    ck_assert_ptr_nonnull(strstr(html, "<a href=\"?sort=name&amp;order=asc\">"
                                       "Name</a></th>"));
    ck_assert_ptr_nonnull(strstr(html, "aria-sort=\"ascending\"><a href=\"?"
                                       "sort=size&amp;order=desc\">Size</a>"));
    ck_assert_ptr_nonnull(strstr(html, "<a href=\"?sort=time&amp;order=asc\">"
                                       "Modified</a></th>"));
    free(html);
    o.desc = true;
    ck_assert_int_eq(listing_html(&l, "x/", &o, &html, &len), 0);
    ck_assert_ptr_nonnull(strstr(html, "aria-sort=\"descending\"><a href=\"?"
                                       "sort=size&amp;order=asc\">Size</a>"));
    free(html);
}
END_TEST

/* Times in UTC, machine-readable in the datetime attribute. */
START_TEST(times)
{
    struct listing_entry e[] = {{"f", LISTING_FILE, 1, 1704164645},
                                {"g", LISTING_OTHER, 0, 0}};
    struct listing l = {.v = e, .n = 2};
    char *html;
    size_t len;

    ck_assert_int_eq(listing_html(&l, "", &by_name, &html, &len), 0);
    ck_assert_ptr_nonnull(
        strstr(html, "<time datetime=\"2024-01-02T03:04:05Z\">2024-01-02 "
                     "03:04</time>"));
    /* an entry that could not be examined: no size, no time */
    ck_assert_ptr_nonnull(strstr(html, ">g</a></td><td class=\"s\">-</td>"
                                       "<td class=\"t\"></td>"));
    free(html);
}
END_TEST

const struct check_main check_main = {
    .suite = "listing",
    .tcases = {{"dir", setup, fixture_dir_teardown,
                .tests = {&collect_sorted_no_dotfiles, &collect_bounded,
                          &collect_keep, &html_escapes, &empty_root_listing}},
               {"render",
                .loops = {LOOP(html_name_case), LOOP(human_size_case),
                          LOOP(order_case)},
                .tests = {&column_links, &times}}}};
