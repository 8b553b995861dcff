"""The authenticating proxy of docs/DEPLOY.md, section 6, as the tests run it.

The commands DEPLOY.md shows are built here (``tests/test_deploy_docs.py`` compares them with
the document, line for line); ``tests/e2e/test_proxy_auth.py`` runs them with the files in a
temporary folder instead of ``/etc/nginx``, and runs Debian's nginx on the shipped site file
(``deploy/nginx/genstrat.conf``) with only its listen port, its upstream's port and three file
paths substituted.  ``make nginx`` installs Debian's ``nginx`` package if it is missing.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pty
import select
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from tests.support import REPO_ROOT, default_signals

SITE_FILE = REPO_ROOT / "deploy" / "nginx" / "genstrat.conf"

# Where DEPLOY.md puts things, and the names it uses.
WEB_PORT = 3000
HTPASSWD = "/etc/nginx/genstrat.htpasswd"
CERTIFICATE = "/etc/nginx/genstrat.crt"
KEY = "/etc/nginx/genstrat.key"
USER = "ada"
SERVER_NAME = "genstrat.example.org"
# What the tests substitute in the site file, each found there exactly once.
LISTEN = "listen 443 ssl;"
UPSTREAM = f"proxy_pass http://127.0.0.1:{WEB_PORT};"


def webserver_command(port: int = WEB_PORT) -> list[str]:
    """The webserver of a deployment: on the loopback interface only (DEPLOY.md, section 5)."""
    return ["dagster-webserver", "-h", "127.0.0.1", "-p", str(port), "-w", "workspace.yaml"]


def password_command(htpasswd: str = HTPASSWD, user: str = USER) -> str:
    """Writes ``user`` with a password ``openssl`` asks for twice on the terminal, as a
    SHA-512 crypt hash (nginx checks it with the C library's crypt)."""
    return f"printf '{user}:%s\\n' \"$(openssl passwd -6)\" > {htpasswd}"


def certificate_command(
    name: str = SERVER_NAME, certificate: str = CERTIFICATE, key: str = KEY
) -> str:
    """A self-signed certificate for ``name`` (a CA's certificate serves as well)."""
    return (
        f'openssl req -x509 -newkey rsa:3072 -nodes -days 365 -subj "/CN={name}" '
        f'-addext "subjectAltName=DNS:{name}" -keyout {key} -out {certificate}'
    )


def install_commands() -> list[str]:
    """The site file into Debian's nginx, checked and loaded (as root)."""
    return [
        "apt-get install nginx",
        f"cp {SITE_FILE.relative_to(REPO_ROOT)} /etc/nginx/sites-available/genstrat",
        "ln -s /etc/nginx/sites-available/genstrat /etc/nginx/sites-enabled/genstrat",
        "rm /etc/nginx/sites-enabled/default",
        f"chown root:www-data {HTPASSWD} {KEY} && chmod 640 {HTPASSWD} {KEY}",
        "nginx -t && nginx -s reload",
    ]


def run_on_a_terminal(command: str, answers: list[str], timeout_s: float = 60.0) -> str:
    """Run ``command`` with ``sh -c`` on a new pseudo-terminal, typing each of ``answers``
    (and Return) when the output so far ends with a prompt (``:``); return the output.  What
    an administrator does at ``openssl passwd``'s prompts."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the terminal's session leader
        os.execvp("sh", ["sh", "-c", command])
    output = b""
    pending = list(answers)
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise AssertionError(f"{command!r}: no end within {timeout_s:.0f} s: {output!r}")
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # EIO: the terminal's other side closed
                break
            if not chunk:
                break
            output += chunk
            if pending and output.rstrip().endswith(b":"):
                os.write(fd, pending.pop(0).encode() + b"\n")
                output += b"\n"
    finally:
        os.close(fd)
        _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise AssertionError(f"{command!r} failed: {output!r}")
    return output.decode(errors="replace")


def site_config(
    *, port: int, upstream_port: int, htpasswd: Path, certificate: Path, key: Path
) -> str:
    """The shipped site file, with what a test must put elsewhere substituted."""
    text = SITE_FILE.read_text()
    substitutions = {
        LISTEN: f"listen 127.0.0.1:{port} ssl;",
        UPSTREAM: f"proxy_pass http://127.0.0.1:{upstream_port};",
        f" {HTPASSWD};": f" {htpasswd};",
        f" {CERTIFICATE};": f" {certificate};",
        f" {KEY};": f" {key};",
    }
    for old, new in substitutions.items():
        assert text.count(old) == 1, f"{SITE_FILE} must hold {old!r} once"
        text = text.replace(old, new)
    return text


def main_config(root: Path, site: Path) -> str:
    """An nginx main configuration around ``site``: everything under ``root``, in the
    foreground (Debian's /etc/nginx/nginx.conf includes the sites the same way, in ``http``)."""
    user = "user root;\n" if os.geteuid() == 0 else ""  # root's workers read root's files
    temp = "\n".join(
        f"    {kind}_temp_path {root / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"{user}daemon off;\nworker_processes 1;\npid {root / 'nginx.pid'};\n"
        f"error_log {root / 'error.log'};\nevents {{ worker_connections 64; }}\n"
        f"http {{\n    access_log {root / 'access.log'};\n{temp}\n    include {site};\n}}\n"
    )


def nginx_binary() -> str:
    found = shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )
    if found is None:
        raise AssertionError("nginx is not installed: run 'make nginx' (make test does)")
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def nginx(root: Path, site_text: str, port: int, wait_s: float = 60.0) -> Iterator[None]:
    """Debian's nginx on ``site_text`` (listening on ``port``) under ``root``, checked with
    ``nginx -t`` first; stopped at the end, and when the test's process dies."""
    root.mkdir(parents=True, exist_ok=True)
    site = root / "site.conf"
    site.write_text(site_text)
    config = root / "nginx.conf"
    config.write_text(main_config(root, site))
    binary = nginx_binary()
    checked = subprocess.run(
        [binary, "-t", "-p", str(root), "-c", str(config)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr
    log = root / "nginx.out"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [binary, "-p", str(root), "-c", str(config)],
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=functools.partial(default_signals, os.getpid()),
        )
    try:
        deadline = time.monotonic() + wait_s
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                errors = (root / "error.log").read_text() if (root / "error.log").exists() else ""
                raise AssertionError(
                    f"nginx does not serve port {port}:\n{log.read_text()}{errors}"
                )
            time.sleep(0.1)
        yield
    finally:
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, sig)
            try:
                process.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue


def listening_addresses(port: int) -> set[str]:
    """The local IPv4 and IPv6 addresses on which a socket listens on ``port`` (from
    ``/proc/net/tcp`` and ``tcp6``)."""
    found = set()
    for table in ("tcp", "tcp6"):
        path = Path("/proc/net") / table
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state != "0A" or int(hex_port, 16) != port:  # 0A: LISTEN
                continue
            raw = bytes.fromhex(address)
            if table == "tcp":
                found.add(socket.inet_ntop(socket.AF_INET, raw[::-1]))
            else:  # four 32-bit words, each in the host's (little-endian) order
                words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
                found.add(socket.inet_ntop(socket.AF_INET6, words))
    return found
