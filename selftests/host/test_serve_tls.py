#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`tdctl serve --web.config.file`: TLS and basic authentication as
Prometheus exporters do them, scraped by the real Prometheus; and the
drop to an unprivileged user without capabilities.

Certificates are made here with openssl (a CA, the server's for
127.0.0.1, a client's); the bcrypt hash with libxcrypt's crypt() through
ctypes. serve runs inside rdbench (fake rings, a known workload, as in
test_serve.py) with the web configuration of Documentation/install.rst
(TLS, a client certificate required and verified, one user). Then:

  - Prometheus with the right scheme, CA, client certificate and password
    scrapes it (up 1, every record counted); jobs with a wrong password,
    no password and plain HTTP are refused (up 0);
  - the same by hand: no password, a wrong password, an unknown user: 401;
    plain HTTP to the TLS port: no metrics; no client certificate: the
    handshake fails;
  - web configurations serve cannot fully honour are refused, exit 1,
    the key named;
  - run as root, serve becomes nobody with no capability left
    (/proc/PID/status: Uid, Gid, Groups, the five capability sets,
    NoNewPrivs).

SKIP without prometheus or openssl. TAP.
"""
import base64
import ctypes
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
from tap import TDCTL, main, ok, require, test  # noqa: E402
from test_serve import (OUT, RDBENCH, free_port, query, stop,  # noqa: E402
                        SET_FIXTURE)

N, CPUS = 6000, 2
USER, PASSWORD = "prometheus", "s3cret pass:word"


def bcrypt(password, cost=10):
    lib = ctypes.CDLL("libcrypt.so.1")
    lib.crypt_gensalt.restype = ctypes.c_char_p
    lib.crypt.restype = ctypes.c_char_p
    salt = lib.crypt_gensalt(b"$2b$", cost, None, 0)
    return lib.crypt(password.encode(), salt).decode()


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True,
                   capture_output=True)


def make_certs(d):
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
            "-subj", "/CN=topdown test CA", cwd=d)
    for name, ext in (("server", "subjectAltName=IP:127.0.0.1,DNS:localhost"),
                      ("client", "extendedKeyUsage=clientAuth")):
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-nodes", "-keyout", name + ".key", "-out", name + ".csr",
                "-subj", "/CN=" + name, cwd=d)
        with open(os.path.join(d, name + ".ext"), "w") as fh:
            fh.write(ext + "\n")
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey",
                "ca.key", "-CAcreateserial", "-out", name + ".crt", "-days", "2",
                "-extfile", name + ".ext", cwd=d)
    os.chmod(os.path.join(d, "server.key"), 0o600)


def https(port, d, auth=None, cert=True, path="/metrics"):
    """(status, body) over TLS, or (None, error text)."""
    ctx = ssl.create_default_context(cafile=os.path.join(d, "ca.crt"))
    if cert:
        ctx.load_cert_chain(os.path.join(d, "client.crt"), os.path.join(d, "client.key"))
    hdr = "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n" % path
    if auth:
        hdr += "Authorization: Basic %s\r\n" % base64.b64encode(
            ("%s:%s" % auth).encode()).decode()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                s.sendall((hdr + "\r\n").encode())
                out = b""
                while True:
                    b = s.recv(65536)
                    if not b:
                        break
                    out += b
    except (OSError, ssl.SSLError) as e:
        return None, str(e)
    head, _, body = out.partition(b"\r\n\r\n")
    return int(head.split()[1]), body.decode(errors="replace")


def plain(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            out = b""
            while True:
                b = s.recv(65536)
                if not b:
                    break
                out += b
            return out
    except OSError as e:
        return str(e).encode()


def wait_tls(port, d):
    for _ in range(100):
        st, _ = https(port, d, (USER, PASSWORD))
        if st:
            return st
        time.sleep(0.2)
    return None


def status_of(pid):
    with open("/proc/%d/status" % pid) as fh:
        return dict(ln.rstrip("\n").split(":\t", 1) for ln in fh if ":\t" in ln)


def serve_pid(parent):
    """rdbench runs serve's code in its own process."""
    return parent.pid


def check_refused_configs(d):
    good_users = "basic_auth_users:\n  %s: %s\n" % (USER, bcrypt(PASSWORD, 4))
    cases = [
        ("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
         "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
         "cipher_suites: TLS_AES_128_GCM_SHA256 is a TLS 1.3 suite"),
        # Go's insecure list: exporter-toolkit refuses it too.
        ("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
         "  cipher_suites: [TLS_RSA_WITH_AES_128_CBC_SHA]\n",
         "'TLS_RSA_WITH_AES_128_CBC_SHA' is not one of"),
        ("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
         "  curve_preferences: [X448]\n", "'X448' is not one of"),
        ("tls_server_config:\n  cert_file: server.crt\n", "missing key_file"),
        # Not accepted and then failing every TLS 1.0 handshake.
        ("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
         "  min_version: TLS10\n", "min_version: TLS10 is not supported"),
        ("tls_server_config:\n  cert_file: server.crt\n  key_file: nothere.key\n",
         "cannot use key_file"),
        ("tls_server_config:\n  cert_file: server.crt\n  key_file: ca.key\n",
         "key values mismatch"),
        ("http_server_config:\n  http2: true\n" + good_users, "http2: true is not supported"),
        ("basic_auth_users:\n  prom: plaintext\n", "not a bcrypt hash"),
        ("web:\n  x: 1\n", "unknown key 'web'"),
    ]
    for text, why in cases:
        path = os.path.join(d, "bad.yml")
        with open(path, "w") as fh:
            fh.write(text)
        p = subprocess.run([TDCTL, "serve", "--listen", "127.0.0.1:%d" % free_port(),
                            "--web.config.file", path, "--duration", "1"],
                           capture_output=True, text=True, timeout=30)
        ok(p.returncode == 1 and why in p.stderr and "--web.config.file" in p.stderr,
           "refused: %s (exit %d)" % (why, p.returncode), p.stderr)


def server_cert(port):
    """The DER certificate serve presents (no verification)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                return s.getpeercert(binary_form=True)
    except (OSError, ssl.SSLError):
        return None


def s_client(port, *args):
    """Does a handshake with openssl s_client and these options succeed?"""
    p = subprocess.run(["openssl", "s_client", "-connect", "127.0.0.1:%d" % port,
                        "-brief"] + list(args), stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=20)
    return p.returncode == 0


def tls12_suites(port, names):
    """The TLS 1.2 suites of names a handshake succeeds with."""
    return {n for n in names if s_client(port, "-tls1_2", "-cipher", n + ":@SECLEVEL=0")}


def check_ciphers(d, fixture):
    """With an RSA certificate, TLS 1.2 offers ECDHE with AEAD suites only
    by default (as Go does); cipher_suites and curve_preferences, in
    exporter-toolkit's (Go's) names, are honoured."""
    c = os.path.join(d, "rsa")
    os.mkdir(c)
    os.chmod(c, 0o755)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key",
            "-out", "server.crt", "-days", "2", "-subj", "/CN=rsa", cwd=c)
    for f in ("server.crt", "server.key"):
        os.chmod(os.path.join(c, f), 0o644)
    p = subprocess.run(["openssl", "ciphers", "-v", "ALL:@SECLEVEL=0"],
                       capture_output=True, text=True, check=True)
    names = [ln.split()[0] for ln in p.stdout.splitlines()
             if ln.split()[1] in ("TLSv1.2", "TLSv1", "SSLv3") and "Au=RSA" in ln]
    cases = [
        ("", {"ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384",
              "ECDHE-RSA-CHACHA20-POLY1305"}),
        ("  cipher_suites:\n    - TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA\n"
         "    - TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384\n"
         "  curve_preferences: [CurveP384]\n",
         {"ECDHE-RSA-AES128-SHA", "ECDHE-RSA-AES256-GCM-SHA384"}),
    ]
    for extra, want in cases:
        web = os.path.join(c, "web.yml")
        with open(web, "w") as fh:
            fh.write("tls_server_config:\n  cert_file: server.crt\n"
                     "  key_file: server.key\n" + extra)
        port = free_port()
        p = subprocess.Popen(
            [RDBENCH, "--fixture", fixture, "-n", "100", "--cpus", "2", "--live",
             "--rate", "1e9", "--", "serve", "--listen", "127.0.0.1:%d" % port,
             "--web.config.file", web, "--duration", "60"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                if s_client(port):
                    break
                time.sleep(0.1)
            got = tls12_suites(port, names)
            ok(got == want, "TLS 1.2 with an RSA certificate, %s: %d suites of %d "
               "tried, %s" % ("cipher_suites and curve_preferences" if extra else
                              "by default", len(got), len(names), sorted(got)),
               "want %s" % sorted(want))
            if extra:
                ok(s_client(port, "-groups", "P-384") and
                   not s_client(port, "-groups", "X25519") and
                   not s_client(port, "-tls1_2", "-groups", "X25519"),
                   "curve_preferences [CurveP384]: P-384 only, TLS 1.2 and 1.3")
        finally:
            stop(p)


def check_reload(d, fixture):
    """SIGHUP reloads the web configuration and certificates; serve goes
    on serving (a SIGHUP used to stop it with status 0, which
    Restart=on-failure does not restart). A file that does not load
    keeps the old configuration."""
    r = os.path.join(d, "reload")
    os.mkdir(r)
    os.chmod(r, 0o755)
    for f in ("server.crt", "server.key"):
        shutil.copy(os.path.join(d, f), r)
        os.chmod(os.path.join(r, f), 0o644)     # for the user serve becomes
    web = os.path.join(r, "web.yml")
    with open(web, "w") as fh:
        fh.write("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n")
    port = free_port()
    p = subprocess.Popen(
        [RDBENCH, "--fixture", fixture, "-n", "100", "--cpus", "2", "--live",
         "--rate", "1e9", "--", "serve", "--listen", "127.0.0.1:%d" % port,
         "--web.config.file", web, "--duration", "30"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        old = None
        for _ in range(100):
            old = server_cert(port)
            if old:
                break
            time.sleep(0.1)
        # A new key and certificate in place of the old ones.
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:P-256", "-nodes", "-keyout", "new.key",
                "-out", "new.crt", "-days", "2", "-subj", "/CN=rotated", cwd=r)
        for f in ("new.crt", "new.key"):
            os.chmod(os.path.join(r, f), 0o644)
        os.rename(os.path.join(r, "new.key"), os.path.join(r, "server.key"))
        os.rename(os.path.join(r, "new.crt"), os.path.join(r, "server.crt"))
        p.send_signal(signal.SIGHUP)
        time.sleep(1)
        new = server_cert(port)
        ok(p.poll() is None, "SIGHUP: serve goes on (exit status %r)" % p.poll())
        ok(old and new and new != old,
           "SIGHUP: the new certificate is served (%d bytes, was %d)" %
           (len(new or b""), len(old or b"")))
        # A configuration that does not load: the old one stays.
        with open(web, "w") as fh:
            fh.write("tls_server_config:\n  cert_file: server.crt\n  key_file: gone.key\n")
        p.send_signal(signal.SIGHUP)
        time.sleep(1)
        ok(p.poll() is None and server_cert(port) == new,
           "SIGHUP with a key that cannot be read: serve goes on, same certificate")
    finally:
        stop(p)
        err = p.stderr.read().decode(errors="replace")
    ok("gone.key" in err and "reload" in err,
       "the failed reload is reported, naming the file", err[-600:])


def run(d):
    make_certs(d)
    fx = os.path.join(d, "fx")
    subprocess.run([os.path.join(OUT, "mkfixture"), fx, SET_FIXTURE], check=True,
                   stdout=subprocess.DEVNULL)
    web = os.path.join(d, "web.yml")
    # As in Documentation/install.rst (relative paths: the file's folder).
    with open(web, "w") as fh:
        fh.write("tls_server_config:\n"
                 "  cert_file: server.crt\n"
                 "  key_file: server.key\n"
                 "  client_auth_type: RequireAndVerifyClientCert\n"
                 "  client_ca_file: ca.crt\n"
                 "basic_auth_users:\n"
                 "  %s: %s\n" % (USER, bcrypt(PASSWORD)))
    check_refused_configs(d)
    check_reload(d, os.path.join(fx, SET_FIXTURE))
    check_ciphers(d, os.path.join(fx, SET_FIXTURE))
    port, prom = free_port(), free_port()
    procs = []
    try:
        log = open(os.path.join(d, "serve.log"), "w")
        procs.append(subprocess.Popen(
            [RDBENCH, "--fixture", os.path.join(fx, SET_FIXTURE), "-n", str(N),
             "--cpus", str(CPUS), "--live", "--rate", "1000", "--", "serve",
             "--listen", "127.0.0.1:%d" % port, "--web.config.file", web,
             "--by", "process", "--duration", "60"],
            stdout=log, stderr=subprocess.STDOUT))
        st = wait_tls(port, d)
        ok(st == 200, "TLS, client certificate and password: 200", st)
        if os.geteuid() == 0:
            s = status_of(serve_pid(procs[0]))
            caps = {k: s.get(k) for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")}
            ok(s["Uid"].split() == ["65534"] * 4 and s["Gid"].split() == ["65534"] * 4 and
               not s.get("Groups", "").strip() and
               all(v == "0000000000000000" for v in caps.values()) and
               s.get("NoNewPrivs") == "1",
               "run as root, serve is now nobody with no capability, no_new_privs",
               "%s %s %s %s" % (s["Uid"], s["Gid"], caps, s.get("NoNewPrivs")))
        else:
            ok(True, "privileges dropped # SKIP not root")
        st, body = https(port, d)
        ok(st == 401, "no password: 401", (st, body[:200]))
        st, body = https(port, d, (USER, "wrong"))
        ok(st == 401 and "topdown_" not in body, "a wrong password: 401", (st, body[:200]))
        st, body = https(port, d, ("mallory", PASSWORD))
        ok(st == 401, "an unknown user: 401", (st, body[:200]))
        r = plain(port)
        ok(b"topdown_" not in r and (not r or b"HTTPS server" in r or b"reset" in r),
           "plain HTTP to the TLS port: no metrics", r[:200])
        st, err = https(port, d, (USER, PASSWORD), cert=False)
        ok(st is None, "no client certificate: the handshake fails", err)

        with open(os.path.join(d, "prometheus.yml"), "w") as fh:
            tls = ("    tls_config:\n      ca_file: %s\n      cert_file: %s\n"
                   "      key_file: %s\n" % tuple(os.path.join(d, f) for f in
                                                  ("ca.crt", "client.crt", "client.key")))
            fh.write("global:\n  scrape_interval: 1s\nscrape_configs:\n")
            for job, scheme, auth in (("good", "https", PASSWORD), ("wrong", "https", "x"),
                                      ("nopass", "https", None), ("plain", "http", None)):
                fh.write("  - job_name: %s\n    scheme: %s\n" % (job, scheme))
                if scheme == "https":
                    fh.write(tls)
                if auth:
                    fh.write("    basic_auth:\n      username: %s\n      password: '%s'\n"
                             % (USER, auth))
                fh.write("    static_configs:\n      - targets: ['127.0.0.1:%d']\n" % port)
        plog = open(os.path.join(d, "prometheus.log"), "w")
        procs.append(subprocess.Popen(
            ["prometheus", "--config.file=" + os.path.join(d, "prometheus.yml"),
             "--storage.tsdb.path=" + os.path.join(d, "data"),
             "--web.listen-address=127.0.0.1:%d" % prom],
            stdout=plog, stderr=subprocess.STDOUT))
        up, recs = {}, []
        t0 = time.monotonic()
        while time.monotonic() - t0 < 40:
            try:
                up = {r["metric"]["job"]: r["value"][1] for r in query(prom, "up")}
                recs = query(prom, 'topdown_records_total{job="good"}')
            except (OSError, RuntimeError):
                pass
            if len(up) == 4 and recs and int(float(recs[0]["value"][1])) == N:
                break
            time.sleep(0.5)
        ok(up.get("good") == "1" and recs and int(float(recs[0]["value"][1])) == N,
           "Prometheus scrapes over TLS with a client certificate and basic auth: "
           "up 1, all %d records" % N, (up, recs))
        ok(up.get("wrong") == "0" and up.get("nopass") == "0" and up.get("plain") == "0",
           "Prometheus jobs with a wrong password, no password, plain HTTP: up 0", up)
    finally:
        for p in procs:
            stop(p)


def tools():
    for tool in ("prometheus", "openssl"):
        require(shutil.which(tool), "%s is not installed (scripts/deps.sh)" % tool)


@test
def serve_tls(tmp, rdbench):
    os.chmod(tmp, 0o755)
    run(tmp)


if __name__ == "__main__":
    main(setup=tools)
