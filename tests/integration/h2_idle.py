#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What an idle HTTP/2 connection costs the serving process.

    h2_idle.py BENEATH_BIN

beneath is started with a plain and an https:// listener (--tls-self-signed).
For h2c (prior knowledge) and then h2 over TLS (ALPN): CONNS connections
are opened one after the other, each with one GET of a 1 KiB file read
whole, then silence. The serving process's PSS (/proc/PID/smaps_rollup) is
read before and, every 0.25 s for up to SETTLE_S s, after: the PSS added
per connection must come down to its bound (h2c: H2C_BOUND bytes; TLS:
TLS_BOUND, the TLS session's share on top). Under AddressSanitizer (its
allocator's redzones and quarantine) the figures are said, not judged.
Then a second GET on AGAIN of the waiting connections must be answered
200 with the same bytes: a session that gave back its pages still speaks
(its HPACK tables are the ones the first request filled).

Exit 0: within the bounds and answered; 1: not; 77: python3-h2 missing.
"""
import os
import resource
import socket
import sys
import tempfile
import time

from h2_common import (h2_client, serving_pid, start_beneath, stop_beneath,
                       tls_h2)

try:
    import h2.events
except ImportError as e:
    print(f"skip: python3-h2 missing ({e})")
    sys.exit(77)

CONNS = 1000
# 8 KB is the target (bench/README.md, "A waiting connection"): about 7.5 KB
# is measured for h2c; before the sessions gave back nghttp2's stream map
# and frame buffer (4 KB each) it was 16 to 17.5 KB; the frame buffer kept
# costs 10.7 KB, the stream map kept 11.2 KB, no wake after 1 s quiet 15.6
# KB. Over TLS OpenSSL's state adds about 14 KB (its SSL alone is 7.6 KB):
# 21.7 KB is measured (nginx 19.8 KB), 35 KB before.
H2C_BOUND = 9500
TLS_BOUND = 28672
SETTLE_S = 8.0
AGAIN = 20
BODY = bytes(range(256)) * 4  # 1 KiB


def pss_kib(pid):
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1])
    return 0


def asan(pid):
    with open(f"/proc/{pid}/maps") as f:
        return "libasan" in f.read()


class Conn:
    """One HTTP/2 connection: a GET at a time, its answer read whole."""

    def __init__(self, port, tls):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        if tls:
            s = tls_h2(s)
        self.s, self.port = s, port
        self.c = h2_client()
        self.c.initiate_connection()
        self.next_id = 1

    def get(self, path):
        """(status, body) of one GET of @path."""
        sid = self.next_id
        self.next_id += 2
        self.c.send_headers(sid, [(":method", "GET"), (":scheme", "http"),
                                  (":authority", f"127.0.0.1:{self.port}"),
                                  (":path", path)], end_stream=True)
        self.s.sendall(self.c.data_to_send())
        status, body, done = 0, b"", False
        while not done:
            data = self.s.recv(65536)
            if not data:
                raise OSError(f"closed before stream {sid} ended")
            for ev in self.c.receive_data(data):
                if isinstance(ev, h2.events.ResponseReceived):
                    status = int(dict(ev.headers)[":status"])
                elif isinstance(ev, h2.events.DataReceived):
                    body += ev.data
                    self.c.acknowledge_received_data(
                        ev.flow_controlled_length, ev.stream_id)
                elif isinstance(ev, h2.events.StreamEnded):
                    done = ev.stream_id == sid
                elif isinstance(ev, (h2.events.ConnectionTerminated,
                                     h2.events.StreamReset)):
                    raise OSError(f"stream {sid}: {ev}")
            out = self.c.data_to_send()
            if out:
                self.s.sendall(out)
        return status, body


def one(name, port, tls, pid, judged):
    """Hold CONNS idle connections on @port; the failures (lines)."""
    failures = []
    warm = Conn(port, tls)  # the first connection's one-offs, before
    warm.get("/1k.bin")
    time.sleep(0.5)
    before = pss_kib(pid)
    held = []
    try:
        for i in range(CONNS):
            c = Conn(port, tls)
            status, body = c.get("/1k.bin")
            if status != 200 or body != BODY:
                return [f"{name}: connection {i + 1}: {status}, "
                        f"{len(body)} bytes"]
            held.append(c)
    except (OSError, RuntimeError) as e:
        return [f"{name}: connection {len(held) + 1}: {e}"]
    bound = TLS_BOUND if tls else H2C_BOUND
    end = time.monotonic() + SETTLE_S
    while True:
        per = (pss_kib(pid) - before) * 1024 // CONNS
        if per <= bound or time.monotonic() >= end:
            break
        time.sleep(0.25)
    verdict = "within" if per <= bound else "over"
    print(f"{name}: {CONNS} idle connections: {per} bytes of PSS each "
          f"({verdict} {bound})", flush=True)
    if per > bound:
        if judged:
            failures.append(f"{name}: {per} bytes a connection, over {bound}")
        else:
            print(f"{name}: AddressSanitizer build: not judged")
    try:
        for c in held[:AGAIN]:
            status, body = c.get("/1k.bin")
            if status != 200 or body != BODY:
                failures.append(f"{name}: second GET: {status}, "
                                f"{len(body)} bytes")
                break
    except OSError as e:
        failures.append(f"{name}: second GET: {e}")
    for c in held + [warm]:
        c.s.close()
    return failures


def main():
    binary = sys.argv[1]
    failures = []
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 2 * CONNS + 200:
        print(f"skip: RLIMIT_NOFILE {hard}: {CONNS} connections do not fit")
        return 77
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with tempfile.TemporaryDirectory(prefix="beneath-h2-idle-") as tmp:
        www = os.path.join(tmp, "www")
        os.mkdir(www)
        with open(os.path.join(www, "1k.bin"), "wb") as f:
            f.write(BODY)
        # a fresh server for each: what one's connections freed is not
        # the next one's to reuse
        for name, scheme, tls in (("h2c", "http", False),
                                  ("h2 over TLS", "https", True)):
            proc, err, urls = start_beneath(
                [binary, "--listen", "127.0.0.1:0", "--listen",
                 "https://127.0.0.1:0", "--tls-self-signed", "--access-log",
                 "off", "--max-connections", str(CONNS + 100),
                 "--max-connections-per-ip", "0", "--timeout", "600", www],
                tmp, 2)
            try:
                pid = serving_pid(proc.pid)
                port = int(urls[scheme].rsplit(":", 1)[1].split("/")[0])
                failures += one(name, port, tls, pid, not asan(pid))
            finally:
                log = stop_beneath(proc, err)
            if failures:
                print(log[-2000:])
                break
    for f in failures:
        print(f"FAIL: {f}")
    if failures:
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
