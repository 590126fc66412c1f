/* The fast reader: a tokenizer of its own for well-formed XML, which reports to the same SAX2 callbacks as
 * libxml2 and hands the document to libxml2 at the first thing it does not read exactly as libxml2 does.
 *
 * libxml2's SAX parser and the cleaner that runs before it (`ReferenceFolder`) read every byte twice and
 * spent two fifths of a feed's parse. Most feeds are well-formed: this reader takes them in one pass,
 * calling `startElementNs`, `endElementNs` and `characters` with the arguments libxml2 would give (names
 * interned for the parse, namespaces resolved, attribute values as libxml2 hands them over). At the first
 * construct it does not take (a DOCTYPE, an entity other than the five predefined ones and character
 * references, any error: mismatched tags, a bad character, an unbound prefix, a relative namespace URI…) it
 * stops before the token and `watcher_fast_handoff` writes what libxml2 then reads: a prelude that opens
 * the elements open there, with their namespace declarations, each `<` on the line it was on and the
 * token at its line and column, followed by the rest of the document. libxml2 so reports the same
 * warnings, at the same places, as if it had read the document from its start. The caller skips the
 * prelude's start callbacks (`watcher_fast_prelude_starts`). */
#ifndef WATCHER_FAST_H
#define WATCHER_FAST_H

#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>

#include <stddef.h>

struct watcher_fast;

/* A reader that reports to `sax` with `ctx` as the user data; `stop` is read after every callback (the
 * caller sets it to end the parse). */
struct watcher_fast *watcher_fast_new(const xmlSAXHandler *sax, void *ctx, const int *stop);
void watcher_fast_free(struct watcher_fast *f);

enum { WATCHER_FAST_MORE = 0, WATCHER_FAST_DONE = 1, WATCHER_FAST_HANDOFF = 2 };

/* Reads the next `n` bytes of the document (`last`: there are no more). MORE: give the next bytes; DONE:
 * the document (or the parse, stopped) is over; HANDOFF: libxml2 must read the rest. */
int watcher_fast_feed(struct watcher_fast *f, const unsigned char *bytes, size_t n, int last);

/* After HANDOFF: the bytes libxml2 reads first (prelude and the unread rest), malloc'd, the caller frees;
 * their length in *length. */
unsigned char *watcher_fast_handoff(struct watcher_fast *f, size_t *length);

/* After HANDOFF: how many start (and end) callbacks libxml2 makes for the prelude, which the caller skips. */
int watcher_fast_prelude_starts(const struct watcher_fast *f);
int watcher_fast_prelude_ends(const struct watcher_fast *f);

/* The position libxml2 would report during the current callback (1-based line, column in characters). */
void watcher_fast_position(struct watcher_fast *f, long *line, long *column);

#endif
