// SPDX-License-Identifier: MIT
// The libcurl functions watcher calls, resolved from libcurl.so.4 when the first one is called. The binary
// does not link libcurl: its thirty dependencies cost every command start-up time, and most commands
// never fetch (docs/benchmarks.md, "Measurements behind the code").
#include "CCurl.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

typedef CURLcode (*setopt_fn)(CURL *, CURLoption, ...);
typedef CURLcode (*getinfo_fn)(CURL *, CURLINFO, ...);

/* Every function used: X(return type, name, parameters). */
#define FUNCTIONS(X)                                                                                         \
  X(CURLcode, curl_global_init, (long))                                                                      \
  X(CURL *, curl_easy_init, (void))                                                                          \
  X(void, curl_easy_cleanup, (CURL *))                                                                       \
  X(CURLcode, curl_easy_perform, (CURL *))                                                                   \
  X(const char *, curl_easy_strerror, (CURLcode))                                                            \
  X(struct curl_slist *, curl_slist_append, (struct curl_slist *, const char *))                            \
  X(void, curl_slist_free_all, (struct curl_slist *))                                                        \
  X(CURLM *, curl_multi_init, (void))                                                                        \
  X(CURLMcode, curl_multi_add_handle, (CURLM *, CURL *))                                                     \
  X(CURLMcode, curl_multi_remove_handle, (CURLM *, CURL *))                                                  \
  X(CURLMcode, curl_multi_perform, (CURLM *, int *))                                                         \
  X(CURLMcode, curl_multi_poll, (CURLM *, struct curl_waitfd[], unsigned int, int, int *))                   \
  X(CURLMsg *, curl_multi_info_read, (CURLM *, int *))                                                       \
  X(CURLMcode, curl_multi_cleanup, (CURLM *))

#define POINTER(type, name, params) static type(*real_##name) params;
FUNCTIONS(POINTER)
static setopt_fn real_setopt;
static getinfo_fn real_getinfo;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
  void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  const char *missing = NULL;
#define RESOLVE(type, name, params) \
  if (library && !(real_##name = (type(*) params)dlsym(library, #name))) missing = #name;
  FUNCTIONS(RESOLVE)
  if (library && !(real_setopt = (setopt_fn)dlsym(library, "curl_easy_setopt"))) missing = "curl_easy_setopt";
  if (library && !(real_getinfo = (getinfo_fn)dlsym(library, "curl_easy_getinfo"))) missing = "curl_easy_getinfo";
  if (!library || missing) {
    /* Without libcurl nothing can be fetched: say so and stop (69, EX_UNAVAILABLE), as the dynamic
       loader would have at start-up. */
    const char *why = library ? missing : dlerror();
    dprintf(2, "watcher: cannot use libcurl.so.4 (%s): install libcurl4\n", why ? why : "not found");
    _exit(69);
  }
}

/* The stubs: each loads libcurl (once), then calls the real function. */
#define STUB1(name, params, args) \
  name params {                   \
    pthread_once(&once, load);    \
    return real_##name args;      \
  }

CURLcode STUB1(curl_global_init, (long flags), (flags))
CURL *STUB1(curl_easy_init, (void), ())
void STUB1(curl_easy_cleanup, (CURL * h), (h))
CURLcode STUB1(curl_easy_perform, (CURL * h), (h))
const char *STUB1(curl_easy_strerror, (CURLcode code), (code))
struct curl_slist *STUB1(curl_slist_append, (struct curl_slist * list, const char *text), (list, text))
void STUB1(curl_slist_free_all, (struct curl_slist * list), (list))
CURLM *STUB1(curl_multi_init, (void), ())
CURLMcode STUB1(curl_multi_add_handle, (CURLM * m, CURL *h), (m, h))
CURLMcode STUB1(curl_multi_remove_handle, (CURLM * m, CURL *h), (m, h))
CURLMcode STUB1(curl_multi_perform, (CURLM * m, int *running), (m, running))
CURLMcode STUB1(curl_multi_poll, (CURLM * m, struct curl_waitfd extra[], unsigned int n, int ms, int *numfds),
                (m, extra, n, ms, numfds))
CURLMsg *STUB1(curl_multi_info_read, (CURLM * m, int *left), (m, left))
CURLMcode STUB1(curl_multi_cleanup, (CURLM * m), (m))

static setopt_fn setopt(void) {
  pthread_once(&once, load);
  return real_setopt;
}

static getinfo_fn getinfo(void) {
  pthread_once(&once, load);
  return real_getinfo;
}

CURLcode ccurl_setopt_long(CURL *h, CURLoption o, long v) { return setopt()(h, o, v); }
CURLcode ccurl_setopt_str(CURL *h, CURLoption o, const char *v) { return setopt()(h, o, v); }
CURLcode ccurl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return setopt()(h, o, v); }
CURLcode ccurl_setopt_ptr(CURL *h, CURLoption o, void *v) { return setopt()(h, o, v); }
CURLcode ccurl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return setopt()(h, o, v); }
CURLcode ccurl_setopt_writefn(CURL *h, CURLoption o, size_t (*v)(char *, size_t, size_t, void *)) {
  return setopt()(h, o, v);
}
CURLcode ccurl_setopt_prereqfn(CURL *h, CURLoption o, int (*v)(void *, char *, char *, int, int)) {
  return setopt()(h, o, v);
}
CURLcode ccurl_setopt_xferinfofn(CURL *h, CURLoption o,
                                 int (*v)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) {
  return setopt()(h, o, v);
}
CURLcode ccurl_getinfo_long(CURL *h, CURLINFO i, long *v) { return getinfo()(h, i, v); }
CURLcode ccurl_getinfo_str(CURL *h, CURLINFO i, char **v) { return getinfo()(h, i, v); }
