// Implementation of the declarations in include/CSysShim.h (see there for why).
#define _GNU_SOURCE
#include "CSysShim.h"
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

const uint32_t fleet_EPOLLIN = EPOLLIN;
const uint32_t fleet_EPOLLOUT = EPOLLOUT;
const uint32_t fleet_EPOLLERR = EPOLLERR;
const uint32_t fleet_EPOLLHUP = EPOLLHUP;
const uint32_t fleet_EPOLLRDHUP = EPOLLRDHUP;
const uint32_t fleet_EPOLLET = EPOLLET;
const int fleet_EPOLL_CLOEXEC = EPOLL_CLOEXEC;
const int fleet_EFD_CLOEXEC = EFD_CLOEXEC;
const int fleet_EFD_NONBLOCK = EFD_NONBLOCK;
const int fleet_SOCK_CLOEXEC = SOCK_CLOEXEC;
const int fleet_SOCK_NONBLOCK = SOCK_NONBLOCK;

int fleet_epoll_create1(int flags) { return epoll_create1(flags); }

int fleet_epoll_add(int epfd, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = { .events = events, .data = { .u64 = token } };
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

int fleet_epoll_del(int epfd, int fd) {
    struct epoll_event event = { 0 };
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &event);
}

int fleet_epoll_wait(int epfd, fleet_epoll_event *events, int capacity, int timeout_millis) {
    enum { most = 1024 };
    struct epoll_event raw[most];
    if (capacity > most) capacity = most;
    int n = epoll_wait(epfd, raw, capacity, timeout_millis);
    for (int i = 0; i < n; i++) {
        events[i].events = raw[i].events;
        events[i].token = raw[i].data.u64;
    }
    return n;
}

int fleet_eventfd(unsigned int initval, int flags) { return eventfd(initval, flags); }

int fleet_accept4(int listener, struct sockaddr *address, socklen_t *length, int flags) {
    return accept4(listener, address, length, flags);
}
