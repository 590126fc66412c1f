// SPDX-License-Identifier: MIT
// libcurl, loaded when first used (curl.c): most commands never fetch, and linking it at start-up loads
// some thirty shared libraries for every run (docs/benchmarks.md, "Size and start-up").
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call:
   typed wrappers, one per argument kind (docs/design.md, "Platform notes"). */
CURLcode ccurl_setopt_long(CURL *h, CURLoption o, long v);
CURLcode ccurl_setopt_str(CURL *h, CURLoption o, const char *v);
CURLcode ccurl_setopt_off(CURL *h, CURLoption o, curl_off_t v);
CURLcode ccurl_setopt_ptr(CURL *h, CURLoption o, void *v);
CURLcode ccurl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v);
CURLcode ccurl_setopt_writefn(CURL *h, CURLoption o, size_t (*v)(char *, size_t, size_t, void *));
CURLcode ccurl_setopt_prereqfn(CURL *h, CURLoption o, int (*v)(void *, char *, char *, int, int));
CURLcode ccurl_setopt_xferinfofn(CURL *h, CURLoption o, int (*v)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t));
CURLcode ccurl_getinfo_long(CURL *h, CURLINFO i, long *v);
CURLcode ccurl_getinfo_str(CURL *h, CURLINFO i, char **v);
