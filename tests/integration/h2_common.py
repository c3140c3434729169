# SPDX-License-Identifier: MIT
"""What the HTTP/2 scripts of tests/integration share: beneath started
and its URLs, the process that serves, the check for a curl that speaks
HTTP/2, and python3-h2's client side (imported only when asked for: the
scripts skip without it)."""
import os
import shutil
import ssl
import subprocess
import sys
import time


def serving_pid(pid):
    """The process that serves for the one started as @pid: its newest
    child when it has one (beneath's keeper serves through a child, nginx's
    master through its worker), else @pid itself (--sandbox off)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = f.read().split()
    except OSError:
        return pid
    return int(kids[-1]) if kids else pid


def curl_missing():
    """Why curl cannot be the fresh client (a line to print), or None."""
    if not shutil.which("curl"):
        return "curl not installed"
    if "HTTP2" not in subprocess.run(["curl", "--version"],
                                     capture_output=True, text=True).stdout:
        return "curl without HTTP/2"
    return None


def h2_client(window=None):
    """A client H2Connection (str header values) whose SETTINGS will say
    INITIAL_WINDOW_SIZE @window (None: the default); the caller sends its
    preface (initiate_connection)."""
    import h2.config
    import h2.connection
    import h2.settings

    conn = h2.connection.H2Connection(
        h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    if window is not None:
        conn.local_settings = h2.settings.Settings(
            client=True, initial_values={
                h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
    return conn


def tls_h2(raw):
    """@raw, a connected socket, in TLS as beneath's clients hold it: SNI
    localhost, the certificate not checked (--tls-self-signed), ALPN h2.
    RuntimeError (the TLS socket closed) when the server chose otherwise;
    @raw is the caller's to close when the handshake fails."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(["h2"])
    s = ctx.wrap_socket(raw, server_hostname="localhost")
    if s.selected_alpn_protocol() != "h2":
        chose = s.selected_alpn_protocol()
        s.close()
        raise RuntimeError(f"ALPN chose {chose}")
    return s


def start_beneath(args, tmp, listeners, preexec_fn=None):
    """Run beneath as @args (its stderr in @tmp/err) until it says it
    listens on @listeners URLs: (process, stderr file, {scheme: URL}).
    Exits with FAIL if it does not start."""
    err = open(os.path.join(tmp, "err"), "w+")
    proc = subprocess.Popen(args, stderr=err, preexec_fn=preexec_fn)
    urls = {}
    for _ in range(200):
        err.seek(0)
        for line in err.read().splitlines():
            if "listening on " in line:
                url = line.split("listening on ", 1)[1].strip()
                urls[url.split(":", 1)[0]] = url
        if len(urls) == listeners:
            return proc, err, urls
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    err.seek(0)
    sys.exit(f"FAIL: beneath did not start:\n{err.read()}")


def stop_beneath(proc, err):
    """SIGTERM, a bounded wait, SIGKILL: beneath's stderr."""
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    err.seek(0)
    return err.read()
