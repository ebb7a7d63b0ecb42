"""The ways scripts/hostile_proxy.py answers wrongly (issue 16 §3), one function per answer.

`answer` writes the stack's real answer (status, reason, headers, body) — or, for a `kind`, a
mangled one — and says whether the connection may carry another request.
"""
import asyncio
import re
import socket
import struct

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


def head(status, reason, headers, length=None, version=b"HTTP/1.1"):
    out = [version + b" " + str(status).encode() + b" " + reason]
    for n, v in headers:
        out.append(n + b": " + v)
    if length is not None:
        out.append(b"Content-Length: " + str(length).encode())
    return b"\r\n".join(out) + b"\r\n\r\n"

async def answer(kind, rng, writer, reader, status, reason, headers, body):
    """Writes the (maybe mangled) answer; returns False when the connection must close."""
    h = lambda length=None: head(status, reason, headers, length)
    if kind is None:
        writer.write(h(len(body)) + body)
        return True
    if kind == "garbage_json":
        junk = b'{"user_id": "u", <<<not json at all>>> ' + bytes(rng.randrange(33, 126) for _ in range(40))
        writer.write(head(200, b"OK", [(b"Content-Type", b"application/json")], len(junk)) + junk)
        return True
    if kind == "bad_utf8":
        m = re.search(rb'":\s*"', body)
        if m:
            i = m.end()
            bad = body[:i] + b"\xc3\x28\xff" + body[i:]
        else:
            bad = b'{"message": "\xed\xa0\x80\xff"}'
        writer.write(head(200 if status >= 300 or not body else status, reason,
                               [(b"Content-Type", b"application/json")], len(bad)) + bad)
        return True
    if kind == "truncated":
        full = body or b'{"padding": "' + b"x" * 200 + b'"}'
        writer.write(head(200, b"OK", headers, len(full)) + full[: len(full) // 2])
        await writer.drain()
        return False
    if kind == "reset":
        full = body or b'{"padding": "' + b"x" * 200 + b'"}'
        writer.write(head(200, b"OK", headers, len(full)) + full[: len(full) // 2])
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
        writer.write(head(200, b"OK", [(b"Content-Type", b"application/json")], total) + b'{"x":"')
        chunk = b"a" * (1 << 20)
        sent = 0
        while sent < total:
            writer.write(chunk)
            await writer.drain()
            sent += len(chunk)
        return False
    if kind == "huge_header":
        pad = b"p" * (2 * 1024 * 1024)
        writer.write(head(status, reason, headers + [(b"X-Pad", pad)], len(body)) + body)
        await writer.drain()
        return False
    if kind == "no_status_line":
        banner = rng.choice([b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n",
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
        writer.write(head(302, b"Found", loc, len(page)) + page)
        return True
    if kind == "fake_gzip":
        writer.write(head(status, reason, headers + [(b"Content-Encoding", b"gzip")], len(body)) + body)
        return True
    if kind == "http10_close":
        writer.write(head(status, reason, headers, None, b"HTTP/1.0") + body)
        await writer.drain()
        return False
    if kind == "early_100":
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n" + h(len(body)) + body)
        return True
    if kind == "dup_cl":
        writer.write(head(status, reason, headers + [(b"Content-Length", str(len(body) + 7).encode())],
                               len(body)) + body)
        return True
    raise AssertionError(kind)

