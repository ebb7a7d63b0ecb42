#!/usr/bin/env python3
"""A hostile front for any stack honouring ../shared/API.md (issue 16).

Every request the bench sends is forwarded to the real stack behind exactly once (its effect
commits even when the answer is then lost); a seeded fraction of the answers is mangled on the
way back, in one of the KINDS below, on API routes and on upload URLs alike (upload URLs in the
stack's answers are rewritten to point at this proxy, so the PUTs pass through it too).

It also checks what the bench sends: a request that is not well-formed HTTP/1.1 (bad request
line, method or header syntax, conflicting lengths, a non-PUT to an upload URL) is counted as
`malformed_requests` and answered 400.

    scripts/hostile_proxy.py --upstream http://127.0.0.1:S [--port 0] [--fraction 0.2] [--seed 1]
                             [--kinds k1,k2] [--stats FILE] [--duration S]

Prints `READY http://127.0.0.1:P` once listening. Counts go to --stats (JSON) every second and at
exit (SIGTERM/SIGINT/--duration).
"""
import argparse
import asyncio
import json
import random
import re
import signal
import socket
import struct
import sys
import time

KINDS = [
    "garbage_json",     # 200 with a body that is not JSON
    "bad_utf8",         # invalid UTF-8 inside a JSON string
    "truncated",        # Content-Length says more, connection closed half-way
    "reset",            # RST half-way through the answer
    "slow_drip",        # a byte every 2 s
    "stall",            # silence until the client gives up
    "huge_body",        # hundreds of megabytes announced and streamed
    "huge_header",      # a header of megabytes
    "no_status_line",   # SSH or SMTP banner, TLS alert
    "cl_short",         # Content-Length shorter than the body (spoils the next answer)
    "cl_long",          # Content-Length longer than the body
    "redirect_loop",    # 302 to itself
    "fake_gzip",        # Content-Encoding: gzip on an uncompressed body
    "http10_close",     # legal: HTTP/1.0, no length, close-delimited
    "early_100",        # legal: 100 Continue before the answer
    "dup_cl",           # two differing Content-Length headers
]
LEGAL = {"http10_close", "early_100"}
TOKEN = re.compile(rb"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
METHODS = {b"GET", b"HEAD", b"POST", b"PUT", b"PATCH", b"DELETE", b"OPTIONS"}
MAX_HEAD = 64 * 1024
MAX_BODY = 64 * 1024 * 1024


class Stats:
    def __init__(self):
        self.requests = 0
        self.forwarded = 0
        self.upstream_errors = 0
        self.malformed_requests = 0
        self.malformed_examples = []
        self.clean = 0
        self.mangled = {k: {"api": 0, "upload": 0} for k in KINDS}

    def as_json(self):
        return {
            "requests": self.requests, "forwarded": self.forwarded, "clean": self.clean,
            "upstream_errors": self.upstream_errors, "malformed_requests": self.malformed_requests,
            "malformed_examples": self.malformed_examples[:10],
            "mangled": self.mangled,
            "mangled_total": sum(v["api"] + v["upload"] for v in self.mangled.values()),
        }


class Proxy:
    def __init__(self, upstream, fraction, seed, kinds, stats):
        m = re.match(r"^http://([^:/]+):(\d+)(/.*)?$", upstream)
        if not m:
            raise SystemExit(f"hostile_proxy: --upstream must be http://HOST:PORT[/prefix], got {upstream!r}")
        self.up_host, self.up_port = m.group(1), int(m.group(2))
        self.up_origin = f"http://{self.up_host}:{self.up_port}".encode()
        self.origin = b""
        self.fraction = fraction
        self.rng = random.Random(seed)
        self.kinds = kinds
        self.stats = stats
        self.writers = set()

    # MARK: reading and checking the bench's requests

    async def read_request(self, reader):
        """(method, target, headers list, body) or None at EOF; raises ValueError when malformed."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as e:
            if e.partial.strip():
                raise ValueError("connection closed inside a request head")
            return None
        except asyncio.LimitOverrunError:
            raise ValueError("request head larger than 64 KiB")
        lines = head[:-4].split(b"\r\n")
        parts = lines[0].split(b" ")
        if len(parts) != 3 or parts[2] != b"HTTP/1.1" or parts[0] not in METHODS or not parts[1].startswith(b"/"):
            raise ValueError(f"bad request line {lines[0][:80]!r}")
        headers = []
        for line in lines[1:]:
            name, sep, value = line.partition(b":")
            if not sep or not TOKEN.match(name):
                raise ValueError(f"bad header line {line[:80]!r}")
            value = value.strip(b" \t")
            if any(c < 0x20 and c != 0x09 or c == 0x7f for c in value):
                raise ValueError(f"control character in header {name[:40]!r}")
            headers.append((name, value))
        lengths = {v for n, v in headers if n.lower() == b"content-length"}
        if any(n.lower() == b"transfer-encoding" for n, _ in headers):
            raise ValueError("Transfer-Encoding in a request (the bench sends Content-Length)")
        if len(lengths) > 1:
            raise ValueError("conflicting Content-Length")
        if not any(n.lower() == b"host" for n, _ in headers):
            raise ValueError("no Host header")
        length = 0
        if lengths:
            raw = lengths.pop()
            if not raw.isdigit():
                raise ValueError(f"bad Content-Length {raw[:20]!r}")
            length = int(raw)
            if length > MAX_BODY:
                raise ValueError("request body over 64 MiB")
        body = await reader.readexactly(length) if length else b""
        method, target = parts[0], parts[1]
        if target.startswith(b"/uploads/") or b"sig=" in target:
            if method != b"PUT":
                raise ValueError(f"{method!r} to an upload URL")
        return method, target, headers, body

    # MARK: forwarding

    async def forward(self, method, target, headers, body):
        """Sends the request to the stack on a fresh connection; returns (status, reason, headers, body)."""
        r, w = await asyncio.open_connection(self.up_host, self.up_port)
        try:
            out = [method + b" " + target + b" HTTP/1.1"]
            for n, v in headers:
                if n.lower() in (b"connection", b"keep-alive", b"expect"):
                    continue
                out.append(n + b": " + v)
            out.append(b"Connection: close")
            w.write(b"\r\n".join(out) + b"\r\n\r\n" + body)
            await w.drain()
            data = await asyncio.wait_for(r.read(), timeout=120)
        finally:
            w.close()
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status_parts = lines[0].split(b" ", 2)
        status = int(status_parts[1])
        reason = status_parts[2] if len(status_parts) > 2 else b"X"
        resp_headers = []
        length = None
        for line in lines[1:]:
            n, _, v = line.partition(b":")
            v = v.strip()
            if n.lower() == b"content-length":
                length = int(v)
                continue
            if n.lower() in (b"connection", b"keep-alive", b"transfer-encoding"):
                continue
            resp_headers.append((n, v))
        if length is not None:
            rest = rest[:length]
        # Upload URLs point at the stack; point them at us so that the PUTs pass here too.
        rest = rest.replace(self.up_origin, self.origin)
        return status, reason, resp_headers, rest

    # MARK: answering

    @staticmethod
    def head(status, reason, headers, length=None, version=b"HTTP/1.1"):
        out = [version + b" " + str(status).encode() + b" " + reason]
        for n, v in headers:
            out.append(n + b": " + v)
        if length is not None:
            out.append(b"Content-Length: " + str(length).encode())
        return b"\r\n".join(out) + b"\r\n\r\n"

    async def answer(self, kind, writer, reader, status, reason, headers, body):
        """Writes the (maybe mangled) answer; returns False when the connection must close."""
        h = lambda length=None: self.head(status, reason, headers, length)
        if kind is None:
            writer.write(h(len(body)) + body)
            return True
        if kind == "garbage_json":
            junk = b'{"user_id": "u", <<<not json at all>>> ' + bytes(self.rng.randrange(33, 126) for _ in range(40))
            writer.write(self.head(200, b"OK", [(b"Content-Type", b"application/json")], len(junk)) + junk)
            return True
        if kind == "bad_utf8":
            m = re.search(rb'":\s*"', body)
            if m:
                i = m.end()
                bad = body[:i] + b"\xc3\x28\xff" + body[i:]
            else:
                bad = b'{"message": "\xed\xa0\x80\xff"}'
            writer.write(self.head(200 if status >= 300 or not body else status, reason,
                                   [(b"Content-Type", b"application/json")], len(bad)) + bad)
            return True
        if kind == "truncated":
            full = body or b'{"padding": "' + b"x" * 200 + b'"}'
            writer.write(self.head(200, b"OK", headers, len(full)) + full[: len(full) // 2])
            await writer.drain()
            return False
        if kind == "reset":
            full = body or b'{"padding": "' + b"x" * 200 + b'"}'
            writer.write(self.head(200, b"OK", headers, len(full)) + full[: len(full) // 2])
            await writer.drain()
            sock = writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return False
        if kind == "slow_drip":
            data = h(len(body)) + body
            for b in data[:30]:
                writer.write(bytes([b]))
                await writer.drain()
                await asyncio.sleep(2)
            return False
        if kind == "stall":
            try:
                await asyncio.wait_for(reader.read(1), timeout=90)
            except asyncio.TimeoutError:
                pass
            return False
        if kind == "huge_body":
            total = 300 * 1024 * 1024
            writer.write(self.head(200, b"OK", [(b"Content-Type", b"application/json")], total) + b'{"x":"')
            chunk = b"a" * (1 << 20)
            sent = 0
            while sent < total:
                writer.write(chunk)
                await writer.drain()
                sent += len(chunk)
            return False
        if kind == "huge_header":
            pad = b"p" * (2 * 1024 * 1024)
            writer.write(self.head(status, reason, headers + [(b"X-Pad", pad)], len(body)) + body)
            await writer.drain()
            return False
        if kind == "no_status_line":
            banner = self.rng.choice([b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n",
                                      b"220 mail.example.com ESMTP Postfix (Debian/GNU)\r\n",
                                      b"\x15\x03\x01\x00\x02\x02\x28"])
            writer.write(banner)
            await writer.drain()
            return False
        if kind == "cl_short":
            full = body + b"   \r\n\r\nHTTP/1.1 200 OK\r\n"  # excess a reused connection would read next
            writer.write(h(max(0, len(body) - 3)) + full)
            return True
        if kind == "cl_long":
            writer.write(h(len(body) + 10) + body)
            await writer.drain()
            await asyncio.sleep(1)
            return False
        if kind == "redirect_loop":
            loc = [(b"Location", b"http://127.0.0.1" + b"/loop"), (b"Content-Type", b"text/html")]
            page = b"<a href=/loop>moved</a>"
            writer.write(self.head(302, b"Found", loc, len(page)) + page)
            return True
        if kind == "fake_gzip":
            writer.write(self.head(status, reason, headers + [(b"Content-Encoding", b"gzip")], len(body)) + body)
            return True
        if kind == "http10_close":
            writer.write(self.head(status, reason, headers, None, b"HTTP/1.0") + body)
            await writer.drain()
            return False
        if kind == "early_100":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n" + h(len(body)) + body)
            return True
        if kind == "dup_cl":
            writer.write(self.head(status, reason, headers + [(b"Content-Length", str(len(body) + 7).encode())],
                                   len(body)) + body)
            return True
        raise AssertionError(kind)

    async def serve(self, reader, writer):
        self.writers.add(writer)
        try:
            while True:
                try:
                    req = await self.read_request(reader)
                except ValueError as e:
                    self.stats.malformed_requests += 1
                    self.stats.malformed_examples.append(str(e))
                    writer.write(self.head(400, b"Bad Request", [], 0))
                    await writer.drain()
                    return
                if req is None:
                    return
                self.stats.requests += 1
                method, target, headers, body = req
                try:
                    status, reason, rh, rb = await self.forward(method, target, headers, body)
                    self.stats.forwarded += 1
                except Exception:
                    self.stats.upstream_errors += 1
                    writer.write(self.head(502, b"Bad Gateway", [], 0))
                    await writer.drain()
                    continue
                kind = None
                if self.rng.random() < self.fraction:
                    kind = self.rng.choice(self.kinds)
                    route = "upload" if target.startswith(b"/uploads/") else "api"
                    self.stats.mangled[kind][route] += 1
                else:
                    self.stats.clean += 1
                keep = await self.answer(kind, writer, reader, status, reason, rh, rb)
                await writer.drain()
                if not keep:
                    return
        except (ConnectionError, asyncio.IncompleteReadError, BrokenPipeError):
            return
        finally:
            self.writers.discard(writer)
            try:
                writer.close()
            except Exception:
                pass


async def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--upstream", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--fraction", type=float, default=0.2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--kinds", default=",".join(KINDS))
    p.add_argument("--stats")
    p.add_argument("--duration", type=float)
    a = p.parse_args()
    kinds = [k for k in a.kinds.split(",") if k]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not 0 <= a.fraction <= 1:
        raise SystemExit(f"hostile_proxy: unknown kinds {unknown} or fraction outside 0..1")
    stats = Stats()
    proxy = Proxy(a.upstream, a.fraction, a.seed, kinds, stats)
    server = await asyncio.start_server(proxy.serve, "127.0.0.1", a.port, limit=MAX_HEAD, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    proxy.origin = f"http://127.0.0.1:{port}".encode()
    print(f"READY http://127.0.0.1:{port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for s in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(s, stop.set)
    if a.duration:
        loop.call_later(a.duration, stop.set)

    def dump():
        if a.stats:
            with open(a.stats + ".tmp", "w") as f:
                json.dump(stats.as_json(), f, indent=1)
            import os
            os.replace(a.stats + ".tmp", a.stats)

    async def periodic():
        while True:
            await asyncio.sleep(1)
            dump()

    ticker = asyncio.create_task(periodic())
    await stop.wait()
    ticker.cancel()
    server.close()
    for w in list(proxy.writers):
        w.close()
    dump()
    print(json.dumps(stats.as_json()), file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
