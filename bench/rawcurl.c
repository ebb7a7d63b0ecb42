// Raw libcurl multi in C, closed loop (socket_action + epoll): the floor under Fleet's engine,
// so the table shows how much of the gap to wrk is libcurl's own per-transfer work.
#include <curl/curl.h>
#include <sys/epoll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>
static int ep; static long timeout_ms = -1; static long done_n = 0;
static size_t wr(char *p, size_t s, size_t n, void *u) { return s * n; }
static int sockcb(CURL *e, curl_socket_t s, int what, void *u, void *sp) {
  struct epoll_event ev = {0}; ev.data.fd = s;
  if (what == CURL_POLL_REMOVE) { epoll_ctl(ep, EPOLL_CTL_DEL, s, NULL); return 0; }
  ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
  if (epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev) != 0) epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev);
  return 0; }
static int timercb(CURLM *m, long ms, void *u) { timeout_ms = ms; return 0; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv) {
  const char *url = argv[1]; int conns = atoi(argv[2]); double dur = atof(argv[3]);
  curl_global_init(CURL_GLOBAL_DEFAULT); ep = epoll_create1(0);
  CURLM *m = curl_multi_init();
  curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, sockcb); curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, timercb);
  for (int i = 0; i < conns; i++) { CURL *e = curl_easy_init(); curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, wr); curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L); curl_multi_add_handle(m, e); }
  double t0 = now(); int running; struct epoll_event evs[1024];
  while (now() - t0 < dur) {
    int n = epoll_wait(ep, evs, 1024, timeout_ms < 0 ? 100 : timeout_ms);
    if (n == 0) curl_multi_socket_action(m, CURL_SOCKET_TIMEOUT, 0, &running);
    for (int i = 0; i < n; i++) { int f = (evs[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) | (evs[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0);
      curl_multi_socket_action(m, evs[i].data.fd, f, &running); }
    if (timeout_ms == 0) curl_multi_socket_action(m, CURL_SOCKET_TIMEOUT, 0, &running);
    CURLMsg *msg; int left;
    while ((msg = curl_multi_info_read(m, &left))) if (msg->msg == CURLMSG_DONE) { CURL *e = msg->easy_handle; done_n++;
      curl_multi_remove_handle(m, e); curl_multi_add_handle(m, e); }
  }
  double el = now() - t0; struct rusage ru; getrusage(RUSAGE_SELF, &ru);
  double u = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6, s = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  printf("%ld requests in %.2fs (raw libcurl multi, %d connections, user %.2f s, sys %.2f s)\n", done_n, el, conns, u, s);
  return 0; }
