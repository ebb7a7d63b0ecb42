// fleet_reserve_thread_heap: see include/CCurlShim.h.
//
// Why: glibc gives every thread but the main one an arena whose heap is a 64 MiB reservation it
// makes usable a little at a time: each time the heap grows past its high-water mark, by exactly
// what the allocation lacks, rounded to a page, with one mprotect(). An I/O thread whose users'
// state keeps growing (logs, checkers, histograms) therefore made one mprotect a page, each
// taking the process's mmap lock for writing against the other thread's page faults: 2,531 calls
// and 2.3 % of the process's CPU in a 200-user daily quest (bench/RESULTS.md, issue 18). Growing the
// heap once at the thread's start and freeing it again moves the high-water mark up in a few
// large steps; glibc returns the freed pages to the kernel (madvise) but keeps them usable, so
// resident memory is what it was, and later growth below the mark costs no system call.
#include "CCurlShim.h"
#include <stdlib.h>

void fleet_reserve_thread_heap(size_t bytes) {
    // Pieces under glibc's 128 KiB mmap threshold, so they come from the arena's heap.
    enum { piece = 112 << 10, most = 512 };
    void *held[most];
    size_t n = bytes / piece;
    if (n > most) n = most;
    size_t got = 0;
    while (got < n && (held[got] = malloc(piece)) != NULL) got++;
    // Oldest first: each piece joins the free ones before it, and only the last reaches the top
    // of the heap, which then shrinks back in one madvise instead of one a piece.
    for (size_t i = 0; i < got; i++) free(held[i]);
}
