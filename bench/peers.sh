#!/usr/bin/env bash
# bench/peers.sh — Fleet's engine beside the tools people would pick instead, in one run.
#
# Starts nginx on loopback serving a 13-byte body, then runs wrk, h2load (--h1), hey, Locust
# (FastHttpUser, headless), a raw libcurl-multi loop in C (the floor under Fleet's engine) and
# `fleet blast` against it one after another with the same connections and duration, measures
# each client's CPU seconds with /usr/bin/time, and writes a table (req/s, client CPU s per 1,000
# requests, p99) into bench/RESULTS.md (section "peers").
# Bounded: every tool runs under `timeout`; nginx is stopped by its pid on any exit.
#
#   bench/peers.sh [-c CONNECTIONS] [-d SECONDS]      (defaults 64 and 10; env FLEET_BIN, PORT)
#
# Sourcing it (as bench/scale-blast.sh does) only defines the helper functions.
# ---- helpers ----
BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PATH="$PATH:/opt/swift/usr/bin"

# apt packages by the command they provide; installs only the missing ones.
bench_install() {
    local missing=()
    command -v nginx  >/dev/null || missing+=(nginx)
    command -v wrk    >/dev/null || missing+=(wrk)
    command -v h2load >/dev/null || missing+=(nghttp2-client)
    command -v hey    >/dev/null || missing+=(hey)
    [ -x /usr/bin/time ] || missing+=(time)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "installing: ${missing[*]}" >&2
        apt-get -o DPkg::Lock::Timeout=300 update -qq >/dev/null || true
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${missing[@]}" >/dev/null
    fi
    if [ "${1:-}" = "locust" ] && ! command -v locust >/dev/null; then
        echo "installing: locust (pip)" >&2
        python3 -m pip install -q locust >/dev/null
    fi
}

# Builds the release fleet binary unless FLEET_BIN points at one; prints its path.
bench_fleet_bin() {
    if [ -n "${FLEET_BIN:-}" ]; then echo "$FLEET_BIN"; return; fi
    (cd "$BENCH_ROOT" && swift build -c release --product fleet >&2)
    echo "$BENCH_ROOT/.build/release/fleet"
}

# Starts nginx on 127.0.0.1:$1 in directory $2 serving a 13-byte body at /; sets NGINX_PID.
bench_nginx_start() {
    local port=$1 dir=$2
    mkdir -p "$dir/www" "$dir/tmp"
    # nginx's worker runs as an unprivileged user; mktemp's directories are private (0700).
    chmod a+rx "$(dirname "$dir")" "$dir" "$dir/www"
    printf 'hello, fleet\n' > "$dir/www/index.html"
    cat > "$dir/nginx.conf" <<EOF
worker_processes 1;
worker_rlimit_nofile 20000;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 10000; }
http {
    access_log off;
    keepalive_requests 10000000;
    keepalive_timeout 120s;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    server {
        listen 127.0.0.1:$port backlog=4096;
        location / { root $dir/www; }
    }
}
EOF
    nginx -c "$dir/nginx.conf" -p "$dir" &
    NGINX_PID=$!
    for _ in $(seq 1 50); do
        curl -sf "http://127.0.0.1:$port/" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "nginx did not start on 127.0.0.1:$port (see $dir/error.log)" >&2
    return 1
}

# Stops the nginx started above, by its pid (master; it takes its worker with it).
bench_nginx_stop() {
    if [ -n "${NGINX_PID:-}" ] && kill -0 "$NGINX_PID" 2>/dev/null; then
        kill -QUIT "$NGINX_PID" 2>/dev/null || true
        for _ in $(seq 1 30); do kill -0 "$NGINX_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$NGINX_PID" 2>/dev/null || true
    fi
    NGINX_PID=
}

# Replaces the section between <!-- NAME:begin --> and <!-- NAME:end --> of bench/RESULTS.md
# with the contents of file $2 (appends the section when it is not there yet).
bench_write_section() {
    local name=$1 file=$2 results="$BENCH_ROOT/bench/RESULTS.md"
    python3 - "$results" "$name" "$file" <<'EOF'
import os, sys
path, name, body_file = sys.argv[1:4]
begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
body = open(body_file).read().rstrip("\n")
text = open(path).read() if os.path.exists(path) else "# Fleet benchmark results\n"
block = f"{begin}\n{body}\n{end}"
if begin in text and end in text:
    head, rest = text.split(begin, 1)
    text = head + block + rest.split(end, 1)[1]
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
open(path, "w").write(text)
EOF
}

# "2 × Intel(R) Xeon(R) ... , 7.7 GiB, Debian 12, Linux 6.x" for the results header.
bench_machine() {
    local cpu mem os
    cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
    mem=$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)
    os=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")
    echo "$(nproc) × ${cpu:-unknown CPU}, $mem, ${os:-Linux}, kernel $(uname -r)"
}

# ---- the peer comparison ----
peers_main() {
    local conns=64 duration=10 port=${PORT:-18089}
    while [ $# -gt 0 ]; do
        case "$1" in
            -c) conns=$2; shift 2 ;;
            -d) duration=$2; shift 2 ;;
            *) echo "usage: bench/peers.sh [-c CONNECTIONS] [-d SECONDS]" >&2; return 2 ;;
        esac
    done
    ulimit -n 20000 2>/dev/null || true
    bench_install locust
    local fleet; fleet=$(bench_fleet_bin)
    local work; work=$(mktemp -d /tmp/fleet-peers.XXXXXX)
    trap 'bench_nginx_stop' EXIT
    trap 'bench_nginx_stop; exit 130' INT TERM
    bench_nginx_start "$port" "$work/nginx"
    local url="http://127.0.0.1:$port/" limit=$((duration + 60))
    local load_before; load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    cat > "$work/locustfile.py" <<'EOF'
from locust import constant, task
from locust.contrib.fasthttp import FastHttpUser

class Blast(FastHttpUser):
    wait_time = constant(0)

    @task
    def index(self):
        self.client.get("/")
EOF
    cat > "$work/rawcurl.c" <<'CSRC'
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
CSRC
    local cc; cc=$(command -v cc || command -v clang || echo /opt/swift/usr/bin/clang)
    # shellcheck disable=SC2046
    "$cc" -O2 "$work/rawcurl.c" -o "$work/rawcurl" $(pkg-config --cflags --libs libcurl) 2>"$work/rawcurl.build" \
        || echo "   (raw libcurl probe did not compile; see $work/rawcurl.build)" >&2
    # name | command (run under /usr/bin/time; stdout+stderr kept in $work/NAME.out)
    local -a names=(wrk h2load hey locust rawcurl fleet)
    local -A cmds=(
        [wrk]="wrk -t1 -c$conns -d${duration}s --latency $url"
        [h2load]="h2load --h1 -t1 -c$conns -D $duration --log-file=$work/h2load.log $url"
        [hey]="hey -z ${duration}s -c $conns $url"
        [locust]="locust -f $work/locustfile.py --headless -u $conns -r $conns -t ${duration}s --host http://127.0.0.1:$port --csv $work/locust --only-summary --loglevel WARNING"
        [rawcurl]="$work/rawcurl $url $conns $duration"
        [fleet]="$fleet blast $url -c $conns -d $duration"
    )
    for name in "${names[@]}"; do
        echo "== $name: ${cmds[$name]}" >&2
        # shellcheck disable=SC2086
        timeout "$limit" /usr/bin/time -f '%U %S' -o "$work/$name.time" ${cmds[$name]} > "$work/$name.out" 2>&1 \
            || echo "   ($name exited $?; see $work/$name.out)" >&2
        sleep 1
    done
    bench_nginx_stop

    local table="$work/section.md"
    {
        echo "## Peers: requests per client CPU-second on loopback nginx"
        echo
        echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(bench_machine) by \`bench/peers.sh -c $conns -d $duration\`"
        echo "(nginx 1 worker, 13-byte body, keep-alive; each client alone, one after another; CPU = the"
        echo "client's user + system seconds from /usr/bin/time; p99 as each tool reports it)."
        echo "Load average when the run started: $load_before (1/5/15 min; above 0 means other work shared the 2 cores)."
        echo
        python3 - "$work" "$duration" <<'EOF'
import csv, os, re, sys
work, duration = sys.argv[1], float(sys.argv[2])

def read(name):
    p = os.path.join(work, name)
    return open(p, errors="replace").read() if os.path.exists(p) else ""

def ms(text):
    m = re.match(r"([\d.]+)\s*(us|ms|s)$", text.strip())
    if not m: return None
    v, unit = float(m.group(1)), m.group(2)
    return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v

def wrk_like(out):
    req = re.search(r"(\d+) requests in ([\d.]+)s", out)
    p99 = re.search(r"^\s*99%\s+(\S+)", out, re.M)
    return (int(req.group(1)) if req else None, float(req.group(2)) if req else None, ms(p99.group(1)) if p99 else None)

rows = {}
rows["wrk"] = wrk_like(read("wrk.out"))
rows["fleet blast"] = wrk_like(read("fleet.out"))
rows["raw libcurl multi (C)"] = wrk_like(read("rawcurl.out"))
out = read("h2load.out")
req = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded", out)
took = re.search(r"finished in ([\d.]+)s", out)
durs = sorted(int(l.split("\t")[2]) for l in read("h2load.log").splitlines() if l.count("\t") >= 2)
rows["h2load --h1"] = (int(req.group(1)) if req else None, float(took.group(1)) if took else None,
                       durs[int(0.99 * (len(durs) - 1))] / 1000 if durs else None)
out = read("hey.out")
codes = re.findall(r"\[\d+\]\s+(\d+) responses", out)
took = re.search(r"Total:\s+([\d.]+) secs", out)
p99 = re.search(r"99% in ([\d.]+) secs", out)
rows["hey"] = (sum(map(int, codes)) if codes else None, float(took.group(1)) if took else None,
               float(p99.group(1)) * 1000 if p99 else None)
rows["Locust (FastHttpUser)"] = (None, None, None)
if os.path.exists(os.path.join(work, "locust_stats.csv")):
    for r in csv.DictReader(open(os.path.join(work, "locust_stats.csv"))):
        if r.get("Name") == "Aggregated":
            rows["Locust (FastHttpUser)"] = (int(r["Request Count"]), duration, float(r["99%"]) if r.get("99%") not in (None, "", "N/A") else None)
files = {"wrk": "wrk", "fleet blast": "fleet", "raw libcurl multi (C)": "rawcurl", "h2load --h1": "h2load", "hey": "hey", "Locust (FastHttpUser)": "locust"}

def cpu(name):
    t = read(name + ".time").split()
    try: return float(t[-2]) + float(t[-1])
    except (IndexError, ValueError): return None

print("| client | requests | req/s | client CPU s | CPU s per 1,000 req | req per CPU-s | × wrk | p99 ms |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
wrk_eff = None
results = []
for label in ["wrk", "h2load --h1", "hey", "Locust (FastHttpUser)", "raw libcurl multi (C)", "fleet blast"]:
    n, secs, p99 = rows[label]
    c = cpu(files[label])
    eff = n / c if n and c else None
    if label == "wrk": wrk_eff = eff
    results.append((label, n, secs, c, eff, p99))
for label, n, secs, c, eff, p99 in results:
    f = lambda v, fmt: (fmt % v) if v is not None else "n/a"
    rps = n / secs if n and secs else None
    per1k = c * 1000 / n if n and c else None
    rel = eff / wrk_eff if eff and wrk_eff else None
    print(f"| {label} | {f(n, '%d')} | {f(rps, '%.0f')} | {f(c, '%.2f')} | {f(per1k, '%.4f')} | {f(eff, '%.0f')} | {f(rel, '%.2f')} | {f(p99, '%.2f')} |")
EOF
        echo
        echo "Commands (URL = http://127.0.0.1:$port/):"
        echo
        for name in "${names[@]}"; do echo "    ${cmds[$name]//$work/\$WORK}"; done
    } > "$table"
    cat "$table"
    bench_write_section peers "$table"
    echo "wrote bench/RESULTS.md (section peers); raw outputs in $work" >&2
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    peers_main "$@"
fi
