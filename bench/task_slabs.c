// bench/task_slabs.c — an LD_PRELOAD recorder of the Swift task allocator (bench/task-slabs.sh).
//
// Interposes swift_task_alloc and swift_task_dealloc as the binary calls them (the runtime's own
// allocations, e.g. a cancellation handler's record, are not seen) and writes, for each of the
// first TASKS tasks to allocate, its sequence: "A size return-offset pointer" and "D pointer".
// The offset is the caller's address less its object's load address, for addr2line.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TASKS 8
static void *tasks[TASKS];
static FILE *logs[TASKS];
static int count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *(*real_alloc)(size_t);
static void (*real_dealloc)(void *);
static void *(*current)(void);

static void resolve(void) {
    if (real_alloc) return;
    real_alloc = dlsym(RTLD_NEXT, "swift_task_alloc");
    real_dealloc = dlsym(RTLD_NEXT, "swift_task_dealloc");
    current = dlsym(RTLD_NEXT, "swift_task_getCurrent");
}

// The log of the current task; a new one for the first TASKS tasks. Called with the lock held.
static FILE *log_of_current(int create) {
    void *t = current();
    for (int i = 0; i < count; i++)
        if (tasks[i] == t) return logs[i];
    if (!create || count == TASKS) return NULL;
    char path[512];
    snprintf(path, sizeof path, "%s/task.%d", getenv("TASK_SLABS_DIR") ? getenv("TASK_SLABS_DIR") : ".", count);
    logs[count] = fopen(path, "w");
    tasks[count] = t;
    return logs[count++];
}

void *swift_task_alloc(size_t size) {
    resolve();
    void *p = real_alloc(size);
    Dl_info info;
    void *ra = __builtin_return_address(0);
    uintptr_t off = dladdr(ra, &info) ? (uintptr_t)ra - (uintptr_t)info.dli_fbase : 0;
    pthread_mutex_lock(&lock);
    FILE *f = log_of_current(1);
    if (f) { fprintf(f, "A %zu 0x%lx %p\n", size, (unsigned long)off, p); fflush(f); }
    pthread_mutex_unlock(&lock);
    return p;
}

void swift_task_dealloc(void *p) {
    resolve();
    pthread_mutex_lock(&lock);
    FILE *f = log_of_current(0);
    if (f) { fprintf(f, "D %p\n", p); fflush(f); }
    pthread_mutex_unlock(&lock);
    real_dealloc(p);
}
