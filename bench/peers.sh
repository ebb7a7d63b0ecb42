#!/usr/bin/env bash
# bench/peers.sh — Fleet's engine beside the tools people would pick instead, in one run.
#
# Starts nginx on loopback serving a 13-byte body, then runs wrk, h2load (--h1), hey, Locust
# (FastHttpUser, headless), a raw libcurl-multi loop in C (bench/rawcurl.c, the floor under
# Fleet's engine) and `fleet blast` against it in alternation (PAIRS rounds, wrk first in each),
# measures each client's CPU seconds with /usr/bin/time, and writes the median ratio to wrk's
# requests per CPU-second with its min–max into bench/RESULTS.md (section "peers").
# Refuses to start when the load average is above LOAD_MAX (bench/lib.sh; --loaded-ok marks rows).
# Bounded: every tool runs under `timeout`; nginx is stopped by its pid on any exit.
# Takes about PAIRS × 6 × (SECONDS + 3) s: 4 min at the defaults.
#
#   bench/peers.sh [-c CONNECTIONS] [-d SECONDS] [--only "wrk fleet"] [--loaded-ok]
#       (defaults 64 and 10; env PAIRS=3, LOAD_MAX=0.5, LOAD_WAIT, FLEET_BIN, FLEET_BLAST_ARGS, PORT)
#
# Sourcing it (as bench/scale-blast.sh does) only defines the helper functions.
# ---- helpers ----
BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export BENCH_ROOT  # the reports' Python reads bench/run_cpu.py from it
export PATH="$PATH:/opt/swift/usr/bin"
# shellcheck source=bench/lib.sh
source "$BENCH_ROOT/bench/lib.sh"

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
# Each round runs every client once, wrk first (wrk A B C … wrk A B C …, PAIRS rounds), and a
# client's ratio in a round is its requests per CPU-second over wrk's in that same round; the
# table quotes the median ratio over the rounds with its min–max.
peers_main() {
    local conns=64 duration=10 port=${PORT:-18089} only=""
    while [ $# -gt 0 ]; do
        case "$1" in
            -c) conns=$2; shift 2 ;;
            -d) duration=$2; shift 2 ;;
            --only) only=$2; shift 2 ;;   # e.g. "wrk fleet": a subset of the clients
            --loaded-ok) LOADED_OK=1; shift ;;
            *) echo "usage: bench/peers.sh [-c CONNECTIONS] [-d SECONDS] [--only \"wrk fleet …\"] [--loaded-ok]   (env PAIRS, LOAD_MAX, LOAD_WAIT, FLEET_BIN, FLEET_BLAST_ARGS)" >&2; return 2 ;;
        esac
    done
    ulimit -n 20000 2>/dev/null || true
    bench_install locust
    local fleet; fleet=$(bench_fleet_bin)
    bench_load_guard peers || return 3
    local work; work=$(mktemp -d /tmp/fleet-peers.XXXXXX)
    BENCH_LOADLOG="$work/load.log"
    trap 'bench_nginx_stop' EXIT
    trap 'bench_nginx_stop; exit 130' INT TERM
    bench_nginx_start "$port" "$work/nginx"
    local url="http://127.0.0.1:$port/" limit=$((duration + 60))
    cat > "$work/locustfile.py" <<'PY'
from locust import constant, task
from locust.contrib.fasthttp import FastHttpUser

class Blast(FastHttpUser):
    wait_time = constant(0)

    @task
    def index(self):
        self.client.get("/")
PY
    local cc; cc=$(command -v cc || command -v clang || echo /opt/swift/usr/bin/clang)
    # shellcheck disable=SC2046
    "$cc" -O2 "$BENCH_ROOT/bench/rawcurl.c" -o "$work/rawcurl" $(pkg-config --cflags --libs libcurl) 2>"$work/rawcurl.build" \
        || echo "   (raw libcurl probe did not compile; see $work/rawcurl.build)" >&2
    local -a names=(wrk h2load hey locust rawcurl fleet)
    [ -n "$only" ] && read -r -a names <<< "$only"
    [ "${names[0]}" = wrk ] || names=(wrk "${names[@]}")
    PEERS_CMDS_wrk="wrk -t1 -c$conns -d${duration}s --latency $url"
    PEERS_CMDS_h2load="h2load --h1 -t1 -c$conns -D $duration --log-file=$work/h2load.ROUND.log $url"
    PEERS_CMDS_hey="hey -z ${duration}s -c $conns $url"
    PEERS_CMDS_locust="locust -f $work/locustfile.py --headless -u $conns -r $conns -t ${duration}s --host http://127.0.0.1:$port --csv $work/locust.ROUND --only-summary --loglevel WARNING"
    PEERS_CMDS_rawcurl="$work/rawcurl $url $conns $duration"
    PEERS_CMDS_fleet="$fleet blast $url -c $conns -d $duration ${FLEET_BLAST_ARGS:-}"
    PEERS_WORK=$work PEERS_LIMIT=$limit
    bench_alternate peers "${names[@]/#/peers_one_}"
    bench_nginx_stop

    local table="$work/section.md"
    {
        echo "## Peers: requests per client CPU-second on loopback nginx"
        echo
        echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(bench_machine) by \`bench/peers.sh -c $conns -d $duration\` (PAIRS=$PAIRS)"
        echo "(nginx 1 worker, 13-byte body, keep-alive; the clients alternate, wrk first in every round, $PAIRS rounds;"
        echo "CPU = the client's user + system seconds from /usr/bin/time; × wrk = its requests per CPU-second over"
        echo "wrk's in the same round, median of the rounds with min–max; p99 as each tool reports it, median)."
        bench_load_summary
        [ "$BENCH_LOADED" = 1 ] && echo "**Loaded: taken while other work shared the machine; provisional, not the figure.**"
        echo "Replaces the single-pass table of 2026-11-29 (0.46 × wrk for fleet blast, taken at load 7.6)."
        echo
        python3 "$BENCH_ROOT/bench/peers_table.py" "$work" "$duration" "$PAIRS" "${names[@]}"
        echo
        echo "Commands (URL = http://127.0.0.1:$port/; ROUND = the round):"
        echo
        local n v
        for n in "${names[@]}"; do v="PEERS_CMDS_$n"; echo "    ${!v//$work/\$WORK}"; done
    } > "$table"
    cat "$table"
    bench_write_section peers "$table"
    echo "wrote bench/RESULTS.md (section peers); raw outputs in $work" >&2
}

# One client, one round: outputs in $PEERS_WORK/NAME.ROUND.{out,time}.
peers_one() {
    local name=$1 round=$2 v="PEERS_CMDS_$1"
    local cmd=${!v//ROUND/$round}
    # shellcheck disable=SC2086
    timeout "$PEERS_LIMIT" /usr/bin/time -f '%U %S' -o "$PEERS_WORK/$name.$round.time" $cmd > "$PEERS_WORK/$name.$round.out" 2>&1 \
        || echo "   ($name exited $?; see $PEERS_WORK/$name.$round.out)" >&2
    sleep 1
}
peers_one_wrk() { peers_one wrk "$1"; }
peers_one_h2load() { peers_one h2load "$1"; }
peers_one_hey() { peers_one hey "$1"; }
peers_one_locust() { peers_one locust "$1"; }
peers_one_rawcurl() { peers_one rawcurl "$1"; }
peers_one_fleet() { peers_one fleet "$1"; }

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    peers_main "$@"
fi
