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
#include <libxml/xpath.h>

/* A structured error handler that drops the error: libxml2 otherwise prints XPath errors on stderr. The
 * error is still kept as the thread's last one (xmlGetLastError). */
static inline void watcher_silent_error(void *context, xmlErrorPtr error) {
  (void)context;
  (void)error;
}

/* Compiles an XPath expression with libxml2's errors kept off stderr (the handler is per thread). */
static inline xmlXPathCompExprPtr watcher_xpath_compile(const char *text) {
  xmlResetLastError();
  xmlSetStructuredErrorFunc(NULL, watcher_silent_error);
  return xmlXPathCompile((const xmlChar *)text);
}
