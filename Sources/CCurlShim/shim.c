// Implementation of the typed wrappers declared in include/CCurlShim.h (see there for why).
#include "CCurlShim.h"

// fleet_curl_global_init is in alloc.c: it gives libcurl the engine's allocator.

CURLcode fleet_curl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode fleet_curl_easy_setopt_ptr(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode fleet_curl_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode fleet_curl_easy_setopt_write_function(CURL *easy, CURLoption option, curl_write_callback fn) {
    return curl_easy_setopt(easy, option, fn);
}

CURLcode fleet_curl_easy_setopt_read_function(CURL *easy, curl_read_callback fn) {
    return curl_easy_setopt(easy, CURLOPT_READFUNCTION, fn);
}

CURLcode fleet_curl_easy_setopt_seek_function(CURL *easy, curl_seek_callback fn) {
    return curl_easy_setopt(easy, CURLOPT_SEEKFUNCTION, fn);
}

CURLcode fleet_curl_easy_setopt_closesocket_function(CURL *easy, curl_closesocket_callback fn) {
    return curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, fn);
}

CURLcode fleet_curl_easy_setopt_opensocket_function(CURL *easy, curl_opensocket_callback fn) {
    return curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, fn);
}

CURLcode fleet_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *out) {
    return curl_easy_getinfo(easy, info, out);
}

CURLcode fleet_curl_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *out) {
    return curl_easy_getinfo(easy, info, out);
}

CURLcode fleet_curl_easy_getinfo_ptr(CURL *easy, CURLINFO info, void **out) {
    return curl_easy_getinfo(easy, info, out);
}

CURLMcode fleet_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

CURLMcode fleet_curl_multi_setopt_ptr(CURLM *multi, CURLMoption option, void *value) {
    return curl_multi_setopt(multi, option, value);
}

CURLMcode fleet_curl_multi_setopt_socket_function(CURLM *multi, curl_socket_callback fn) {
    return curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, fn);
}

CURLMcode fleet_curl_multi_setopt_timer_function(CURLM *multi, curl_multi_timer_callback fn) {
    return curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, fn);
}

size_t fleet_curl_readfunc_abort(void) { return CURL_READFUNC_ABORT; }

size_t fleet_curl_error_size(void) { return CURL_ERROR_SIZE; }
