#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""HTTP/2 streams against the descriptor budget, as an attacker holds them.

    h2_hold.py BENEATH_BIN

beneath is started four times: with the limits it gets and with
RLIMIT_NOFILE 4096 (podman's default), each attacked over h2c (prior
knowledge on a plain port) and over h2 on TLS. From 127.0.0.1, HOLD_CONNS
connections (--max-connections-per-ip, its maximum: one more is refused)
each ask STREAMS GETs of a 4 MiB file with SETTINGS_INITIAL_WINDOW_SIZE 0
and never open a window. For the whole hold (HOLD_S), clients from
127.0.0.2, .3 and .4 in turn must each be served within PROBE_S: HTTP/1.1,
h2, and a small file the reply cache holds. The serving process's
descriptors are sampled meanwhile: at most a socket and H2_FILES_PER_CONN
files a connection, and back to their count once the attacker leaves.

Then the trickle, with --timeout 3: one connection, STREAMS GETs, a
1-byte WINDOW_UPDATE on every stream every 2 s: each reply is reset or the
connection ended within TRICKLE_BOUND s, and the descriptors come back.

    h2_hold.py --measure URL_H2 URL_H1 PID [--conns N] [--hold S]

runs the hold alone against a server already running (bench/h2_hold.sh:
nginx and beneath), URL_H2 the attacked h2 (https://) or h2c (http://)
endpoint, URL_H1 where the HTTP/1.1 probes go (the same, or nginx's plain
port when its h2c port speaks only HTTP/2), PID the process started (its
child, when it has one, is the one watched); prints one line of figures
without judging.

Exit 0: served throughout and descriptors back; 1: not; 77: a tool is
missing.
"""
import os
import resource
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
    import h2.events
except ImportError as e:
    print(f"skip: python3-h2 missing ({e})")
    sys.exit(77)

HOLD_CONNS = 64  # --max-connections-per-ip's default
FILES_PER_CONN = 8  # H2_FILES_PER_CONN (server/transport/h2/h2.h)
STREAMS = 100  # SETTINGS_MAX_CONCURRENT_STREAMS
HOLD_S = 10  # the hold (under --timeout's default 30)
PROBE_S = 2.0  # a fresh client's bound
PROBERS = ("127.0.0.2", "127.0.0.3", "127.0.0.4")
TRICKLE_TIMEOUT = 3  # --timeout of the trickle's server
TRICKLE_BOUND = 3 * TRICKLE_TIMEOUT
SETTLE_S = 10  # for the descriptors to come back


def fds(pid):
    try:
        return len(os.listdir(f"/proc/{serving_pid(pid)}/fd"))
    except OSError:
        return -1


def fds_settled(pid, want, limit=SETTLE_S):
    """The count once it reaches @want or stops moving for 1 s, bounded."""
    end = time.monotonic() + limit
    last, since = fds(pid), time.monotonic()
    while time.monotonic() < end:
        time.sleep(0.1)
        n = fds(pid)
        if n == want:
            return n
        if n != last:
            last, since = n, time.monotonic()
        elif time.monotonic() - since > 1.0 and want is None:
            return n
    return last


class Conn:
    """One HTTP/2 client connection, plain (prior knowledge) or TLS."""

    def __init__(self, url, src="127.0.0.1", window=None):
        tls = url.startswith("https://")
        host, port = url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
        raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        raw.settimeout(5)
        raw.bind((src, 0))
        raw.connect((host, int(port)))
        if tls:
            raw = tls_h2(raw)
        raw.setblocking(False)
        self.s = raw
        self.closed = False
        self.goaway = None
        self.reset = {}  # stream -> error code
        self.headers = set()  # streams answered
        self.conn = h2_client(window)
        self.conn.initiate_connection()
        self.host = host
        self.flush()

    def fileno(self):
        return self.s.fileno()

    def flush(self):
        data = self.conn.data_to_send()
        view = memoryview(data)
        end = time.monotonic() + 5
        while view and not self.closed and time.monotonic() < end:
            try:
                view = view[self.s.send(view):]
            except (ssl.SSLWantWriteError, ssl.SSLWantReadError,
                    BlockingIOError):
                self.pump(0.05)
            except OSError:
                self.closed = True

    def get(self, path):
        sid = self.conn.get_next_available_stream_id()
        self.conn.send_headers(sid, [(":method", "GET"), (":scheme", "http"),
                                     (":path", path),
                                     (":authority", self.host)],
                               end_stream=True)
        return sid

    def pump(self, wait):
        """Read what is there (waiting up to @wait s for the first)."""
        if self.closed:
            return
        pending = isinstance(self.s, ssl.SSLSocket) and self.s.pending()
        if not pending and not select.select([self.s], [], [], wait)[0]:
            return
        while not self.closed:
            try:
                data = self.s.recv(65536)
            except (ssl.SSLWantReadError, BlockingIOError):
                break
            except OSError:
                self.closed = True
                break
            if not data:
                self.closed = True
                break
            try:
                events = self.conn.receive_data(data)
            except Exception:
                self.closed = True
                break
            for ev in events:
                if isinstance(ev, h2.events.ResponseReceived):
                    self.headers.add(ev.stream_id)
                elif isinstance(ev, h2.events.StreamReset):
                    self.reset[ev.stream_id] = ev.error_code
                elif isinstance(ev, h2.events.ConnectionTerminated):
                    self.goaway = ev.error_code
        if not self.closed:
            self.flush()

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass
        self.closed = True


def curl(args, src):
    """A fresh client from @src: (ok, seconds)."""
    t0 = time.monotonic()
    r = subprocess.run(
        ["curl", "-sk", "-o", "/dev/null", "-w", "%{http_code}",
         "--interface", src, "--max-time", str(PROBE_S + 3)] + args,
        capture_output=True, text=True)
    took = time.monotonic() - t0
    return r.stdout.strip() == "200", took


def probe_kinds(url_h2, url_h1):
    h2flag = "--http2" if url_h2.startswith("https://") else \
        "--http2-prior-knowledge"
    return [
        ("HTTP/1.1", ["--http1.1", url_h1 + "/index.html"]),
        ("h2", [h2flag, url_h2 + "/index.html"]),
        ("h2, cached small file", [h2flag, url_h2 + "/small.css"]),
    ]


def hold(url_h2, url_h1, pid, conns=HOLD_CONNS, hold_s=HOLD_S):
    """The hold: returns a dict of figures."""
    kinds = probe_kinds(url_h2, url_h1)
    for _, args in kinds:  # the small file into the reply cache
        curl(args, PROBERS[0])
    fds0 = fds_settled(pid, None)
    attackers, refused, peak = [], 0, [fds0]
    for _ in range(conns + 1):
        try:
            c = Conn(url_h2, window=0)
            for _ in range(STREAMS):
                c.get("/big.bin")
            c.flush()
            attackers.append(c)
        except (OSError, RuntimeError):
            refused += 1
        peak[0] = max(peak[0], fds(pid))
    # one more than the per-address limit: it must be closed at once
    for c in attackers:
        c.pump(0)
    time.sleep(0.5)
    for c in attackers:
        c.pump(0)
    held = sum(1 for c in attackers if not c.closed)
    stop = threading.Event()

    def keep():
        while not stop.is_set():
            ready = select.select([c for c in attackers if not c.closed],
                                  [], [], 0.2)[0]
            for c in ready:
                c.pump(0)
            peak[0] = max(peak[0], fds(pid))

    th = threading.Thread(target=keep)
    th.start()
    probes, slow, failed = [], [], []
    t0 = time.monotonic()
    i = 0
    while time.monotonic() - t0 < hold_s:
        name, args = kinds[i % len(kinds)]
        src = PROBERS[i % len(PROBERS)]
        ok, took = curl(args, src)
        probes.append(took)
        if not ok:
            failed.append(f"{name} from {src}")
        elif took > PROBE_S:
            slow.append(f"{name} from {src}: {took:.2f} s")
        i += 1
        time.sleep(0.1)
    alive = sum(1 for c in attackers if not c.closed)
    answered = sum(len(c.headers) for c in attackers)
    stop.set()
    th.join()
    for c in attackers:
        c.close()
    back = fds_settled(pid, fds0)
    return {
        "held": held, "alive_at_end": alive, "refused": refused,
        "answered": answered, "fds0": fds0, "peak": peak[0], "back": back,
        "probes": len(probes), "failed": failed, "slow": slow,
        "max_probe": max(probes, default=0.0),
    }


def trickle(url_h2, pid):
    """One connection, STREAMS GETs, a byte of window each every 2 s."""
    fds0 = fds_settled(pid, None)
    c = Conn(url_h2, window=0)
    sids = [c.get("/big.bin") for _ in range(STREAMS)]
    c.flush()
    t0 = time.monotonic()
    peak = fds(pid)
    ended = None
    next_grant = t0 + 2
    while time.monotonic() - t0 < TRICKLE_BOUND + 2:
        c.pump(0.1)
        peak = max(peak, fds(pid))
        open_ = [s for s in sids if s in c.headers and s not in c.reset]
        if c.closed or c.goaway is not None or (c.headers and not open_):
            ended = time.monotonic() - t0
            break
        if time.monotonic() >= next_grant:
            for s in open_:
                try:
                    c.conn.increment_flow_control_window(1, stream_id=s)
                except Exception:
                    pass
            c.flush()
            next_grant += 2
    c.close()
    back = fds_settled(pid, fds0)
    return {"ended": ended, "answered": len(c.headers),
            "reset": sum(1 for e in c.reset.values() if e == 8),
            "goaway": c.goaway, "fds0": fds0, "peak": peak, "back": back}


def start(binary, www, tmp, nofile, timeout=None):
    def limit():
        if nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    args = [binary, "--listen", "127.0.0.1:0", "--listen",
            "https://127.0.0.1:0", "--tls-self-signed", "--access-log", "off"]
    if timeout:
        args += ["--timeout", str(timeout)]
    return start_beneath(args + [www], tmp, 2, limit)


def make_www(tmp):
    www = os.path.join(tmp, "www")
    os.mkdir(www)
    with open(os.path.join(www, "index.html"), "w") as f:
        f.write("<!DOCTYPE html><title>hold</title><p>hello</p>\n")
    with open(os.path.join(www, "small.css"), "w") as f:
        f.write("body { color: black }\n")
    with open(os.path.join(www, "big.bin"), "wb") as f:
        f.write(os.urandom(4 << 20))
    return www


def judged(binary):
    failures = []
    with tempfile.TemporaryDirectory(prefix="beneath-h2-hold-") as tmp:
        www = make_www(tmp)
        for nofile in (None, 4096):
            for scheme in ("http", "https"):
                proc, err, urls = start(binary, www, tmp, nofile)
                what = (f"{'h2c' if scheme == 'http' else 'h2 over TLS'}, "
                        f"RLIMIT_NOFILE {nofile or 'as given'}")
                try:
                    if serving_pid(proc.pid) == proc.pid:
                        failures.append(f"{what}: no serving process to watch")
                        continue
                    r = hold(urls[scheme], urls[scheme], proc.pid)
                finally:
                    text = stop_beneath(proc, err)
                line = (f"{what}: {r['held']} connections held "
                        f"({r['refused']} refused, {r['alive_at_end']} open at "
                        f"the end), {r['answered']} streams answered; fds "
                        f"{r['fds0']} -> peak {r['peak']} -> {r['back']}; "
                        f"{r['probes']} fresh clients, slowest "
                        f"{r['max_probe']:.2f} s")
                bad = []
                if r["held"] != HOLD_CONNS:
                    bad.append(f"held {r['held']}, want {HOLD_CONNS} (one "
                               "more refused)")
                if r["failed"] or r["slow"]:
                    bad.append("not served: " + "; ".join(
                        (r["failed"] + r["slow"])[:5]))
                # a socket and at most FILES_PER_CONN files a connection
                budget = r["held"] * (1 + FILES_PER_CONN) + 16
                if r["peak"] - r["fds0"] > budget:
                    bad.append(f"{r['peak'] - r['fds0']} descriptors held, "
                               f"more than {budget}")
                if r["back"] != r["fds0"]:
                    bad.append("descriptors not back")
                if "Sanitizer" in text or "runtime error:" in text:
                    bad.append("sanitizer report:\n" + text[-2000:])
                if bad:
                    failures.append(f"{line}: " + "; ".join(bad))
                else:
                    print(f"ok: {line}", flush=True)
        for scheme in ("http", "https"):
            proc, err, urls = start(binary, www, tmp, None, TRICKLE_TIMEOUT)
            what = f"trickle, {'h2c' if scheme == 'http' else 'h2 over TLS'}"
            try:
                r = trickle(urls[scheme], proc.pid)
            finally:
                stop_beneath(proc, err)
            line = (f"{what}: {r['answered']} answered, {r['reset']} reset "
                    f"(CANCEL), GOAWAY {r['goaway']}, ended after "
                    f"{r['ended'] if r['ended'] is None else round(r['ended'], 2)}"
                    f" s (--timeout {TRICKLE_TIMEOUT}); fds {r['fds0']} -> "
                    f"peak {r['peak']} -> {r['back']}")
            if r["ended"] is None or r["ended"] > TRICKLE_BOUND:
                failures.append(f"{line}: not ended within {TRICKLE_BOUND} s")
            elif r["back"] != r["fds0"]:
                failures.append(f"{line}: descriptors not back")
            else:
                print(f"ok: {line}", flush=True)
    for f in failures:
        print(f"FAIL: {f}", flush=True)
    return 1 if failures else 0


def main():
    missing = curl_missing()
    if missing:
        print(f"skip: {missing}")
        return 77
    for src in PROBERS:
        try:
            s = socket.socket()
            s.bind((src, 0))
            s.close()
        except OSError as e:
            print(f"skip: cannot bind {src}: {e}")
            return 77
    if sys.argv[1] == "--measure":
        url_h2, url_h1, pid = sys.argv[2], sys.argv[3], int(sys.argv[4])
        conns = HOLD_CONNS
        hold_s = HOLD_S
        rest = sys.argv[5:]
        while rest:
            if rest[0] == "--conns":
                conns = int(rest[1])
            elif rest[0] == "--hold":
                hold_s = float(rest[1])
            rest = rest[2:]
        r = hold(url_h2, url_h1, pid, conns, hold_s)
        print(f"held={r['held']} refused={r['refused']} "
              f"open_at_end={r['alive_at_end']} answered={r['answered']} "
              f"fds0={r['fds0']} peak={r['peak']} back={r['back']} "
              f"probes={r['probes']} failed={len(r['failed'])} "
              f"slow={len(r['slow'])} max_probe={r['max_probe']:.2f}",
              flush=True)
        return 0
    return judged(sys.argv[1])


if __name__ == "__main__":
    sys.exit(main())
