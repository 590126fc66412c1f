/* libxml2 for watcher's SAX2 push parser (docs/design.md, "Platform notes").
 *
 * Debian builds libxml2 with ICU, and encoding.h then includes ICU's <unicode/ucnv.h>, whose UErrorCode
 * clashes with the copy inside Foundation (_FoundationICU) when both modules meet in one Swift file.
 * Only ICU-typed members of xmlCharEncodingHandler depend on it, and watcher never touches that struct
 * (it reaches the parser context's encoding handler through pointers only), so leave ICU out. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/HTMLparser.h>
#include <libxml/entities.h>
#include <libxml/xmlerror.h>
