/* The floor for watcher's parser: libxml2's SAX2 push parser over a file in 64 KiB chunks with the same
 * options watcher uses and callbacks that do nothing. Built and run by Scripts/bench/parse-speed.sh.
 * Usage: sax-floor FILE */
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <stdio.h>
#include <string.h>

static unsigned long events;
static void start(void *ctx, const xmlChar *l, const xmlChar *p, const xmlChar *u, int nn, const xmlChar **ns,
                  int na, int nd, const xmlChar **a) { events++; }
static void end(void *ctx, const xmlChar *l, const xmlChar *p, const xmlChar *u) { events++; }
static void chars(void *ctx, const xmlChar *c, int n) { events++; }
static xmlEntityPtr entity(void *ctx, const xmlChar *name) { return xmlGetPredefinedEntity(name); }
static void serror(void *ctx, xmlErrorPtr e) {}

int main(int argc, char **argv) {
  xmlSAXHandler sax;
  memset(&sax, 0, sizeof sax);
  sax.initialized = XML_SAX2_MAGIC;
  sax.startElementNs = start;
  sax.endElementNs = end;
  sax.characters = chars;
  sax.cdataBlock = chars;
  sax.getEntity = entity;
  sax.serror = serror;
  FILE *f = fopen(argv[1], "rb");
  if (!f) return 2;
  static char buf[65536];
  xmlParserCtxtPtr ctxt = xmlCreatePushParserCtxt(&sax, &events, NULL, 0, NULL);
  xmlCtxtUseOptions(ctxt, XML_PARSE_RECOVER | XML_PARSE_NONET | XML_PARSE_IGNORE_ENC);
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) xmlParseChunk(ctxt, buf, (int)n, 0);
  xmlParseChunk(ctxt, NULL, 0, 1);
  (void)argc;
  fprintf(stderr, "%lu events\n", events);
  xmlFreeParserCtxt(ctxt);
  return 0;
}
