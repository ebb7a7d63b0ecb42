#ifndef FLEET_CCURLSHIM_H
#define FLEET_CCURLSHIM_H
// Typed, non-variadic entry points into libcurl for Swift.
//
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are C variadic functions, which Swift
// cannot call; each function here fixes one argument type so Swift can. Every symbol is prefixed
// `fleet_` so that it can never collide with libcurl's own names. Only FleetHTTP imports this.
#include <curl/curl.h>
// epoll and eventfd drive curl's socket interface (curl_multi_socket_action); Swift's Glibc module
// does not export these Linux headers, so they are made visible through this shim.
#include <sys/epoll.h>
#include <sys/eventfd.h>

/// curl_global_init_mem(CURL_GLOBAL_DEFAULT, …) with the allocator FLEET_CURL_ALLOC names
/// ("pool", the default, or "libc"); see alloc.c. The flag is a macro Swift does not import.
CURLcode fleet_curl_global_init(void);
/// The allocator libcurl was given: "pool" or "libc" ("libc" before init).
const char *fleet_curl_allocator(void);
/// The pool allocator itself (alloc.c), exported so the tests can exercise it directly.
void *fleet_pool_malloc(size_t n);
void fleet_pool_free(void *p);
void *fleet_pool_realloc(void *p, size_t n);
void *fleet_pool_calloc(size_t count, size_t size);
char *fleet_pool_strdup(const char *s);
/// Grows the calling thread's malloc arena by about `bytes` (at most 56 MiB) and frees it again,
/// so that the arena's later growth up to there needs no system call (heap.c says why).
void fleet_reserve_thread_heap(size_t bytes);

// MARK: curl_easy_setopt, one function per argument type.
/// Options taking a `long` (flags, sizes in bytes, timeouts in ms).
CURLcode fleet_curl_easy_setopt_long(CURL *easy, CURLoption option, long value);
/// Options taking a data pointer or a C string (URL, header list, user data, error buffer).
CURLcode fleet_curl_easy_setopt_ptr(CURL *easy, CURLoption option, void *value);
/// Options taking a `curl_off_t` (the `_LARGE` sizes, e.g. CURLOPT_INFILESIZE_LARGE).
CURLcode fleet_curl_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value);
/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION: a function pointer is not a data pointer in
/// C, so it gets its own typed setter instead of going through `_ptr`.
CURLcode fleet_curl_easy_setopt_write_function(CURL *easy, CURLoption option, curl_write_callback fn);
/// CURLOPT_READFUNCTION (uploads read straight from shared memory).
CURLcode fleet_curl_easy_setopt_read_function(CURL *easy, curl_read_callback fn);
CURLcode fleet_curl_easy_setopt_seek_function(CURL *easy, curl_seek_callback fn);
/// CURLOPT_OPENSOCKETFUNCTION and CURLOPT_CLOSESOCKETFUNCTION: the engine opens and closes
/// curl's connection sockets itself, so its epoll bookkeeping knows which sockets are
/// connections and when one is gone (FleetHTTP's EpollInterest).
CURLcode fleet_curl_easy_setopt_opensocket_function(CURL *easy, curl_opensocket_callback fn);
CURLcode fleet_curl_easy_setopt_closesocket_function(CURL *easy, curl_closesocket_callback fn);

// MARK: curl_easy_getinfo, one function per result type.
/// Infos answering a `long` (CURLINFO_RESPONSE_CODE).
CURLcode fleet_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *out);
/// Infos answering a `curl_off_t` (the `_T` timings in microseconds, sizes).
CURLcode fleet_curl_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *out);
/// Infos answering a pointer (CURLINFO_PRIVATE).
CURLcode fleet_curl_easy_getinfo_ptr(CURL *easy, CURLINFO info, void **out);

// MARK: curl_multi_setopt.
/// Multi options taking a `long` (CURLMOPT_MAXCONNECTS, CURLMOPT_MAX_HOST_CONNECTIONS, ...).
CURLMcode fleet_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
/// Multi options taking a data pointer (CURLMOPT_SOCKETDATA, CURLMOPT_TIMERDATA).
CURLMcode fleet_curl_multi_setopt_ptr(CURLM *multi, CURLMoption option, void *value);
/// CURLMOPT_SOCKETFUNCTION: curl tells us which sockets to watch for what.
CURLMcode fleet_curl_multi_setopt_socket_function(CURLM *multi, curl_socket_callback fn);
/// CURLMOPT_TIMERFUNCTION: curl tells us when it next needs a timeout call.
CURLMcode fleet_curl_multi_setopt_timer_function(CURLM *multi, curl_multi_timer_callback fn);

// MARK: Constants defined as macros that Swift cannot import.
/// CURL_READFUNC_ABORT: what a read callback returns to abort an upload.
size_t fleet_curl_readfunc_abort(void);
/// CURL_ERROR_SIZE: the size CURLOPT_ERRORBUFFER must have.
size_t fleet_curl_error_size(void);

#endif
