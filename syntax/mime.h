/* SPDX-License-Identifier: MIT */
/*
 * mime.h - Content-Type from a file name's extension: a map of the types a
 * configuration adds (a mime.types file, --mime EXT=TYPE) over the built-in
 * table of common web types.
 *
 * A name's extensions are tried longest first ("a.spdx.json": "spdx.json",
 * then "json"), in the map and then, for the last extension, in the built-in
 * table; compared without regard to case; a name starting with '.' has no
 * extension in that dot. A type taken into the map is written the way the
 * built-in table writes it: a type of the table gets the table's parameters
 * (text/html -> "text/html; charset=utf-8"), any other text/ type without
 * parameters gets "; charset=utf-8", and a type with parameters is kept as
 * given. Whether a type is worth compressing on the fly follows the built-in
 * table's row of the extension, else its type (text/, +json, +xml).
 */
#ifndef BENEATH_SYNTAX_MIME_H
#define BENEATH_SYNTAX_MIME_H

#include "syntax/lines.h"

#include <stdbool.h>
#include <stddef.h>

/* An extension (or a type) longer than this is refused. */
#define MIME_EXT_MAX 64
#define MIME_TYPE_MAX 256

struct mime_entry {
    char *ext;  /* lower case, without the leading '.' */
    char *type; /* the whole Content-Type value */
    bool compress;
    size_t seq; /* order of addition: the later of two wins */
};

/* The type of a file whose extension no table knows, unless set. */
#define MIME_DEFAULT_TYPE "application/octet-stream"

/* Types by extension, in addition to the built-in table. */
struct mime_map {
    struct mime_entry *v;
    size_t n, cap;
    size_t added; /* additions so far: the next entry's seq */
    bool sorted;  /* mime_map_finish was called since the last addition */
    char *dflt;   /* mime_map_default's type, or NULL: MIME_DEFAULT_TYPE */
    bool dflt_compress;
};

/*
 * mime_map_parse - add the lines of a mime.types file (@len bytes at @text,
 * named @name in messages): "type/subtype ext ext ...", '#' comments, blank
 * lines, a type with no extension (most of Debian's). Messages go to @d as
 * "@name:LINE: why"; the lines before and after a bad one are still taken.
 *
 * Returns 0, -EINVAL (at least one message) or -ENOMEM.
 */
int mime_map_parse(struct mime_map *m, const char *text, size_t len,
                   const char *name, struct lines_diag *d);

/*
 * mime_map_add - add "EXT=TYPE" (--mime: ".vtt=text/vtt" or
 * "txt=text/plain; charset=iso-8859-1"). @m NULL: check @spec only. The
 * reason of a refusal goes to @err (@size bytes).
 *
 * Returns 0, -EINVAL or -ENOMEM.
 */
int mime_map_add(struct mime_map *m, const char *spec, char *err, size_t size);

/*
 * mime_map_default - the Content-Type of a file whose extension neither @m
 * nor the built-in table knows (no extension: README, copyright), in place
 * of MIME_DEFAULT_TYPE: @type as --mime takes it ("text/plain", written
 * "text/plain; charset=utf-8"), compressible by its type. @m NULL: check
 * @type only. The reason of a refusal goes to @err (@size bytes).
 *
 * Returns 0, -EINVAL or -ENOMEM.
 */
int mime_map_default(struct mime_map *m, const char *type, char *err,
                     size_t size);

/*
 * mime_map_finish - make @m ready for lookups after the last addition (of
 * two entries for one extension the later wins).
 */
void mime_map_finish(struct mime_map *m);

/*
 * mime_map_type - the Content-Type for @name: @m's (NULL: none), else the
 * built-in table's.
 *
 * Returns a string that lives as long as @m (or a static one); the
 * mime_map_default type, else MIME_DEFAULT_TYPE, when no extension is
 * known.
 */
const char *mime_map_type(const struct mime_map *m, const char *name);

/*
 * mime_map_compressible - whether the type of @name (as mime_map_type
 * finds it) is worth compressing on the fly; unknown extensions are not,
 * unless the mime_map_default type is.
 */
bool mime_map_compressible(const struct mime_map *m, const char *name);

/* mime_map_free - release what @m owns; @m may be zeroed or NULL. */
void mime_map_free(struct mime_map *m);

/* mime_type - mime_map_type with the built-in table alone. */
const char *mime_type(const char *name);

/* mime_compressible - mime_map_compressible with the built-in table alone. */
bool mime_compressible(const char *name);

#endif
