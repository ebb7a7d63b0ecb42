#ifndef FLEET_CSYSSHIM_H
#define FLEET_CSYSSHIM_H
// The Linux calls FleetHTTPServer needs that Swift's Glibc module does not export.
//
// `sys/epoll.h`, `sys/eventfd.h` and `accept4` are not in the Glibc module map. Here they are
// declared from the system headers themselves, so the constants are the kernel's and not typed
// by hand, and `struct epoll_event` (packed on x86-64, naturally aligned elsewhere) never reaches
// Swift: events cross as the plain `fleet_epoll_event` below. No retrying or error mapping here;
// that is the Swift side's job (FleetHTTPServer's `Syscalls.swift`). Only FleetHTTPServer imports this.
#include <stdint.h>
#include <sys/socket.h>

/// One readiness event: the epoll flags and the token registered with the file descriptor.
typedef struct {
    uint32_t events;
    uint64_t token;
} fleet_epoll_event;

// MARK: Constants, from the kernel headers.
extern const uint32_t fleet_EPOLLIN;
extern const uint32_t fleet_EPOLLOUT;
extern const uint32_t fleet_EPOLLERR;
extern const uint32_t fleet_EPOLLHUP;
extern const uint32_t fleet_EPOLLRDHUP;
extern const uint32_t fleet_EPOLLET;
/// EPOLL_CLOEXEC, EFD_CLOEXEC and SOCK_CLOEXEC (all O_CLOEXEC on Linux, kept apart for clarity).
extern const int fleet_EPOLL_CLOEXEC;
extern const int fleet_EFD_CLOEXEC;
extern const int fleet_EFD_NONBLOCK;
extern const int fleet_SOCK_CLOEXEC;
extern const int fleet_SOCK_NONBLOCK;

// MARK: epoll. Each returns what the system call returns (-1 and errno on failure).
int fleet_epoll_create1(int flags);
/// epoll_ctl(EPOLL_CTL_ADD) with `events` and `token` as the event's data.
int fleet_epoll_add(int epfd, int fd, uint32_t events, uint64_t token);
/// epoll_ctl(EPOLL_CTL_DEL); passes a non-null event, as kernels before 2.6.9 wanted.
int fleet_epoll_del(int epfd, int fd);
/// epoll_wait into `events` (room for `capacity`, at most 1024 are taken per call).
int fleet_epoll_wait(int epfd, fleet_epoll_event *events, int capacity, int timeout_millis);

// MARK: eventfd and accept4.
int fleet_eventfd(unsigned int initval, int flags);
int fleet_accept4(int listener, struct sockaddr *address, socklen_t *length, int flags);

#endif
