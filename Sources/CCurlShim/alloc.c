// The allocator libcurl gets from the engine (curl_global_init_mem), chosen once per process by
// FLEET_CURL_ALLOC: "pool" (the default: size-class free lists per thread, below) or "libc"
// (curl's own default, malloc/free). (A "mimalloc" variant loaded with dlopen was measured on
// 2026-12-01 — bench/RESULTS.md, engine levers — and removed: no symbol is looked up at run time.)
//
// Why: a profile of `fleet blast` put ~30 % of the engine's user time in malloc/free, mostly
// libcurl's short-lived per-transfer allocations (connection structs, header buffers, URL
// parts). Those are a few sizes allocated and freed again on the same I/O thread every request,
// so a per-thread stack of recently freed blocks of each size class answers nearly all of them
// without touching glibc's arenas or taking their locks.
//
// Every block carries a 16-byte header (keeps 16-byte alignment) naming its size class, so
// `free` and `realloc` need no lookup and a block freed on another thread simply joins that
// thread's list. Each list keeps at most `class_keep` blocks; the rest go back to libc, and a
// thread's lists are returned to libc when it exits, so the pool's idle memory stays bounded.
#define _GNU_SOURCE
#include "CCurlShim.h"
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HEADER 16
#define SMALL 15
#define CLASSES (SMALL + 28)
#define LARGE 0xffffffffu
// 32 B … 4 KiB in steps of about 1.5 ×, then 5 KiB … 32 KiB in steps of 1 KiB (curl's 16 KiB + 1
// receive buffer must not round up to 32 KiB: it lives as long as its pooled handle); larger
// blocks go straight to libc.
static const size_t small_size[SMALL] = {32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536,
                                         2048, 3072, 4096};
static const int small_keep[SMALL] = {512, 512, 512, 512, 512, 256, 256, 256, 256, 128, 128, 64,
                                      64, 64, 64};
static size_t class_size(int c) { return c < SMALL ? small_size[c] : 4096 + (size_t)(c - SMALL + 1) * 1024; }
static int class_keep(int c) { return c < SMALL ? small_keep[c] : 8; }

struct block { struct block *next; };
struct lists { struct block *head[CLASSES]; int count[CLASSES]; };

static __thread struct lists *tl;
static pthread_key_t tl_key;
static pthread_once_t tl_once = PTHREAD_ONCE_INIT;

static void lists_free(void *p) {
    struct lists *l = p;
    for (int c = 0; c < CLASSES; c++) {
        while (l->head[c]) { struct block *b = l->head[c]; l->head[c] = b->next; free((char *)b - HEADER); }
    }
    free(l);
    tl = NULL;  // this runs on the exiting thread: a later free there starts a fresh list
}
static void make_key(void) { pthread_key_create(&tl_key, lists_free); }

static struct lists *my_lists(void) {
    if (tl) return tl;
    pthread_once(&tl_once, make_key);
    tl = calloc(1, sizeof *tl);
    if (tl) pthread_setspecific(tl_key, tl);
    return tl;
}

static int class_of(size_t n) {
    if (n <= 32) return 0;
    if (n <= 4096) { for (int c = 1; c < SMALL; c++) if (n <= small_size[c]) return c; }
    if (n <= 32768) return SMALL + (int)((n - 4096 - 1) / 1024);
    return -1;
}

void *fleet_pool_malloc(size_t n) {
    int c = class_of(n);
    if (c < 0) {
        char *raw = malloc(n + HEADER);
        if (!raw) return NULL;
        *(uint32_t *)raw = LARGE;
        return raw + HEADER;
    }
    struct lists *l = my_lists();
    if (l && l->head[c]) {
        struct block *b = l->head[c];
        l->head[c] = b->next;
        l->count[c]--;
        return b;
    }
    char *raw = malloc(class_size(c) + HEADER);
    if (!raw) return NULL;
    *(uint32_t *)raw = (uint32_t)c;
    return raw + HEADER;
}

void fleet_pool_free(void *p) {
    if (!p) return;
    char *raw = (char *)p - HEADER;
    uint32_t c = *(uint32_t *)raw;
    if (c != LARGE) {
        struct lists *l = my_lists();
        if (l && l->count[c] < class_keep((int)c)) {
            struct block *b = p;
            b->next = l->head[c];
            l->head[c] = b;
            l->count[c]++;
            return;
        }
    }
    free(raw);
}

void *fleet_pool_realloc(void *p, size_t n) {
    if (!p) return fleet_pool_malloc(n);
    char *raw = (char *)p - HEADER;
    uint32_t c = *(uint32_t *)raw;
    if (c != LARGE) {
        if (n <= class_size((int)c)) return p;
        void *q = fleet_pool_malloc(n);
        if (!q) return NULL;
        memcpy(q, p, class_size((int)c));
        fleet_pool_free(p);
        return q;
    }
    // A large block stays large, even when it shrinks into a class's size.
    char *grown = realloc(raw, n + HEADER);
    return grown ? grown + HEADER : NULL;
}

void *fleet_pool_calloc(size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) return NULL;
    void *p = fleet_pool_malloc(count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

char *fleet_pool_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = fleet_pool_malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

static const char *chosen = "libc";

const char *fleet_curl_allocator(void) { return chosen; }

CURLcode fleet_curl_global_init(void) {
    const char *want = getenv("FLEET_CURL_ALLOC");
    if (want && strcmp(want, "libc") == 0) { chosen = "libc"; return curl_global_init(CURL_GLOBAL_DEFAULT); }
    chosen = "pool";
    return curl_global_init_mem(CURL_GLOBAL_DEFAULT, fleet_pool_malloc, fleet_pool_free, fleet_pool_realloc,
                                fleet_pool_strdup, fleet_pool_calloc);
}
