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
import os
import random
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_mangle import KINDS, answer, head  # noqa: E402

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

    async def serve(self, reader, writer):
        self.writers.add(writer)
        try:
            while True:
                try:
                    req = await self.read_request(reader)
                except ValueError as e:
                    self.stats.malformed_requests += 1
                    self.stats.malformed_examples.append(str(e))
                    writer.write(head(400, b"Bad Request", [], 0))
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
                    writer.write(head(502, b"Bad Gateway", [], 0))
                    await writer.drain()
                    continue
                kind = None
                if self.rng.random() < self.fraction:
                    kind = self.rng.choice(self.kinds)
                    route = "upload" if target.startswith(b"/uploads/") else "api"
                    self.stats.mangled[kind][route] += 1
                else:
                    self.stats.clean += 1
                keep = await answer(kind, self.rng, writer, reader, status, reason, rh, rb)
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
