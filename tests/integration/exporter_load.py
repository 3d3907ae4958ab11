#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Bad clients against ktrace export, timing the scrapes they must not
stall (tests/integration/t_export.sh).

usage: exporter_load.py PORT IDLE SCRAPES

Opens IDLE connections that send nothing, one that sends a request one
byte a second, one that asks for /metrics and reads one byte a second,
one with a 64 KiB header, and one malformed request; while they are open,
makes SCRAPES GETs of /metrics on new connections. Prints one line:
"idle=N open=N scrapes=N ok=N max_ms=F huge=STATUS bad=STATUS".
"""
import socket
import sys
import time

port, nidle, nscrapes = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
addr = ("127.0.0.1", port)


def conn():
    s = socket.create_connection(addr, timeout=5)
    return s


def status_of(req):
    s = conn()
    try:
        s.sendall(req)
        line = s.recv(64).split(b"\r\n")[0].decode(errors="replace")
        return line.split(" ")[1] if line.startswith("HTTP/") else "closed"
    except OSError:
        return "closed"
    finally:
        s.close()


idle = [conn() for _ in range(nidle)]
slow_req = conn()
slow_req.sendall(b"GET /metrics HTTP/1.1\r\nHo")
slow_read = conn()
slow_read.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
slow_read.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
slow_read.recv(1)
huge = status_of(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " +
                 b"a" * 65536 + b"\r\n\r\n")
bad = status_of(b"GARBAGE\r\n\r\n")
ok, worst = 0, 0.0
for i in range(nscrapes):
    slow_req.send(b"s")
    slow_read.recv(1)
    t0 = time.monotonic()
    s = conn()
    s.sendall(b"GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n")
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    s.close()
    worst = max(worst, time.monotonic() - t0)
    ok += data.split(b"\r\n")[0].split(b" ")[1:2] == [b"200"] and b"ktrace_scrape_duration_seconds" in data
    time.sleep(0.2)
# are the idle ones still open (not dropped to make room)?
still = 0
for s in idle:
    s.setblocking(False)
    try:
        still += s.recv(1) != b""
    except BlockingIOError:
        still += 1
    except OSError:
        pass
print("idle=%d open=%d scrapes=%d ok=%d max_ms=%.1f huge=%s bad=%s" %
      (nidle, still, nscrapes, ok, worst * 1000, huge, bad))
