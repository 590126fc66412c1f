/* The fast reader (watcher_fast.h): well-formed XML in one pass, libxml2 for the rest. */
#include "watcher_fast.h"

#include <libxml/HTMLparser.h>

#include <ctype.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A token (tag, comment, CDATA section, processing instruction) longer than this is left to libxml2,
 * whose own limits on such tokens then apply as they always did. */
#define FAST_MAX_TOKEN (1 << 20)
#define FAST_MAX_ATTRS 64
#define FAST_MAX_NAMES 100000

static const char XML_NS[] = "http://www.w3.org/XML/1998/namespace";

struct name_entry {
  xmlChar *s;
  size_t n;
  uint32_t hash;
  /* For a qualified name: its prefix and local part, each interned (the name itself when it has none). */
  const xmlChar *prefix, *local;
};

struct element {
  const xmlChar *local, *prefix, *uri, *qname;
  size_t qlen;
  int bindings; /* namespace bindings this element declared */
  size_t at;    /* the document offset of its `<` */
  long line;    /* the line of its `<`, once counted (`advance`) */
};

struct binding {
  const xmlChar *prefix; /* NULL: the default namespace */
  const xmlChar *uri;    /* NULL: no namespace (xmlns="") */
};

struct watcher_fast {
  const xmlSAXHandler *sax;
  void *ctx;
  const int *stop;
  unsigned char *buf;
  size_t len, cap, pos;
  size_t abs; /* the document offset of buf[0] */
  int last;
  int state; /* 0 before the root, 1 in it, 2 after it */
  int failed;
  /* Whitespace from pos up to ws_end is text not yet handed over, followed by the tag at ws_end. */
  size_t ws_end;
  /* Lines: newlines counted up to `counted`; the current line's characters counted up to `chars_at`. */
  long line;
  size_t counted;
  long line_chars;
  size_t chars_at;
  /* Where the current callback's position is (a document offset). */
  size_t callback_at;
  struct element *stack;
  size_t depth, stack_cap;
  /* The open elements whose line is known: the first `lined` of the stack. */
  size_t lined;
  struct binding *bindings;
  size_t nbindings, bindings_cap;
  struct name_entry *names;
  size_t names_cap, names_count;
  /* The entry (its index + 1) a qualified name was last found at, by `name_key`: a feed names the same few
   * elements over and over, and this finds them without hashing or probing. Cleared when the table grows. */
  uint32_t name_cache[256];
  unsigned char *scratch;
  size_t scratch_cap;
  /* A run of text with references, decoded, handed over in one call. */
  unsigned char *text;
  size_t text_len, text_cap;
  int prelude_starts, prelude_ends;
  const xmlChar *xml_prefix, *xml_uri, *xmlns_name;
};

enum { OK = 0, NEED = 1, BAIL = 2, STOPPED = 3 };

/* MARK: names */

/* Eight bytes at a time: names are short, and every element looks its name up. */
static uint32_t hash_bytes(const unsigned char *p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  uint64_t w = 0;
  memcpy(&w, p + i, n - i);
  h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 29;
  return (uint32_t)h;
}

static struct name_entry *intern_entry(struct watcher_fast *f, const unsigned char *p, size_t n);

static const xmlChar *intern(struct watcher_fast *f, const unsigned char *p, size_t n) {
  struct name_entry *e = intern_entry(f, p, n);
  return e ? e->s : NULL;
}

static inline size_t name_key(const unsigned char *p, size_t n) {
  return (n * 7 + p[0] * 3 + p[n - 1] * 5 + p[n >> 1]) & 255;
}

/* The entry of a qualified name (its colon at `colon`, 0: none), its parts interned too. */
static struct name_entry *intern_qname(struct watcher_fast *f, const unsigned char *p, size_t n, size_t colon) {
  size_t key = name_key(p, n);
  uint32_t cached = f->name_cache[key];
  if (cached) {
    struct name_entry *c = &f->names[cached - 1];
    if (c->n == n && c->local && !memcmp(c->s, p, n)) return c;
  }
  struct name_entry *e = intern_entry(f, p, n);
  if (!e) return e;
  if (e->local) {
    f->name_cache[key] = (uint32_t)(e - f->names) + 1;
    return e;
  }
  const xmlChar *prefix = NULL, *local = e->s;
  if (colon) {
    prefix = intern(f, p, colon);
    local = intern(f, p + colon + 1, n - colon - 1);
    if (!prefix || !local) return NULL;
    /* The table may have grown: the entry again. */
    e = intern_entry(f, p, n);
    if (!e) return NULL;
  }
  e->prefix = prefix;
  e->local = local;
  return e;
}

static struct name_entry *intern_entry(struct watcher_fast *f, const unsigned char *p, size_t n) {
  if (f->names_count * 2 >= f->names_cap) {
    if (f->names_count >= FAST_MAX_NAMES) return NULL;
    size_t cap = f->names_cap ? f->names_cap * 2 : 256;
    struct name_entry *grown = calloc(cap, sizeof *grown);
    if (!grown) return NULL;
    for (size_t i = 0; i < f->names_cap; i++) {
      if (!f->names[i].s) continue;
      size_t j = f->names[i].hash & (cap - 1);
      while (grown[j].s) j = (j + 1) & (cap - 1);
      grown[j] = f->names[i];
    }
    free(f->names);
    f->names = grown;
    f->names_cap = cap;
    memset(f->name_cache, 0, sizeof f->name_cache);
  }
  uint32_t h = hash_bytes(p, n);
  size_t j = h & (f->names_cap - 1);
  while (f->names[j].s) {
    if (f->names[j].hash == h && f->names[j].n == n && memcmp(f->names[j].s, p, n) == 0) return &f->names[j];
    j = (j + 1) & (f->names_cap - 1);
  }
  xmlChar *s = malloc(n + 1);
  if (!s) return NULL;
  memcpy(s, p, n);
  s[n] = 0;
  f->names[j] = (struct name_entry){s, n, h, NULL, NULL};
  f->names_count++;
  return &f->names[j];
}

/* MARK: set-up */

struct watcher_fast *watcher_fast_new(const xmlSAXHandler *sax, void *ctx, const int *stop) {
  struct watcher_fast *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->sax = sax;
  f->ctx = ctx;
  f->stop = stop;
  f->line = 1;
  f->xml_prefix = intern(f, (const unsigned char *)"xml", 3);
  f->xml_uri = intern(f, (const unsigned char *)XML_NS, sizeof XML_NS - 1);
  f->xmlns_name = intern(f, (const unsigned char *)"xmlns", 5);
  if (!f->xml_prefix || !f->xml_uri || !f->xmlns_name) {
    watcher_fast_free(f);
    return NULL;
  }
  return f;
}

void watcher_fast_free(struct watcher_fast *f) {
  if (!f) return;
  for (size_t i = 0; i < f->names_cap; i++) free(f->names[i].s);
  free(f->names);
  free(f->buf);
  free(f->stack);
  free(f->bindings);
  free(f->scratch);
  free(f->text);
  free(f);
}

/* MARK: positions */

static size_t count_chars(const unsigned char *p, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += (p[i] & 0xC0) != 0x80;
  return c;
}

/* Counts the newlines from `counted` up to document offset `to`: sixteen bytes at a time, summed without a
 * branch per block, then the last one found from the end. */
static void count_lines(struct watcher_fast *f, size_t to) {
  if (to <= f->counted) return;
  const unsigned char *p = f->buf;
  size_t start = f->counted - f->abs, i = start, end = to - f->abs;
  long lines = 0;
#if defined(__SSE2__)
  const __m128i lf = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
  while (i + 16 <= end) {
    /* Each byte of the sum counts up to 255 blocks. */
    size_t stop = end - i > 16 * 255 ? i + 16 * 255 : end;
    __m128i sum = zero;
    for (; i + 16 <= stop; i += 16) sum = _mm_sub_epi8(sum, _mm_cmpeq_epi8(_mm_loadu_si128((const void *)(p + i)), lf));
    __m128i total = _mm_sad_epu8(sum, zero);
    lines += _mm_cvtsi128_si32(total) + _mm_cvtsi128_si32(_mm_unpackhi_epi64(total, total));
  }
#endif
  for (; i < end; i++) lines += p[i] == '\n';
  if (lines) {
    size_t last = end;
    while (p[--last] != '\n') continue;
    f->line += lines;
    f->line_chars = 0;
    f->chars_at = f->abs + last + 1;
  }
  f->counted = to;
}

/* Counts the newlines up to document offset `to` (at or after the first byte still in the buffer), noting
 * on the way the line of each open element it passes. An element's line is counted only when something
 * asks for a position or its bytes are let go: most elements end before either. */
static void advance(struct watcher_fast *f, size_t to) {
  while (f->lined < f->depth && f->stack[f->lined].at <= to) {
    count_lines(f, f->stack[f->lined].at);
    f->stack[f->lined++].line = f->line;
  }
  count_lines(f, to);
}

static void position_at(struct watcher_fast *f, size_t at, long *line, long *column) {
  advance(f, at);
  size_t from = f->chars_at;
  *line = f->line;
  *column = 1 + f->line_chars + (long)count_chars(f->buf + (from - f->abs), at - from);
}

void watcher_fast_position(struct watcher_fast *f, long *line, long *column) {
  position_at(f, f->callback_at, line, column);
}

/* Lets go of the bytes before pos, keeping the count of lines and of the current line's characters. */
static void compact(struct watcher_fast *f) {
  if (f->pos == 0) return;
  size_t at = f->abs + f->pos;
  advance(f, at);
  if (f->chars_at < at) {
    f->line_chars += (long)count_chars(f->buf + (f->chars_at - f->abs), at - f->chars_at);
    f->chars_at = at;
  }
  memmove(f->buf, f->buf + f->pos, f->len - f->pos);
  f->len -= f->pos;
  f->abs = at;
  if (f->ws_end) f->ws_end -= f->pos;
  f->pos = 0;
}

/* MARK: characters */

static inline int is_space(unsigned char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }
/* 1: may start a name (ASCII letters, `_`); 2: may be in one (and digits, `-`, `.`). */
static const unsigned char NAME[256] = {
    ['-'] = 2, ['.'] = 2, ['0'] = 2, ['1'] = 2, ['2'] = 2, ['3'] = 2, ['4'] = 2, ['5'] = 2, ['6'] = 2, ['7'] = 2,
    ['8'] = 2, ['9'] = 2, ['_'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1,
    ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1,
    ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['a'] = 1,
    ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1,
    ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
    ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};
static inline int name_start(unsigned char c) { return NAME[c] == 1; }
static inline int name_char(unsigned char c) { return NAME[c] != 0; }

/* Whether p[i] (not ASCII, p[i..n) complete) begins U+FFFE or U+FFFF, which XML does not allow. */
static inline int is_nonchar(const unsigned char *p, size_t i) {
  return p[i] == 0xEF && p[i + 1] == 0xBF && (p[i + 2] == 0xBE || p[i + 2] == 0xBF);
}

/* Hands text to `characters`, line ends written as libxml2 writes them (CR LF and CR as LF). */
static void deliver(struct watcher_fast *f, const unsigned char *p, size_t n) {
  if (n == 0 || !f->sax->characters) return;
  if (!memchr(p, '\r', n)) {
    f->sax->characters(f->ctx, p, (int)n);
    return;
  }
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] != '\r') continue;
    if (i > start) f->sax->characters(f->ctx, p + start, (int)(i - start));
    f->sax->characters(f->ctx, (const xmlChar *)"\n", 1);
    if (i + 1 < n && p[i + 1] == '\n') i++;
    start = i + 1;
  }
  if (start < n) f->sax->characters(f->ctx, p + start, (int)(n - start));
}

/* The reference at p[i] ('&'): its length, and the character it stands for in out (UTF-8, *out_n bytes).
 * 0: not complete in p[..n); -1: not one this reader takes (an error, or an entity only libxml2 knows). */
static int reference(const unsigned char *p, size_t i, size_t n, int html, unsigned char *out, size_t *out_n) {
  size_t j = i + 1;
  if (j >= n) return 0;
  uint32_t v = 0;
  if (p[j] == '#') {
    j++;
    int hex = j < n && p[j] == 'x';
    if (hex) j++;
    size_t digits = 0;
    for (; j < n && p[j] != ';'; j++, digits++) {
      unsigned char c = p[j];
      int d = c >= '0' && c <= '9' ? c - '0'
              : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
              : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                              : -1;
      if (d < 0 || digits > 8) return -1;
      v = v * (hex ? 16 : 10) + (uint32_t)d;
    }
    if (j >= n) return j - i > 12 ? -1 : 0;
    if (digits == 0) return -1;
    int valid = v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD) ||
                (v >= 0x10000 && v <= 0x10FFFF);
    if (!valid) return -1;
  } else {
    size_t k = j;
    while (k < n && k - j < 32 && NAME[p[k]] && p[k] != '.' && p[k] != '-') k++;
    if (k >= n) return k - j >= 32 ? -1 : 0;
    if (p[k] != ';' || k == j) return -1;
    size_t len = k - j;
    const char *name = (const char *)p + j;
    if (len == 2 && !memcmp(name, "lt", 2)) v = '<';
    else if (len == 2 && !memcmp(name, "gt", 2)) v = '>';
    else if (len == 3 && !memcmp(name, "amp", 3)) v = '&';
    else if (len == 4 && !memcmp(name, "quot", 4)) v = '"';
    else if (len == 4 && !memcmp(name, "apos", 4)) v = '\'';
    else if (html) {
      /* In text, an HTML entity is what watcher's getEntity makes of it: a predefined entity whose content
       * libxml2 hands over whole. (In an attribute value libxml2 keeps only its first byte: left to it.) */
      char z[33];
      memcpy(z, name, len);
      z[len] = 0;
      const htmlEntityDesc *d = htmlEntityLookup((const xmlChar *)z);
      if (!d) return -1;
      v = d->value;
    } else {
      return -1;
    }
    j = k;
  }
  if (v < 0x80) {
    out[0] = (unsigned char)v;
    *out_n = 1;
  } else if (v < 0x800) {
    out[0] = (unsigned char)(0xC0 | (v >> 6));
    out[1] = (unsigned char)(0x80 | (v & 0x3F));
    *out_n = 2;
  } else if (v < 0x10000) {
    out[0] = (unsigned char)(0xE0 | (v >> 12));
    out[1] = (unsigned char)(0x80 | ((v >> 6) & 0x3F));
    out[2] = (unsigned char)(0x80 | (v & 0x3F));
    *out_n = 3;
  } else {
    out[0] = (unsigned char)(0xF0 | (v >> 18));
    out[1] = (unsigned char)(0x80 | ((v >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((v >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (v & 0x3F));
    *out_n = 4;
  }
  return (int)(j + 1 - i);
}

/* The first index at or after i in p[..n) that text cannot pass over: `<`, `&`, `]`, CR, 0xEF or a control
 * character other than tab and LF. */
static inline size_t text_stop(const unsigned char *p, size_t i, size_t n) {
#if defined(__SSE2__) && defined(__clang__)
  typedef unsigned char u16 __attribute__((vector_size(16)));
  typedef char v16 __attribute__((vector_size(16)));
  const u16 lt = (u16){0} + '<', amp = (u16){0} + '&', br = (u16){0} + ']', ef = (u16){0} + 0xEF,
            space = (u16){0} + 0x20, tab = (u16){0} + '\t', lf = (u16){0} + '\n';
  while (i + 16 <= n) {
    u16 v;
    memcpy(&v, p + i, 16);
    v16 hit = (v16)((v == lt) | (v == amp) | (v == br) | (v == ef) | ((v < space) & (v != tab) & (v != lf)));
    unsigned mask = (unsigned)__builtin_ia32_pmovmskb128(hit);
    if (mask) return i + (size_t)__builtin_ctz(mask);
    i += 16;
  }
#endif
  for (; i < n; i++) {
    unsigned char c = p[i];
    if (c == '<' || c == '&' || c == ']' || c == 0xEF || (c < 0x20 && c != '\t' && c != '\n')) break;
  }
  return i;
}

/* The first index at or after i in p[..n) that an attribute value quoted with `quote` cannot pass over:
 * the quote, `<`, `&`, 0xEF or a control character (tab, LF and CR included: they become spaces). */
static inline size_t value_stop(const unsigned char *p, size_t i, size_t n, unsigned char quote) {
#if defined(__SSE2__) && defined(__clang__)
  typedef unsigned char u16 __attribute__((vector_size(16)));
  typedef char v16 __attribute__((vector_size(16)));
  const u16 q = (u16){0} + quote, lt = (u16){0} + '<', amp = (u16){0} + '&', ef = (u16){0} + 0xEF,
            space = (u16){0} + 0x20;
  while (i + 16 <= n) {
    u16 v;
    memcpy(&v, p + i, 16);
    v16 hit = (v16)((v == q) | (v == lt) | (v == amp) | (v == ef) | (v < space));
    unsigned mask = (unsigned)__builtin_ia32_pmovmskb128(hit);
    if (mask) return i + (size_t)__builtin_ctz(mask);
    i += 16;
  }
#endif
  for (; i < n; i++) {
    unsigned char c = p[i];
    if (c == quote || c == '<' || c == '&' || c == 0xEF || c < 0x20) break;
  }
  return i;
}

/* Where the whitespace that ends p[from..to) begins. */
static inline size_t space_back(const unsigned char *p, size_t from, size_t to) {
  while (to > from && is_space(p[to - 1])) to--;
  return to;
}

/* MARK: tokens */

static int grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return 1;
  size_t c = *cap ? *cap * 2 : 16;
  while (c < need) c *= 2;
  void *g = realloc(*p, c * size);
  if (!g) return 0;
  *p = g;
  *cap = c;
  return 1;
}

/* Adds bytes to the decoded text being collected, as they are (a character reference's CR stays a CR);
 * 0 when memory ran out. */
static int collect(struct watcher_fast *f, const unsigned char *p, size_t n) {
  if (!grow((void **)&f->text, &f->text_cap, f->text_len + n, 1)) return 0;
  memcpy(f->text + f->text_len, p, n);
  f->text_len += n;
  return 1;
}

/* Adds text as written to what is collected, its line ends written as LF (see `deliver`). */
static int collect_written(struct watcher_fast *f, const unsigned char *p, size_t n) {
  if (!memchr(p, '\r', n)) return collect(f, p, n);
  if (!grow((void **)&f->text, &f->text_cap, f->text_len + n, 1)) return 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] == '\r' && i + 1 < n && p[i + 1] == '\n') continue;
    f->text[f->text_len++] = p[i] == '\r' ? '\n' : p[i];
  }
  return 1;
}

/* Hands over the text collected. */
static void flush(struct watcher_fast *f) {
  if (f->text_len && f->sax->characters) f->sax->characters(f->ctx, f->text, (int)f->text_len);
  f->text_len = 0;
}

/* Hands over the text collected and p[seg..end) after it. */
static void deliver_run(struct watcher_fast *f, const unsigned char *p, size_t seg, size_t end) {
  flush(f);
  deliver(f, p + seg, end - seg);
}

/* Text from pos: handed over up to its last non-space before whatever stops it. */
static int text(struct watcher_fast *f) {
  const unsigned char *p = f->buf;
  size_t n = f->len, i = f->pos, seg = f->pos;
  f->text_len = 0;
  for (;;) {
    i = text_stop(p, i, n);
    size_t keep = space_back(p, seg, i);
    int r = OK;
    if (i >= n) {
      /* Whitespace held back is bounded like a token: a megabyte of it is left to libxml2. */
      r = f->last || n - keep > FAST_MAX_TOKEN ? BAIL : NEED;
    } else if (p[i] == '<') {
      f->ws_end = i;
    } else if (p[i] == '&') {
      unsigned char out[4];
      size_t out_n = 0;
      int length = reference(p, i, n, 1, out, &out_n);
      if (length > 0) {
        /* Collected, and handed over whenever memory runs out or 64 KiB are waiting. */
        if (!collect_written(f, p + seg, i - seg)) {
          flush(f);
          deliver(f, p + seg, i - seg);
        }
        if (!collect(f, out, out_n)) {
          flush(f);
          if (f->sax->characters) f->sax->characters(f->ctx, out, (int)out_n);
        }
        if (f->text_len > 65536) flush(f);
        i += (size_t)length;
        seg = i;
        continue;
      }
      r = length == 0 && !f->last ? NEED : BAIL;
    } else if (p[i] == ']' || p[i] == 0xEF) {
      if (i + 2 >= n) {
        r = f->last ? BAIL : NEED;
      } else if ((p[i] == ']' && p[i + 1] == ']' && p[i + 2] == '>') || (p[i] == 0xEF && is_nonchar(p, i))) {
        r = BAIL;
      } else {
        i++;
        continue;
      }
    } else if (p[i] == '\r') {
      i++;
      continue;
    } else {
      r = BAIL;
    }
    /* The text ends here (or stops for now): what it holds up to its last non-space. */
    deliver_run(f, p, seg, keep);
    f->pos = keep;
    return r;
  }
}

/* The first index at or after i in p[..n) that cannot be in a name (ASCII letters, digits, `_`, `-`, `.`),
 * sixteen bytes at a time. */
static inline size_t name_stop(const unsigned char *p, size_t i, size_t n) {
#if defined(__SSE2__) && defined(__clang__)
  typedef unsigned char u16 __attribute__((vector_size(16)));
  typedef char v16 __attribute__((vector_size(16)));
  while (i + 16 <= n) {
    u16 v;
    memcpy(&v, p + i, 16);
    u16 lower = v | 0x20;
    v16 ok = (v16)(((lower >= 'a') & (lower <= 'z')) | ((v >= '0') & (v <= '9')) | (v == '_') | (v == '-') |
                   (v == '.'));
    unsigned mask = (unsigned)__builtin_ia32_pmovmskb128(ok) ^ 0xFFFFu;
    if (mask) return i + (size_t)__builtin_ctz(mask);
    i += 16;
  }
#endif
  while (i < n && name_char(p[i])) i++;
  return i;
}

/* A qualified name at p[i]: its end, and where its colon is (0: none). 0 when it is not one this reader
 * takes (only ASCII names; one colon, inside). */
static size_t qname(const unsigned char *p, size_t i, size_t n, size_t *colon) {
  *colon = 0;
  if (i >= n || !name_start(p[i])) return 0;
  size_t j = name_stop(p, i + 1, n);
  if (j + 1 < n && p[j] == ':' && name_start(p[j + 1])) {
    *colon = j;
    j = name_stop(p, j + 2, n);
  }
  if (j >= n || (p[j] == ':' && j + 1 >= n)) return 0;
  if (j - i > 1000) return 0;
  return j;
}

/* Whether a namespace URI is one libxml2 takes without a word: absolute, plain ASCII. */
static int plain_uri(const unsigned char *p, size_t n) {
  if (n == 0 || !((p[0] | 0x20) >= 'a' && (p[0] | 0x20) <= 'z')) return 0;
  size_t i = 1;
  while (i < n && (name_char(p[i]) || p[i] == '+')) i++;
  if (i >= n || p[i] != ':') return 0;
  for (i++; i < n; i++) {
    unsigned char c = p[i];
    if (c <= 0x20 || c >= 0x7F || c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' ||
        c == '{' || c == '|' || c == '}' || c == '&' || c == '\'')
      return 0;
    if (c == '%' && !(i + 2 < n && isxdigit(p[i + 1]) && isxdigit(p[i + 2]))) return 0;
  }
  return 1;
}

static const xmlChar *lookup(struct watcher_fast *f, const xmlChar *prefix, int *found) {
  for (size_t k = f->nbindings; k > 0; k--) {
    if (f->bindings[k - 1].prefix == prefix) {
      *found = 1;
      return f->bindings[k - 1].uri;
    }
  }
  if (prefix == f->xml_prefix) {
    *found = 1;
    return f->xml_uri;
  }
  *found = prefix == NULL;
  return NULL;
}

struct attr {
  size_t name, name_end, colon, value, value_end;
  int normalized; /* the value is in scratch, at value..value_end */
};

/* The start tag at pos (`<` and a name start). */
static int start_tag(struct watcher_fast *f) {
  const unsigned char *p = f->buf;
  size_t n = f->len, lt = f->ws_end ? f->ws_end : f->pos;
  if (f->state == 2) return BAIL;
  size_t colon;
  size_t i = qname(p, lt + 1, n, &colon);
  if (!i) return n - lt > FAST_MAX_TOKEN || f->last ? BAIL : (lt + 1 + 1000 < n ? BAIL : NEED);
  size_t name_end = i, name_colon = colon;
  struct attr attrs[FAST_MAX_ATTRS];
  int count = 0;
  size_t scratch_used = 0;
  int empty = 0;
  for (;;) {
    size_t s = i;
    while (i < n && is_space(p[i])) i++;
    if (i >= n) goto incomplete;
    if (p[i] == '>') break;
    if (p[i] == '/') {
      if (i + 1 >= n) goto incomplete;
      if (p[i + 1] != '>') return BAIL;
      empty = 1;
      break;
    }
    if (i == s || count == FAST_MAX_ATTRS) return BAIL;
    struct attr *a = &attrs[count++];
    a->name = i;
    a->name_end = qname(p, i, n, &a->colon);
    if (!a->name_end) return n - lt > FAST_MAX_TOKEN || f->last || i + 1000 < n ? BAIL : NEED;
    i = a->name_end;
    while (i < n && is_space(p[i])) i++;
    if (i >= n) goto incomplete;
    if (p[i] != '=') return BAIL;
    i++;
    while (i < n && is_space(p[i])) i++;
    if (i >= n) goto incomplete;
    unsigned char quote = p[i];
    if (quote != '"' && quote != '\'') return BAIL;
    size_t v = ++i;
    size_t end = v, k = v;
    int rewrite = 0;
    /* The value up to its quote, every character that needs a look looked at. */
    for (;; k++) {
      k = value_stop(p, k, n, quote);
      if (k >= n) goto incomplete;
      unsigned char c = p[k];
      if (c == quote) {
        end = k;
        break;
      }
      if (c == '\t' || c == '\n' || c == '\r') {
        rewrite = 1;
      } else if (c == '&') {
        unsigned char out[4];
        size_t out_n;
        int length = reference(p, k, n, 0, out, &out_n);
        if (length == 0) goto incomplete;
        if (length < 0) return BAIL;
        k += (size_t)length - 1;
        rewrite = 1;
      } else if (c == 0xEF) {
        if (k + 2 >= n) goto incomplete;
        if (is_nonchar(p, k)) return BAIL;
      } else {
        return BAIL;
      }
    }
    a->value = v;
    a->value_end = end;
    a->normalized = 0;
    if (rewrite) {
      /* As libxml2 hands it over: each tab, LF, CR or CR LF a space; references resolved, but for `&`,
       * which is written `&#38;`. */
      if (!grow((void **)&f->scratch, &f->scratch_cap, scratch_used + 5 * (end - v), 1)) return BAIL;
      size_t w = scratch_used;
      for (size_t k = v; k < end; k++) {
        unsigned char c = p[k];
        if (c == '&') {
          unsigned char out[4];
          size_t out_n = 0;
          int r = reference(p, k, end, 0, out, &out_n);
          if (out_n == 1 && out[0] == '&') {
            memcpy(f->scratch + w, "&#38;", 5);
            w += 5;
          } else {
            memcpy(f->scratch + w, out, out_n);
            w += out_n;
          }
          k += (size_t)r - 1;
          continue;
        }
        if (c == '\r' && k + 1 < end && p[k + 1] == '\n') k++;
        f->scratch[w++] = is_space(c) ? ' ' : c;
      }
      a->value = scratch_used;
      a->value_end = w;
      a->normalized = 1;
      scratch_used = w;
    }
    i = end + 1;
  }
  size_t close_at = i; /* the `>` or the `/` of `/>` */
  /* Namespaces declared here, then the element's and its attributes' names resolved. */
  size_t bindings_before = f->nbindings;
  const xmlChar *values[FAST_MAX_ATTRS][3]; /* local, prefix, uri */
  for (int k = 0; k < count; k++) {
    struct attr *a = &attrs[k];
    values[k][0] = NULL;
    size_t len = a->name_end - a->name;
    int is_default = len == 5 && !memcmp(p + a->name, "xmlns", 5);
    int is_prefixed = a->colon && a->colon - a->name == 5 && !memcmp(p + a->name, "xmlns", 5);
    if (!is_default && !is_prefixed) continue;
    const unsigned char *value = a->normalized ? f->scratch + a->value : p + a->value;
    size_t value_n = a->value_end - a->value;
    const xmlChar *prefix = NULL;
    if (is_prefixed) {
      if (value_n == 0) goto bail_bindings;
      prefix = intern(f, p + a->colon + 1, a->name_end - a->colon - 1);
      if (!prefix || prefix == f->xml_prefix || prefix == f->xmlns_name) goto bail_bindings;
    }
    if (value_n && !plain_uri(value, value_n)) goto bail_bindings;
    const xmlChar *uri = value_n ? intern(f, value, value_n) : NULL;
    if (value_n && !uri) goto bail_bindings;
    if (uri == f->xml_uri) goto bail_bindings;
    for (size_t b = bindings_before; b < f->nbindings; b++)
      if (f->bindings[b].prefix == prefix) goto bail_bindings;
    if (!grow((void **)&f->bindings, &f->bindings_cap, f->nbindings + 1, sizeof *f->bindings)) goto bail_bindings;
    f->bindings[f->nbindings++] = (struct binding){prefix, uri};
    values[k][0] = f->xmlns_name; /* marks a declaration */
  }
  {
    struct name_entry *qe = intern_qname(f, p + lt + 1, name_end - lt - 1, name_colon ? name_colon - lt - 1 : 0);
    if (!qe) goto bail_bindings;
    const xmlChar *qn = qe->s, *local = qe->local, *prefix = qe->prefix;
    if (prefix == f->xmlns_name) goto bail_bindings;
    int found;
    const xmlChar *uri = lookup(f, prefix, &found);
    if (!found) goto bail_bindings;
    const xmlChar *list[FAST_MAX_ATTRS * 5];
    int listed = 0;
    for (int k = 0; k < count; k++) {
      struct attr *a = &attrs[k];
      if (values[k][0] == f->xmlns_name) continue;
      struct name_entry *ae = intern_qname(f, p + a->name, a->name_end - a->name, a->colon ? a->colon - a->name : 0);
      if (!ae || ae->prefix == f->xmlns_name) goto bail_bindings;
      const xmlChar *aprefix = ae->prefix, *alocal = ae->local;
      int afound;
      const xmlChar *auri = aprefix ? lookup(f, aprefix, &afound) : NULL;
      if (aprefix && (!afound || !auri)) goto bail_bindings;
      for (int m = 0; m < listed; m++)
        if (list[m * 5] == alocal && (list[m * 5 + 2] == auri || list[m * 5 + 1] == aprefix)) goto bail_bindings;
      const unsigned char *base = a->normalized ? f->scratch : p;
      list[listed * 5] = alocal;
      list[listed * 5 + 1] = aprefix;
      list[listed * 5 + 2] = auri;
      list[listed * 5 + 3] = base + a->value;
      list[listed * 5 + 4] = base + a->value_end;
      listed++;
    }
    /* Two attributes of one name (prefix and all) are an error too. */
    for (int k = 0; k < count; k++)
      for (int m = k + 1; m < count; m++)
        if (attrs[k].name_end - attrs[k].name == attrs[m].name_end - attrs[m].name &&
            !memcmp(p + attrs[k].name, p + attrs[m].name, attrs[k].name_end - attrs[k].name))
          goto bail_bindings;
    if (!grow((void **)&f->stack, &f->stack_cap, f->depth + 1, sizeof *f->stack)) goto bail_bindings;
    /* Valid: the whitespace before it, then the element. */
    if (f->ws_end) {
      deliver(f, p + f->pos, lt - f->pos);
      f->ws_end = 0;
      if (*f->stop) return STOPPED;
    }
    f->stack[f->depth++] = (struct element){local, prefix, uri, qn, name_end - lt - 1,
                                            (int)(f->nbindings - bindings_before), f->abs + lt, 0};
    f->state = 1;
    f->pos = close_at;
    f->callback_at = f->abs + close_at;
    if (f->sax->startElementNs)
      f->sax->startElementNs(f->ctx, local, prefix, uri, 0, NULL, listed, 0, list);
    f->pos = close_at + (empty ? 2 : 1);
    if (*f->stop) return STOPPED;
    if (empty) {
      f->depth--;
      if (f->lined > f->depth) f->lined = f->depth;
      f->nbindings = bindings_before;
      if (f->depth == 0) f->state = 2;
      f->callback_at = f->abs + f->pos;
      if (f->sax->endElementNs) f->sax->endElementNs(f->ctx, local, prefix, uri);
      if (*f->stop) return STOPPED;
    }
    return OK;
  }
bail_bindings:
  f->nbindings = bindings_before;
  return BAIL;
incomplete:
  return n - lt > FAST_MAX_TOKEN || f->last ? BAIL : NEED;
}

static int end_tag(struct watcher_fast *f) {
  const unsigned char *p = f->buf;
  size_t n = f->len, lt = f->ws_end ? f->ws_end : f->pos;
  if (f->depth == 0) return BAIL;
  struct element *e = &f->stack[f->depth - 1];
  size_t i = lt + 2;
  if (n - i < e->qlen + 1) return f->last ? BAIL : NEED;
  if (memcmp(p + i, e->qname, e->qlen) != 0) return BAIL;
  i += e->qlen;
  while (i < n && is_space(p[i])) i++;
  if (i >= n) return n - lt > FAST_MAX_TOKEN || f->last ? BAIL : NEED;
  if (p[i] != '>') return BAIL;
  if (f->ws_end) {
    deliver(f, p + f->pos, lt - f->pos);
    f->ws_end = 0;
    if (*f->stop) return STOPPED;
  }
  f->depth--;
  if (f->lined > f->depth) f->lined = f->depth;
  f->nbindings -= (size_t)e->bindings;
  if (f->depth == 0) f->state = 2;
  f->pos = i + 1;
  f->callback_at = f->abs + f->pos;
  if (f->sax->endElementNs) f->sax->endElementNs(f->ctx, e->local, e->prefix, e->uri);
  return *f->stop ? STOPPED : OK;
}

/* Whether p[from..to) holds only characters XML allows (valid UTF-8 is given). */
static int plain_chars(const unsigned char *p, size_t from, size_t to) {
  for (size_t k = from; k < to; k++) {
    unsigned char c = p[k];
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return 0;
    if (c == 0xEF && k + 2 < to && is_nonchar(p, k)) return 0;
  }
  return 1;
}

/* Finds `end` (length m) at or after i; its index or n. */
static size_t find(const unsigned char *p, size_t i, size_t n, const char *end, size_t m) {
  while (i + m <= n) {
    const unsigned char *hit = memchr(p + i, end[0], n - i - m + 1);
    if (!hit) return n;
    size_t k = (size_t)(hit - p);
    if (!memcmp(hit, end, m)) return k;
    i = k + 1;
  }
  return n;
}

/* Comments, CDATA sections and processing instructions (and the XML declaration, at the very start). */
static int markup(struct watcher_fast *f) {
  const unsigned char *p = f->buf;
  size_t n = f->len, lt = f->ws_end ? f->ws_end : f->pos;
  if (n - lt < 9 && !f->last) return NEED;
  size_t body, end, after;
  int cdata = 0;
  if (n - lt >= 4 && !memcmp(p + lt, "<!--", 4)) {
    body = lt + 4;
    end = find(p, body, n, "--", 2);
    if (end >= n) goto incomplete;
    if (end + 2 >= n) goto incomplete;
    if (p[end + 2] != '>') return BAIL;
    after = end + 3;
  } else if (n - lt >= 9 && !memcmp(p + lt, "<![CDATA[", 9)) {
    if (f->state != 1) return BAIL;
    cdata = 1;
    body = lt + 9;
    end = find(p, body, n, "]]>", 3);
    if (end >= n) goto incomplete;
    after = end + 3;
  } else if (p[lt + 1] == '?') {
    size_t colon;
    size_t target = qname(p, lt + 2, n, &colon);
    if (!target) return f->last || n - lt > 1000 ? BAIL : NEED;
    if (colon) return BAIL;
    size_t tn = target - lt - 2;
    int is_xml = tn == 3 && (p[lt + 2] | 0x20) == 'x' && (p[lt + 3] | 0x20) == 'm' && (p[lt + 4] | 0x20) == 'l';
    end = find(p, target, n, "?>", 2);
    if (end >= n) goto incomplete;
    if (is_xml) {
      /* The XML declaration, only where it may be and only as libxml2 reads it without a word. */
      if (f->abs + lt != 0 || memcmp(p + lt + 2, "xml", 3)) return BAIL;
      const unsigned char *d = p + target;
      size_t dn = end - target, k = 0;
      int seen = 0;
      const char *names[3] = {"version", "encoding", "standalone"};
      for (int w = 0; w < 3; w++) {
        size_t s = k;
        while (k < dn && is_space(d[k])) k++;
        size_t wl = strlen(names[w]);
        if (k == s || dn - k < wl || memcmp(d + k, names[w], wl)) {
          if (w == 0) return BAIL;
          k = s;
          continue;
        }
        k += wl;
        while (k < dn && is_space(d[k])) k++;
        if (k >= dn || d[k] != '=') return BAIL;
        k++;
        while (k < dn && is_space(d[k])) k++;
        if (k >= dn || (d[k] != '"' && d[k] != '\'')) return BAIL;
        unsigned char q = d[k++];
        size_t v = k;
        while (k < dn && d[k] != q) k++;
        if (k >= dn) return BAIL;
        size_t vn = k - v;
        k++;
        if (w == 0 && !(vn == 3 && !memcmp(d + v, "1.0", 3))) return BAIL;
        if (w == 1) {
          if (vn == 0 || !((d[v] | 0x20) >= 'a' && (d[v] | 0x20) <= 'z')) return BAIL;
          for (size_t c = v; c < v + vn; c++)
            if (!name_char(d[c])) return BAIL;
        }
        if (w == 2 && !((vn == 3 && !memcmp(d + v, "yes", 3)) || (vn == 2 && !memcmp(d + v, "no", 2)))) return BAIL;
        seen++;
      }
      while (k < dn && is_space(d[k])) k++;
      if (k != dn || !seen) return BAIL;
    } else {
      if (target < end && !is_space(p[target])) return BAIL;
      if (!plain_chars(p, target, end)) return BAIL;
    }
    if (f->ws_end) {
      deliver(f, p + f->pos, lt - f->pos);
      f->ws_end = 0;
    }
    f->pos = end + 2;
    return *f->stop ? STOPPED : OK;
  } else {
    return BAIL; /* a DOCTYPE, or anything else after `<!` */
  }
  if (!plain_chars(p, body, end)) return BAIL;
  if (!cdata && end > body && p[end - 1] == '-') return BAIL;
  if (f->ws_end) {
    deliver(f, p + f->pos, lt - f->pos);
    f->ws_end = 0;
    if (*f->stop) return STOPPED;
  }
  if (cdata) {
    f->callback_at = f->abs + after;
    /* libxml2 hands a CDATA section to cdataBlock (here the same callback), line ends as in text. */
    deliver(f, p + body, end - body);
  }
  f->pos = after;
  return *f->stop ? STOPPED : OK;
incomplete:
  return n - lt > FAST_MAX_TOKEN || f->last ? BAIL : NEED;
}

/* One step at pos: text (skipped whitespace outside the root), or the tag after it. */
static int step(struct watcher_fast *f) {
  const unsigned char *p = f->buf;
  size_t n = f->len;
  size_t at = f->ws_end ? f->ws_end : f->pos;
  if (at >= n) return f->last ? (f->state == 2 && !f->ws_end ? STOPPED : BAIL) : NEED;
  if (p[at] != '<') {
    if (f->state == 1) return text(f);
    size_t i = at;
    while (i < n && is_space(p[i])) i++;
    if (i >= n) return f->last ? (f->state == 2 ? STOPPED : BAIL) : NEED;
    if (p[i] != '<') return BAIL;
    /* Whitespace outside the root is not text: libxml2 reports none of it. */
    f->pos = i;
    return OK;
  }
  if (at + 1 >= n) return f->last ? BAIL : NEED;
  unsigned char c = p[at + 1];
  if (c == '/') return end_tag(f);
  if (c == '!' || c == '?') return markup(f);
  if (name_start(c)) return start_tag(f);
  return BAIL;
}

int watcher_fast_feed(struct watcher_fast *f, const unsigned char *bytes, size_t n, int last) {
  if (f->failed) return WATCHER_FAST_HANDOFF;
  compact(f);
  if (!grow((void **)&f->buf, &f->cap, f->len + n + 1, 1)) {
    f->failed = 1;
    return WATCHER_FAST_HANDOFF;
  }
  if (n) memcpy(f->buf + f->len, bytes, n);
  f->len += n;
  f->last = last;
  for (;;) {
    int r = step(f);
    if (r == OK) continue;
    if (r == NEED) return WATCHER_FAST_MORE;
    if (r == STOPPED) return WATCHER_FAST_DONE;
    /* BAIL: whitespace held back is the rest's. */
    f->ws_end = 0;
    f->failed = 1;
    return WATCHER_FAST_HANDOFF;
  }
}

/* MARK: hand-off */

struct out {
  unsigned char *p;
  size_t n, cap;
  int ok;
};

static void put(struct out *o, const void *bytes, size_t n) {
  if (!o->ok) return;
  if (!grow((void **)&o->p, &o->cap, o->n + n + 1, 1)) {
    o->ok = 0;
    return;
  }
  memcpy(o->p + o->n, bytes, n);
  o->n += n;
}

static void repeat(struct out *o, char c, long count) {
  for (long k = 0; k < count; k++) put(o, &c, 1);
}

unsigned char *watcher_fast_handoff(struct watcher_fast *f, size_t *length) {
  struct out o = {NULL, 0, 0, 1};
  long line, column;
  position_at(f, f->abs + f->pos, &line, &column);
  long at_line = 1, at_column = 1;
  f->prelude_starts = 0;
  f->prelude_ends = 0;
  if (f->depth == 0) {
    if (f->state == 2) {
      /* After the root: an empty root stands for it. */
      put(&o, "<_/>", 4);
      at_column = 5;
      f->prelude_starts = 1;
      f->prelude_ends = 1;
    }
  } else {
    /* Each element's `<` on its line (the line breaks between them are text the caller does not collect:
     * `watcher_capture.muted`), the last one's `>` just before the rest's line and column. */
    size_t b = 0;
    for (size_t k = 0; k < f->depth; k++) {
      struct element *e = &f->stack[k];
      if (e->line > at_line) {
        repeat(&o, '\n', e->line - at_line);
        at_line = e->line;
        at_column = 1;
      }
      put(&o, "<", 1);
      put(&o, e->qname, e->qlen);
      at_column += 1 + (long)e->qlen;
      for (int d = 0; d < e->bindings; d++, b++) {
        struct binding *bd = &f->bindings[b];
        size_t before = o.n;
        put(&o, " xmlns", 6);
        if (bd->prefix) {
          put(&o, ":", 1);
          put(&o, bd->prefix, strlen((const char *)bd->prefix));
        }
        put(&o, "=\"", 2);
        if (bd->uri) put(&o, bd->uri, strlen((const char *)bd->uri));
        put(&o, "\"", 1);
        at_column += (long)(o.n - before);
      }
      if (k + 1 == f->depth) {
        if (line > at_line) {
          repeat(&o, '\n', line - at_line);
          at_line = line;
          at_column = 1;
        }
        if (column - 1 > at_column) {
          repeat(&o, ' ', column - 1 - at_column);
          at_column = column - 1;
        }
      }
      put(&o, ">", 1);
      at_column++;
    }
    f->prelude_starts = (int)f->depth;
  }
  if (line > at_line) {
    repeat(&o, '\n', line - at_line);
    at_line = line;
    at_column = 1;
  }
  if (column > at_column) repeat(&o, ' ', column - at_column);
  put(&o, f->buf + f->pos, f->len - f->pos);
  if (!o.ok) {
    free(o.p);
    *length = 0;
    return NULL;
  }
  *length = o.n;
  return o.p;
}

int watcher_fast_prelude_starts(const struct watcher_fast *f) { return f->prelude_starts; }
int watcher_fast_prelude_ends(const struct watcher_fast *f) { return f->prelude_ends; }
