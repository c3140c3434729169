#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""HTTP/2 load that lives through reloads (h2 over TLS, h2c by prior
knowledge), for tests/integration/reload_load.sh.

    h2_reload_load.py [--conns N] [--streams M] [--duration S] [--after S]
                      URL...

For each URL, N connections (8) each keep M GETs of its path (8) in
flight. A GOAWAY stops new streams on its connection (the first one a
draining beneath sends is the shutdown notice, last-stream-id 2^31-1, RFC
9113 6.8): the streams at or below its last-stream-id are finished, those
above it counted as refused; the connection is read to the server's end
(or DRAIN_S), closed, and another one made. So every connection slot goes
on through every reload, which h2load (nghttp2 1.52) does not: a client of
its stops for the rest of the run at its first GOAWAY.

SIGUSR1 marks the last reload: answers from then on are counted apart
(after_mark), and the run ends --after seconds later (2), or at --duration
(60) without the mark. The streams in flight are then finished, each
connection bounded by STALL_S without a byte from the server.

Prints one line a URL, "URL name=count ...":
  answered         2xx responses with their whole body
  non2xx           other statuses
  short            2xx whose body is not its content-length
  refused          in flight above a GOAWAY's last-stream-id
  reset            ended by RST_STREAM (any code)
  lost             in flight when the connection ended or failed, not
                   refused by a GOAWAY
  stalled          in flight STALL_S without a byte from the server
  connections      made (TCP, TLS and ALPN h2 done)
  connect_errors   connections not made
  goaways          GOAWAY frames; goaway_errors: those not NO_ERROR
  drained          connections that ended after a GOAWAY;
  min_drained      the fewest of one slot (a slot that stopped early
                   shows here)
  no_goaway        connections the server ended without a GOAWAY
  unanswered       connections that ended (GOAWAY, the server's end, an
                   error) without one answer
  after_mark       answered after SIGUSR1 (0 when none came)
  protocol_errors  frames python3-h2 refused (or the client failed on)
then "note: ..." lines saying what the client saw where a stream was
lost, refused, reset or stalled, or a connection failed (the first
NOTES). Exit 0 once it ran (the caller judges the figures), 2 on bad
arguments, 77 without python3-h2.
"""
import argparse
import signal
import socket
import sys
import threading
import time

from h2_common import tls_h2

try:
    import h2.config
    import h2.connection
    import h2.errors
    import h2.events
except ImportError as e:
    print(f"skip: python3-h2 missing ({e})")
    sys.exit(77)

STALL_S = 10.0  # streams in flight, no byte from the server
DRAIN_S = 5.0  # after a GOAWAY, every stream done: the server's end
NOTES = 20
NOTICE_ID = 2**31 - 1  # the shutdown notice's last-stream-id
COUNTS = ("answered", "non2xx", "short", "refused", "reset", "lost",
          "stalled", "connections", "connect_errors", "goaways",
          "goaway_errors", "drained", "min_drained", "no_goaway",
          "unanswered", "after_mark", "protocol_errors")

# python3-h2 (4.1) takes any GOAWAY for the connection's end: its state
# machine goes to CLOSED and the frames of the streams the GOAWAY lets
# finish are refused as a protocol error. Its receiving of a GOAWAY is
# replaced here by the event alone. Should h2 change, the first frame after
# a GOAWAY fails as a protocol error, counted: the run fails, it does not
# pass silently.
if not hasattr(h2.connection.H2Connection, "_receive_goaway_frame"):
    print("skip: this python3-h2 has no _receive_goaway_frame to replace")
    sys.exit(77)


class Client(h2.connection.H2Connection):
    """A client connection that finishes its streams after a GOAWAY."""

    def __init__(self):
        super().__init__(h2.config.H2Configuration(
            client_side=True, header_encoding="utf-8"))

    def _receive_goaway_frame(self, frame):
        ev = h2.events.ConnectionTerminated()
        ev.error_code = h2.errors._error_code_from_int(frame.error_code)
        ev.last_stream_id = frame.last_stream_id
        ev.additional_data = frame.additional_data or None
        return [], [ev]


class Run:
    """What the threads share: the clock, the mark, the counts, notes."""

    def __init__(self):
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.mark = None  # monotonic time of SIGUSR1
        self.t0 = time.monotonic()
        self.notes = []

    def note(self, text):
        with self.lock:
            if len(self.notes) < NOTES:
                self.notes.append(f"{time.monotonic() - self.t0:7.3f}s {text}")


class Slot(threading.Thread):
    """One connection at a time to @url, M streams in flight, reconnecting
    after each GOAWAY until the run stops."""

    def __init__(self, run, url, index, streams):
        super().__init__(daemon=True)
        self.run_ = run
        self.url = url
        self.index = index
        self.streams = streams
        self.tls = url.startswith("https://")
        hostport, _, path = url.split("//", 1)[1].partition("/")
        self.host, port = hostport.rsplit(":", 1)
        self.port = int(port)
        self.path = "/" + path
        self.authority = hostport
        self.n = dict.fromkeys(COUNTS, 0)
        self.conn_no = 0
        self.answers = 0  # of the connection being served

    def run(self):
        while not self.run_.stop.is_set():
            sock = self.connect()
            if sock is None:
                self.n["connect_errors"] += 1
                time.sleep(0.05)
                continue
            self.answers = 0
            try:
                if self.serve(sock) and not self.answers:
                    self.n["unanswered"] += 1
                    self.note("ended without one answer")
            except Exception as e:  # pylint: disable=broad-except
                # python3-h2 refused a frame (or the client failed on one):
                # counted and told, and the slot goes on
                self.n["protocol_errors"] += 1
                self.note(f"protocol error: {e!r}")
            finally:
                sock.close()

    def note(self, text):
        self.run_.note(f"{self.url} slot {self.index} conn {self.conn_no}: "
                       f"{text}")

    def connect(self):
        try:
            sock = socket.create_connection((self.host, self.port), timeout=5)
        except OSError as e:
            self.note(f"connect: {e!r}")
            return None
        if self.tls:
            try:
                sock = tls_h2(sock)
            except (OSError, RuntimeError) as e:
                sock.close()
                self.note(f"TLS: {e!r}")
                return None
        self.conn_no += 1
        self.n["connections"] += 1
        return sock

    def serve(self, sock):
        """One connection, to its end; the counts of its streams. True
        when the server or an error ended it, False at the run's end."""
        n = self.n
        conn = Client()
        conn.initiate_connection()
        inflight = {}  # stream id -> [status, content-length, body bytes]
        last = None  # the lowest last-stream-id of a GOAWAY
        goaway_at = None
        sock.settimeout(STALL_S)
        while True:
            stopping = last is not None or self.run_.stop.is_set()
            while not stopping and len(inflight) < self.streams:
                sid = conn.get_next_available_stream_id()
                conn.send_headers(sid, [(":method", "GET"),
                                        (":scheme",
                                         "https" if self.tls else "http"),
                                        (":authority", self.authority),
                                        (":path", self.path)],
                                  end_stream=True)
                inflight[sid] = [0, None, 0]
            out = conn.data_to_send()
            try:
                if out:
                    sock.sendall(out)
                if stopping and not inflight:
                    if last is None:
                        return False  # the run's end: nothing to wait for
                    left = goaway_at + DRAIN_S - time.monotonic()
                    if left <= 0:
                        self.note("the server did not end the connection "
                                  f"{DRAIN_S} s after its GOAWAY")
                        n["drained"] += 1
                        return True
                    sock.settimeout(left)
                data = sock.recv(65536)
            except socket.timeout:
                if inflight:
                    n["stalled"] += len(inflight)
                    self.note(f"{len(inflight)} streams stalled "
                              f"{STALL_S} s: {self.seen(inflight, last)}")
                    if last is not None:
                        n["drained"] += 1
                    return True
                continue
            except OSError as e:
                data = e
            if not isinstance(data, bytes) or not data:
                how = "end of stream" if data == b"" else repr(data)
                if inflight:
                    n["lost"] += len(inflight)
                    self.note(f"{len(inflight)} streams lost, {how}: "
                              f"{self.seen(inflight, last)}"
                              + (f", {1000 * (time.monotonic() - goaway_at):.0f}"
                                 " ms after the first GOAWAY"
                                 if goaway_at else ""))
                if last is None:
                    n["no_goaway"] += 1
                    if inflight or data != b"":
                        self.note(f"ended without a GOAWAY: {how}")
                else:
                    n["drained"] += 1
                return True
            for ev in conn.receive_data(data):
                if isinstance(ev, h2.events.ResponseReceived):
                    st = inflight.get(ev.stream_id)
                    if st is not None:
                        for k, v in ev.headers:
                            if k == ":status":
                                st[0] = int(v)
                            elif k == "content-length":
                                st[1] = int(v)
                elif isinstance(ev, h2.events.DataReceived):
                    conn.acknowledge_received_data(
                        ev.flow_controlled_length, ev.stream_id)
                    st = inflight.get(ev.stream_id)
                    if st is not None:
                        st[2] += len(ev.data)
                elif isinstance(ev, h2.events.StreamEnded):
                    st = inflight.pop(ev.stream_id, None)
                    if st is not None:
                        self.ended(st)
                elif isinstance(ev, h2.events.StreamReset):
                    if inflight.pop(ev.stream_id, None) is not None:
                        n["reset"] += 1
                        self.note(f"stream {ev.stream_id} reset "
                                  f"({ev.error_code!r})")
                elif isinstance(ev, h2.events.ConnectionTerminated):
                    n["goaways"] += 1
                    if ev.error_code != h2.errors.ErrorCodes.NO_ERROR:
                        n["goaway_errors"] += 1
                        self.note(f"GOAWAY {ev.error_code!r} "
                                  f"last {ev.last_stream_id}")
                    if goaway_at is None:
                        goaway_at = time.monotonic()
                    if last is None or ev.last_stream_id < last:
                        last = ev.last_stream_id
                    above = sorted(i for i in inflight if i > last)
                    if above:
                        n["refused"] += len(above)
                        self.note(f"GOAWAY last {last} refused streams "
                                  f"{above}")
                        for i in above:
                            del inflight[i]

    def ended(self, st):
        status, length, got = st
        if not 200 <= status < 300:
            self.n["non2xx"] += 1
        elif length is not None and length != got:
            self.n["short"] += 1
        else:
            self.n["answered"] += 1
            self.answers += 1
            mark = self.run_.mark
            if mark is not None and time.monotonic() >= mark:
                self.n["after_mark"] += 1

    @staticmethod
    def seen(inflight, last):
        """What the streams in flight had got, and the GOAWAY state."""
        heads = sum(1 for st in inflight.values() if st[0])
        state = ("no GOAWAY" if last is None else
                 "after the shutdown notice only" if last == NOTICE_ID else
                 f"after GOAWAY last {last}")
        return (f"ids {sorted(inflight)} ({heads} with their response head), "
                f"{state}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--conns", type=int, default=8)
    p.add_argument("--streams", type=int, default=8)
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--after", type=float, default=2.0)
    p.add_argument("urls", nargs="+")
    a = p.parse_args()

    run = Run()
    end = [run.t0 + a.duration]

    def marked(signum, frame):
        del signum, frame
        run.mark = time.monotonic()
        end[0] = min(end[0], run.mark + a.after)

    signal.signal(signal.SIGUSR1, marked)
    slots = [Slot(run, u, i, a.streams) for u in a.urls for i in range(a.conns)]
    for s in slots:
        s.start()
    while time.monotonic() < end[0] and any(s.is_alive() for s in slots):
        time.sleep(0.05)
    run.stop.set()
    bound = time.monotonic() + STALL_S + DRAIN_S + 5
    for s in slots:
        s.join(max(0.0, bound - time.monotonic()))
        if s.is_alive():
            s.n["stalled"] += 1
            run.note(f"{s.url} slot {s.index}: its thread did not end")
    for u in a.urls:
        mine = [s.n for s in slots if s.url == u]
        total = {k: sum(m[k] for m in mine) for k in COUNTS}
        total["min_drained"] = min(m["drained"] for m in mine)
        print(u, " ".join(f"{k}={total[k]}" for k in COUNTS))
    for t in run.notes:
        print("note:", t)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
