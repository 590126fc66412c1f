/* watcher's own C beside libxml2: the SAX text callback that collects an element's text without a call into
 * Swift per run, and the byte loops of the cleaner that runs before libxml2 (`ReferenceFolder`, `TextRuns`).
 * All `static inline`, so Swift inlines them where they are called; the module's one source file is empty.
 * The libxml2 headers come from the CLibXML2 module (its shim keeps ICU out). */
#ifndef WATCHER_XML_H
#define WATCHER_XML_H

#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/* A run of text cut out of the document before libxml2 read it (`TextRuns`): its decoded bytes, and where
 * the reference standing for it ends in the bytes libxml2 reads. */
struct watcher_run {
  size_t start;
  size_t count;
  long end;
};

/* The text of the element being captured, collected in C.
 *
 * An escaped HTML description reaches the SAX `characters` callback once per run of text and once per
 * entity reference (`&lt;p&gt;` is three calls): millions of calls on a large feed. Going through Swift
 * for each cost a fifth of the parser thread; this callback appends in C and only the element's start and
 * end go to Swift. The SAX user data is this struct; `owner` is the Swift parser. */
struct watcher_capture {
  void *owner;
  xmlParserCtxtPtr ctxt;
  unsigned char *bytes;
  size_t count;
  size_t capacity;
  /* The most bytes kept; text beyond is dropped and `truncated` set. */
  size_t limit;
  /* Whether an element is being captured, and whether as XHTML (`<`, `&` and `>` escaped). */
  int active;
  int xhtml;
  int truncated;
  /* Set to end the parse: the fast reader looks at it after every callback (`watcher_fast.h`). */
  int stop;
  /* Set while libxml2 reads the prelude the fast reader wrote: its line breaks are not the document's. */
  int muted;
  /* The runs cut out (`TextRuns` keeps them): libxml2 reports each as the character U+E000 where its
   * reference `&#xE000;` ends; the runs before `run_head` are done with. */
  const struct watcher_run *runs;
  size_t run_count;
  size_t run_head;
  const unsigned char *run_bytes;
};

/* Where the capture's `stop` flag is, for the fast reader to look at. */
static inline const int *watcher_capture_stop(const struct watcher_capture *c) { return &c->stop; }

/* Makes room for `more` bytes; 0 when memory ran out (the text is then cut, as at the limit). */
static inline int watcher_capture_reserve(struct watcher_capture *c, size_t more) {
  if (c->count + more <= c->capacity) return 1;
  size_t capacity = c->capacity ? c->capacity * 2 : 4096;
  while (capacity < c->count + more) capacity *= 2;
  unsigned char *grown = (unsigned char *)realloc(c->bytes, capacity);
  if (!grown) return 0;
  c->bytes = grown;
  c->capacity = capacity;
  return 1;
}

/* Appends bytes as they are. */
static inline void watcher_capture_append(struct watcher_capture *c, const unsigned char *bytes, size_t count) {
  if (count == 0 || !watcher_capture_reserve(c, count)) return;
  memcpy(c->bytes + c->count, bytes, count);
  c->count += count;
}

/* Ends the text at the limit: what is kept ends with a whole UTF-8 character, and nothing is added after. */
static inline void watcher_capture_cut(struct watcher_capture *c) {
  c->truncated = 1;
  size_t end = c->count;
  size_t lead = end;
  while (lead > 0 && end - lead < 4 && (c->bytes[lead - 1] & 0xC0) == 0x80) lead--;
  if (lead == 0) return;
  unsigned char first = c->bytes[lead - 1];
  size_t length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1;
  if (end - (lead - 1) < length) c->count = lead - 1;
}

/* The index of the first of p[i..<n] that is a, b or c, or n: sixteen bytes tested at once. */
static inline size_t watcher_find3(const unsigned char *p, size_t i, size_t n, unsigned char a, unsigned char b,
                                   unsigned char c) {
#if defined(__SSE2__) && defined(__clang__)
  /* As in `watcher_move_until`: Clang's vector extensions, not <emmintrin.h>. */
  typedef char v16 __attribute__((vector_size(16)));
  const v16 va = (v16){0} + (char)a, vb = (v16){0} + (char)b, vc = (v16){0} + (char)c;
  while (i + 16 <= n) {
    v16 v;
    memcpy(&v, p + i, 16);
    unsigned mask = (unsigned)__builtin_ia32_pmovmskb128((v16)((v == va) | (v == vb) | (v == vc)));
    if (mask) return i + (size_t)__builtin_ctz(mask);
    i += 16;
  }
#endif
  while (i < n && p[i] != a && p[i] != b && p[i] != c) i++;
  return i;
}

/* The SAX `characters`, `cdataBlock` and `ignorableWhitespace` callback. */
static inline void watcher_capture_characters(void *ctx, const xmlChar *ch, int len) {
  struct watcher_capture *c = (struct watcher_capture *)ctx;
  /* After any error libxml2 stops substituting entity references (it checks `wellFormed`), which would
   * silently drop every later `&lt;` and `&amp;`; the only entities it can reach are the predefined ones
   * and HTML characters, so substituting them stays safe. Every callback resets the flag. */
  if (c->ctxt) c->ctxt->wellFormed = 1;
  /* U+E000 (EE 80 80) ending where a run's reference ends is that run; any other is text. A run libxml2
   * never reported (a broken document put its reference in a comment, say) is passed over. */
  if (len == 3 && c->run_head < c->run_count && ch[0] == 0xEE && ch[1] == 0x80 && ch[2] == 0x80) {
    long at = xmlByteConsumed(c->ctxt);
    while (c->run_head < c->run_count && c->runs[c->run_head].end < at) c->run_head++;
    if (c->run_head < c->run_count && c->runs[c->run_head].end == at) {
      const struct watcher_run *run = &c->runs[c->run_head++];
      ch = c->run_bytes + run->start;
      len = (int)run->count;
    }
  }
  if (!c->active || c->truncated || c->muted || len <= 0) return;
  size_t n = (size_t)len;
  if (!c->xhtml) {
    /* The text is cut where the limit falls, however libxml2 split it into calls. */
    size_t room = c->limit > c->count ? c->limit - c->count : 0;
    watcher_capture_append(c, ch, n < room ? n : room);
    if (n > room) watcher_capture_cut(c);
    return;
  }
  /* XHTML: the runs between `<`, `&` and `>` are copied whole, each of those three escaped. */
  size_t i = 0;
  while (i < n) {
    size_t j = watcher_find3(ch, i, n, '<', '&', '>');
    size_t room = c->limit > c->count ? c->limit - c->count : 0;
    watcher_capture_append(c, ch + i, j - i < room ? j - i : room);
    if (j - i > room) {
      watcher_capture_cut(c);
      return;
    }
    if (j == n) return;
    const char *escaped = ch[j] == '<' ? "&lt;" : ch[j] == '&' ? "&amp;" : "&gt;";
    size_t length = strlen(escaped);
    if (c->count + length > c->limit) {
      watcher_capture_cut(c);
      return;
    }
    watcher_capture_append(c, (const unsigned char *)escaped, length);
    i = j + 1;
  }
}

/* Appends an element's name as XHTML content writes it: without an `xhtml` or `html` prefix, which is what
 * HTML readers expect. */
static inline void watcher_capture_name(struct watcher_capture *c, const xmlChar *name, const xmlChar *prefix) {
  if (prefix && strcmp((const char *)prefix, "xhtml") != 0 && strcmp((const char *)prefix, "html") != 0) {
    watcher_capture_append(c, prefix, strlen((const char *)prefix));
    watcher_capture_append(c, (const unsigned char *)":", 1);
  }
  watcher_capture_append(c, name, strlen((const char *)name));
}

/* Appends a start tag inside captured XHTML: its attributes (libxml2's five pointers each) double-quoted,
 * `"` and `&` in their values escaped. Nothing once the text reached its limit. */
static inline void watcher_capture_start_tag(struct watcher_capture *c, const xmlChar *name, const xmlChar *prefix,
                                             int count, const xmlChar **attributes) {
  if (c->count >= c->limit || c->truncated) return;
  watcher_capture_append(c, (const unsigned char *)"<", 1);
  watcher_capture_name(c, name, prefix);
  for (int k = 0; attributes && k < count; k++) {
    const xmlChar **a = attributes + 5 * k;
    if (!a[0] || !a[3] || !a[4]) continue;
    watcher_capture_append(c, (const unsigned char *)" ", 1);
    watcher_capture_name(c, a[0], a[1]);
    watcher_capture_append(c, (const unsigned char *)"=\"", 2);
    const xmlChar *v = a[3], *end = a[4];
    while (v < end) {
      const xmlChar *run = v;
      while (v < end && *v != '"' && *v != '&') v++;
      watcher_capture_append(c, run, (size_t)(v - run));
      if (v == end) break;
      if (*v == '"') watcher_capture_append(c, (const unsigned char *)"&quot;", 6);
      else watcher_capture_append(c, (const unsigned char *)"&amp;", 5);
      v++;
    }
    watcher_capture_append(c, (const unsigned char *)"\"", 1);
  }
  watcher_capture_append(c, (const unsigned char *)">", 1);
}

/* Appends an end tag inside captured XHTML. */
static inline void watcher_capture_end_tag(struct watcher_capture *c, const xmlChar *name, const xmlChar *prefix) {
  if (c->count >= c->limit || c->truncated) return;
  watcher_capture_append(c, (const unsigned char *)"</", 2);
  watcher_capture_name(c, name, prefix);
  watcher_capture_append(c, (const unsigned char *)">", 1);
}

/* Sets libxml2's element depth limit (a C global, which Swift 6 will not assign); called once, before any
 * parser runs. */
static inline void watcher_set_max_depth(unsigned int depth) { xmlParserMaxDepth = depth; }

/* Moves the bytes at p[*r] down to p[*w] (in place: *w <= *r) up to the first one that is a, b, c or d, or up
 * to n; *r and *w end at it. For `ReferenceFolder`, which calls it once per markup character or reference:
 * sixteen bytes are tested at once, and moved at once when they cannot overlap unread ones. */
static inline void watcher_move_until(unsigned char *p, size_t *r, size_t *w, size_t n, unsigned char a,
                                      unsigned char b, unsigned char c, unsigned char d) {
  size_t ri = *r, wi = *w;
#if defined(__SSE2__) && defined(__clang__)
  /* Clang's vector extensions and SSE2 builtins, not <emmintrin.h>: that header's module clashes with
   * glibc's fortified <stdlib.h> when the static build defines _FORTIFY_SOURCE. */
  typedef char v16 __attribute__((vector_size(16)));
  const v16 va = (v16){0} + (char)a, vb = (v16){0} + (char)b, vc = (v16){0} + (char)c, vd = (v16){0} + (char)d;
  while (ri + 16 <= n) {
    v16 v;
    memcpy(&v, p + ri, 16);
    v16 hit = (v16)((v == va) | (v == vb) | (v == vc) | (v == vd));
    unsigned mask = (unsigned)__builtin_ia32_pmovmskb128(hit);
    size_t k = mask ? (size_t)__builtin_ctz(mask) : 16;
    if (ri - wi >= 16) {
      /* All sixteen: those past the k-th land where the next write goes, below the next read. */
      memcpy(p + wi, &v, 16);
    } else if (wi != ri) {
      memmove(p + wi, p + ri, k);
    }
    ri += k;
    wi += k;
    if (mask) {
      *r = ri;
      *w = wi;
      return;
    }
  }
#endif
  while (ri < n) {
    unsigned char x = p[ri];
    if (x == a || x == b || x == c || x == d) break;
    p[wi++] = x;
    ri++;
  }
  *r = ri;
  *w = wi;
}

/* The length of the valid UTF-8 sequence at p[i] (2 to 4), or 0 if it is invalid: overlong, a surrogate,
 * beyond U+10FFFF or cut off at n. p[i] is not ASCII. */
static inline size_t watcher_utf8_length(const unsigned char *p, size_t i, size_t n) {
#define WATCHER_CONT(k) ((k) < n && (p[k] & 0xC0) == 0x80)
  unsigned char c = p[i];
  unsigned char d = i + 1 < n ? p[i + 1] : 0;
  if (c >= 0xC2 && c <= 0xDF) return WATCHER_CONT(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    int second = c == 0xE0 ? (d >= 0xA0 && d <= 0xBF) : c == 0xED ? (d >= 0x80 && d <= 0x9F) : WATCHER_CONT(i + 1);
    return second && WATCHER_CONT(i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    int second = c == 0xF0 ? (d >= 0x90 && d <= 0xBF) : c == 0xF4 ? (d >= 0x80 && d <= 0x8F) : WATCHER_CONT(i + 1);
    return second && WATCHER_CONT(i + 2) && WATCHER_CONT(i + 3) ? 4 : 0;
  }
  return 0;
#undef WATCHER_CONT
}

/* The character of the predefined reference at p[i] (`&lt;`, `&gt;`, `&amp;`, `&quot;` or `&apos;`), with its
 * length in *length; 0 when there is none. */
static inline unsigned char watcher_predefined_reference(const unsigned char *p, size_t i, size_t n, size_t *length) {
  size_t left = n - i;
  if (left < 4) return 0;
  uint32_t word;
  memcpy(&word, p + i, 4);
  /* As little-endian numbers: "&lt;", "&gt;", "&amp", "&quo", "&apo". */
  if (word == 0x3B746C26u) { *length = 4; return '<'; }
  if (word == 0x3B746726u) { *length = 4; return '>'; }
  if (word == 0x706D6126u) { *length = 5; return left >= 5 && p[i + 4] == ';' ? '&' : 0; }
  if (left < 6 || p[i + 5] != ';') return 0;
  *length = 6;
  if (word == 0x6F757126u && p[i + 4] == 't') return '"';
  if (word == 0x6F706126u && p[i + 4] == 's') return '\'';
  return 0;
}

/* Whether the `&` at p[i] starts a reference the input cleaner knows without a table: `&lt;`, `&gt;`,
 * `&amp;`, `&quot;`, `&apos;`, `&#123;` or `&#x1F;` (at most eight digits). */
static inline int watcher_is_plain_reference(const unsigned char *p, size_t i, size_t n) {
  size_t length;
  if (watcher_predefined_reference(p, i, n, &length)) return 1;
  size_t j = i + 1;
  if (j >= n || p[j] != '#') return 0;
  j++;
  int hex = j < n && (p[j] | 0x20) == 'x';
  if (hex) j++;
  size_t start = j;
  while (j < n && j - start < 8) {
    unsigned char x = p[j];
    if (!((x >= '0' && x <= '9') || (hex && (x | 0x20) >= 'a' && (x | 0x20) <= 'f'))) break;
    j++;
  }
  return j > start && j < n && p[j] == ';';
}

/* Where the input cleaner is: in markup or text (where a bare `&` is escaped), in a CDATA section or in a
 * comment (where `&` is text as written and must stay). */
enum { WATCHER_CLEAN_TEXT = 0, WATCHER_CLEAN_CDATA = 1, WATCHER_CLEAN_COMMENT = 2 };

/* The offset of the first byte at or after `from` that the input cleaner must act on, or n: a C0 control
 * other than tab, newline and return; a byte that starts no valid UTF-8 sequence; or, outside CDATA sections
 * and comments, an `&` that starts none of the references `watcher_is_plain_reference` knows (it may still
 * name an HTML entity). `*mode` follows `<![CDATA[` … `]]>` and `<!--` … `-->` as they pass; the caller
 * never cuts the input inside one of those markers (`watcher_clean_safe_length`). Clean text is tested
 * sixteen bytes at a time. */
static inline size_t watcher_find_unclean(const unsigned char *p, size_t from, size_t n, int *mode) {
  size_t i = from;
  for (;;) {
    /* The byte pair that may start or end a section: `<!` in text, `]]` in CDATA, `--` in a comment. */
    unsigned char first = *mode == WATCHER_CLEAN_TEXT ? '<' : *mode == WATCHER_CLEAN_CDATA ? ']' : '-';
    unsigned char second = *mode == WATCHER_CLEAN_TEXT ? '!' : first;
    int text = *mode == WATCHER_CLEAN_TEXT;
#if defined(__SSE2__) && defined(__clang__)
    typedef char v16 __attribute__((vector_size(16)));
    /* As signed bytes, everything from 0x80 up is below 0x20 too. */
    const v16 space = (v16){0} + 0x20, tab = (v16){0} + 9, newline = (v16){0} + 10, ret = (v16){0} + 13;
    /* `&` counts only in text: all ones there, nothing in a section. */
    const v16 amp = (v16){0} + '&', ampmask = (v16){0} + (char)(text ? -1 : 0);
    const v16 vfirst = (v16){0} + (char)first, vsecond = (v16){0} + (char)second;
    while (i + 17 <= n) {
      v16 v, w;
      memcpy(&v, p + i, 16);
      memcpy(&w, p + i + 1, 16);
      v16 hit = (v16)(((v < space) & ~((v == tab) | (v == newline) | (v == ret))) | ((v == amp) & ampmask) |
                      ((v == vfirst) & (w == vsecond)));
      unsigned mask = (unsigned)__builtin_ia32_pmovmskb128(hit);
      /* Escaped HTML has a reference every few bytes, and text other than English a multi-byte character:
       * the common references and valid UTF-8 are passed over here, without leaving the loop (in text only
       * for `&`: a section's `&` is never a hit). A character may end past this block; the next starts
       * after it. */
      size_t next = i + 16;
      while (mask) {
        size_t k = i + (size_t)__builtin_ctz(mask);
        if (p[k] == '&') {
          if (!watcher_is_plain_reference(p, k, n)) break;
          mask &= mask - 1;
        } else if (p[k] >= 0x80) {
          size_t end = k + watcher_utf8_length(p, k, n);
          if (end == k) break;
          if (end >= next) {
            next = end;
            mask = 0;
          } else {
            mask &= ~0u << (end - i);
          }
        } else {
          break;
        }
      }
      if (mask) {
        i += (size_t)__builtin_ctz(mask);
        break;
      }
      i = next;
    }
#endif
    while (i < n) {
      unsigned char x = p[i];
      if (x >= 0x80 || (x < 0x20 && x != 9 && x != 10 && x != 13) || (text && x == '&')) break;
      if (x == first && i + 1 < n && p[i + 1] == second) break;
      i++;
    }
    if (i >= n) return n;
    unsigned char x = p[i];
    if (x == first && i + 1 < n && p[i + 1] == second) {
      if (text && n - i >= 9 && memcmp(p + i, "<![CDATA[", 9) == 0) {
        *mode = WATCHER_CLEAN_CDATA;
        i += 9;
      } else if (text && n - i >= 4 && memcmp(p + i, "<!--", 4) == 0) {
        *mode = WATCHER_CLEAN_COMMENT;
        i += 4;
      } else if (!text && i + 2 < n && p[i + 2] == '>') {
        *mode = WATCHER_CLEAN_TEXT;
        i += 3;
      } else {
        i += 1;
      }
    } else if (x == '&') {
      if (!watcher_is_plain_reference(p, i, n)) return i;
      i++;
    } else if (x >= 0x80) {
      size_t length = watcher_utf8_length(p, i, n);
      if (length == 0) return i;
      i += length;
    } else {
      return i;
    }
  }
}

/* Writes the UTF-8 of the scalar v at out; returns how many bytes. */
static inline size_t watcher_put_utf8(unsigned char *out, uint32_t v) {
  if (v < 0x80) { out[0] = (unsigned char)v; return 1; }
  if (v < 0x800) { out[0] = (unsigned char)(0xC0 | (v >> 6)); out[1] = (unsigned char)(0x80 | (v & 0x3F)); return 2; }
  if (v < 0x10000) {
    out[0] = (unsigned char)(0xE0 | (v >> 12));
    out[1] = (unsigned char)(0x80 | ((v >> 6) & 0x3F));
    out[2] = (unsigned char)(0x80 | (v & 0x3F));
    return 3;
  }
  out[0] = (unsigned char)(0xF0 | (v >> 18));
  out[1] = (unsigned char)(0x80 | ((v >> 12) & 0x3F));
  out[2] = (unsigned char)(0x80 | ((v >> 6) & 0x3F));
  out[3] = (unsigned char)(0x80 | (v & 0x3F));
  return 4;
}

/* For `TextRuns`: decodes the character data p[*i..n) into out[*o..] as libxml2 reports it in content: the
 * predefined and numeric references resolved (libxml2 reads only a lowercase `x` as hexadecimal, and refuses a
 * value outside XML's Char production), CR LF and a lone CR as LF. Decoding never lengthens the text. Returns
 * 0 at the end; 1 when it stops at an `&` that starts a named reference other than the predefined ones (the
 * caller resolves it and calls again); -1 when libxml2 might read the text otherwise: a reference it would
 * refuse, or a literal `>` (which may end a comment or a `]]>`). */
static inline int watcher_decode_run(const unsigned char *p, size_t n, size_t *ip, unsigned char *out, size_t *op) {
  size_t i = *ip, o = *op;
  for (;;) {
#if defined(__SSE2__) && defined(__clang__)
    typedef char v16 __attribute__((vector_size(16)));
    const v16 amp = (v16){0} + '&', gt = (v16){0} + '>', cr = (v16){0} + 13, ef = (v16){0} + (char)0xEF;
    while (i + 16 <= n) {
      v16 v;
      memcpy(&v, p + i, 16);
      /* The sixteen bytes are written whole; those past a special byte are written over next. */
      memcpy(out + o, &v, 16);
      unsigned mask = (unsigned)__builtin_ia32_pmovmskb128((v16)((v == amp) | (v == gt) | (v == cr) | (v == ef)));
      if (mask) {
        size_t k = (size_t)__builtin_ctz(mask);
        i += k;
        o += k;
        goto special;
      }
      i += 16;
      o += 16;
    }
#endif
    while (i < n && p[i] != '&' && p[i] != '>' && p[i] != 13 && p[i] != 0xEF) out[o++] = p[i++];
    if (i >= n) {
      *ip = i;
      *op = o;
      return 0;
    }
  special:
    if (p[i] == '>') return -1;
    if (p[i] == 0xEF) {
      /* U+FFFE and U+FFFF are not characters XML allows: libxml2 reports and drops them. */
      if (i + 2 < n && p[i + 1] == 0xBF && (p[i + 2] == 0xBE || p[i + 2] == 0xBF)) return -1;
      out[o++] = p[i++];
      continue;
    }
    if (p[i] == 13) {
      out[o++] = 10;
      i += (i + 1 < n && p[i + 1] == 10) ? 2 : 1;
      continue;
    }
    size_t length;
    unsigned char predefined = watcher_predefined_reference(p, i, n, &length);
    if (predefined) {
      out[o++] = predefined;
      i += length;
      continue;
    }
    if (n - i < 2 || p[i + 1] != '#') {
      *ip = i;
      *op = o;
      return 1;
    }
    size_t j = i + 2;
    int hex = j < n && p[j] == 'x';
    if (hex) j++;
    size_t start = j;
    uint32_t value = 0;
    while (j < n && j - start < 8) {
      unsigned char x = p[j];
      if (x >= '0' && x <= '9') value = value * (hex ? 16 : 10) + (uint32_t)(x - '0');
      else if (hex && (x | 0x20) >= 'a' && (x | 0x20) <= 'f') value = value * 16 + (uint32_t)((x | 0x20) - 'a' + 10);
      else break;
      j++;
    }
    if (j == start || j >= n || p[j] != ';') return -1;
    int valid = value == 9 || value == 10 || value == 13 || (value >= 0x20 && value <= 0xD7FF) ||
                (value >= 0xE000 && value <= 0xFFFD) || (value >= 0x10000 && value <= 0x10FFFF);
    if (!valid) return -1;
    o += watcher_put_utf8(out + o, value);
    i = j + 1;
  }
}

/* Whether p[k..] begins like `marker` (of `length` bytes) as far as p[0..n) goes. */
static inline int watcher_begins_like(const unsigned char *p, size_t k, size_t n, const char *marker, size_t length) {
  return memcmp(p + k, marker, n - k < length ? n - k : length) == 0;
}

/* The length of p[0..n) without a tail that may be the start of `]]>` or `-->`, or of `<![CDATA[` or `<!--`,
 * cut off by the end of the chunk; the cleaner carries that tail over to the next one. */
static inline size_t watcher_clean_safe_length(const unsigned char *p, size_t n) {
  /* One or two `]`, or one or two `-`, at the very end. */
  size_t end = n;
  if (n > 0 && (p[n - 1] == ']' || p[n - 1] == '-')) {
    end = n - 1;
    if (end > 0 && p[end - 1] == p[n - 1]) end--;
  }
  /* An opening marker that is not whole before `end` is carried from its `<`. */
  for (size_t k = n > 11 ? n - 11 : 0; k < n; k++) {
    if (p[k] != '<') continue;
    if ((watcher_begins_like(p, k, n, "<![CDATA[", 9) && k + 9 > end) ||
        (watcher_begins_like(p, k, n, "<!--", 4) && k + 4 > end))
      return k;
  }
  return end;
}

#endif
