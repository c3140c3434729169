#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""An HTTP/2 client that downloads one file slowly, for h2_drain_linger.sh.

  h2_slow_reader.py HOST PORT PATH BYTES_PER_S [--tls]

One GET on a connection (h2c by prior knowledge, or TLS with ALPN h2) whose
windows are large (8 MiB a stream, 24 MiB the connection), so that the
server writes far ahead of the reader and its socket's send queue stays
full; the body is read at BYTES_PER_S, and WINDOW_UPDATEs for what was read
are sent as it goes (a MiB at a time), PINGs and SETTINGS acknowledged, as a
browser does. GOAWAY frames are counted, and the connection is read on after
them. Prints one line: "got N done BOOL goaways N err WHAT".
The frames after the request are read by hand: python3-h2 refuses DATA after
a GOAWAY, which RFC 9113 6.8 allows for the streams it names. The TLS
socket and the H2Connection are h2_common's.
"""
import socket
import struct
import sys
import time

from h2_common import h2_client, tls_h2


def frame(kind, flags, stream, payload):
    return (struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) +
            struct.pack(">I", stream) + payload)


def main():
    host, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rate = int(sys.argv[4])
    tls = "--tls" in sys.argv[5:]
    sock = socket.create_connection((host, port), timeout=30)
    if tls:
        try:
            sock = tls_h2(sock)
        except RuntimeError as e:
            print(f"got 0 done False goaways 0 err {e}")
            return
    conn = h2_client(window=8 << 20)
    conn.initiate_connection()
    conn.increment_flow_control_window(24 << 20)
    conn.send_headers(1, [(":method", "GET"), (":path", path),
                          (":scheme", "https" if tls else "http"),
                          (":authority", host)], end_stream=True)
    sock.sendall(conn.data_to_send())
    buf, got, unacked, goaways = b"", 0, 0, 0
    done, err, start = False, None, time.monotonic()
    while not done:
        try:
            data = sock.recv(16384)
        except OSError as e:
            err = e.strerror or str(e)
            break
        if not data:
            err = "eof"
            break
        buf += data
        out = b""
        while len(buf) >= 9:
            n = int.from_bytes(buf[:3], "big")
            kind, flags = buf[3], buf[4]
            if len(buf) < 9 + n:
                break
            payload, buf = buf[9:9 + n], buf[9 + n:]
            if kind == 0:  # DATA
                got += n
                unacked += n
                done = done or bool(flags & 1)
            elif kind == 3:  # RST_STREAM
                err, done = "rst_stream", True
            elif kind == 4 and not flags & 1:  # SETTINGS
                out += frame(4, 1, 0, b"")
            elif kind == 6 and not flags & 1:  # PING
                out += frame(6, 1, 0, payload)
            elif kind == 7:  # GOAWAY
                goaways += 1
        if unacked >= 1 << 20:
            inc = struct.pack(">I", unacked)
            out += frame(8, 0, 0, inc) + frame(8, 0, 1, inc)
            unacked = 0
        if out:
            try:
                sock.sendall(out)
            except OSError as e:
                err = e.strerror or str(e)
                break
        ahead = got / rate - (time.monotonic() - start)
        if ahead > 0:
            time.sleep(ahead)
    print(f"got {got} done {done} goaways {goaways} err {err}")


if __name__ == "__main__":
    main()
