#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""hold_conns.py PORT N PATH PROTO READY: open N connections to
127.0.0.1:PORT, one after the other; on each, one GET of PATH, its whole
response read (PROTO h1: HTTP/1.1 keep-alive; h2c: HTTP/2 with prior
knowledge, by python3-h2, the SETTINGS acknowledged; h2: the same over TLS,
ALPN h2, the certificate not checked), then silence. Writes
the count of connections that got their whole answer to READY, then holds
them all open until it is killed (bench/idle_conns.sh stops it by pid).
Exit 1 when a connection cannot be opened or answered (said on stderr)."""
import resource
import signal
import socket
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.events


def read_h1(s):
    """One HTTP/1.1 response, whole (Content-Length); its status."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("closed before the head")
        buf += chunk
    head, body = buf.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("closed in the body")
        body += chunk
    return int(head.split(b" ", 2)[1])


def get_h2c(s, path, port):
    """One GET over HTTP/2 with prior knowledge, its stream read to the end;
    the status. The connection stays open, its SETTINGS acknowledged."""
    c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    c.initiate_connection()
    c.send_headers(1, [(":method", "GET"), (":scheme", "http"),
                       (":authority", "127.0.0.1:%d" % port),
                       (":path", path)], end_stream=True)
    s.sendall(c.data_to_send())
    status, done = 0, False
    while not done:
        data = s.recv(65536)
        if not data:
            raise OSError("closed before the stream ended")
        for ev in c.receive_data(data):
            if isinstance(ev, h2.events.ResponseReceived):
                status = int(dict(ev.headers)[b":status"])
            elif isinstance(ev, h2.events.DataReceived):
                c.acknowledge_received_data(ev.flow_controlled_length,
                                            ev.stream_id)
            elif isinstance(ev, h2.events.StreamEnded):
                done = True
        out = c.data_to_send()
        if out:
            s.sendall(out)
    return status


def main():
    if len(sys.argv) != 6 or sys.argv[4] not in ("h1", "h2c", "h2"):
        sys.exit(__doc__)
    port, n, path, proto, ready = (int(sys.argv[1]), int(sys.argv[2]),
                                   sys.argv[3], sys.argv[4], sys.argv[5])
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(["h2"])
    held = []
    for i in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            if proto == "h2":
                s = ctx.wrap_socket(s, server_hostname="localhost")
                if s.selected_alpn_protocol() != "h2":
                    raise OSError("ALPN: %s" % s.selected_alpn_protocol())
            if proto == "h1":
                s.sendall(b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                          % path.encode())
                status = read_h1(s)
            else:
                status = get_h2c(s, path, port)
        except OSError as e:
            print("hold_conns: connection %d: %s" % (i + 1, e),
                  file=sys.stderr)
            break
        if status != 200:
            print("hold_conns: connection %d: status %d" % (i + 1, status),
                  file=sys.stderr)
            break
        held.append(s)
    with open(ready, "w") as f:
        f.write("%d\n" % len(held))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        time.sleep(3600)


main()
