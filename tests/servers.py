"""Real servers for the deployment tests: a PostgreSQL server and a Dask cluster.

Each is a context manager that starts separate processes on 127.0.0.1, waits until they serve,
yields their connection settings, and at the end stops every process it started (also when the
body raises).  ``tests/conftest.py`` wraps them in session-scoped fixtures (``postgres_server``,
``dask_cluster``) so that one server and one cluster serve every test of a session;
``benchmarks/scaleout.py`` uses them directly.

PostgreSQL: ``initdb`` into a temporary folder (the password from a file, scram-sha-256 for
every connection), the ``postgres`` server started as a child process on a free port, one
database created over TCP.  The server refuses to run as root, so as root every PostgreSQL
command runs as the ``postgres`` user (``runuser``; the server itself takes that account's
ids before it starts), which owns the temporary folder.  The binaries are ``pg_ctl`` on
``PATH`` or Debian's ``/usr/lib/postgresql/<version>/bin``; ``make postgres`` installs them if
missing.

Dask: ``dask scheduler`` writes its address to a scheduler file; each ``dask worker`` process
(one worker, one thread, under its nanny) reads it.  Every process starts in its own session, so
stopping one is a signal to its process group (the nanny and the worker it forked).

Every server process is also told to stop when the thread that started it dies
(``PR_SET_PDEATHSIG``, ``tests.support.default_signals``): a test session killed
before its fixtures stop them (SIGKILL, a SIGTERM that skips the teardown, a lost xdist
worker) leaves no PostgreSQL server or Dask process running.  Only their temporary folders
stay behind then (``genstrat-pg-*``, ``genstrat-dask-*`` under the temporary directory, about
46 MB for a PostgreSQL one).  Each folder is stamped with the process that owns it (its id and
start time, so that a reused id does not pass for it), and the next server of the same kind
removes the folders whose owner is gone (``sweep_orphans``); a folder without a stamp (one
being created, or left by an older checkout) is left alone.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support import REPO_ROOT, default_signals

HOST = "127.0.0.1"
POSTGRES_USER = "genstrat"
POSTGRES_DB = "genstrat"
# The unprivileged account PostgreSQL runs as when the tests run as root (Debian's package
# creates it; ``nobody`` exists everywhere else).
POSTGRES_OS_USERS = ("postgres", "nobody")


OWNER_STAMP = "owner"
"""The file in a server's temporary folder naming the process that owns it."""


def process_identity(pid: int) -> str | None:
    """``"<pid> <start time>"`` for a running process (the start time in clock ticks since
    boot, field 22 of ``/proc/<pid>/stat``), None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # the fields after the command name
    return f"{pid} {fields[19]}"


def sweep_orphans(prefix: str, where: Path | None = None) -> list[Path]:
    """Remove the folders ``<where>/<prefix>*`` (default: the temporary directory) whose
    stamped owner no longer runs; return them.  A folder without a readable stamp is kept."""
    removed = []
    for folder in sorted((where or Path(tempfile.gettempdir())).glob(prefix + "*")):
        try:
            owner = (folder / OWNER_STAMP).read_text().strip()
            pid = int(owner.split()[0])
        except (OSError, ValueError, IndexError):
            continue
        if process_identity(pid) != owner:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def server_folder(prefix: str) -> Path:
    """A new temporary folder for a server, stamped with this process as its owner, after
    removing the orphaned folders of earlier sessions (``sweep_orphans``)."""
    sweep_orphans(prefix)
    root = Path(tempfile.mkdtemp(prefix=prefix))
    identity = process_identity(os.getpid())
    assert identity is not None
    stamp = root / (OWNER_STAMP + ".part")
    stamp.write_text(identity + "\n")
    stamp.replace(root / OWNER_STAMP)  # whole or absent: a sweep never reads half a stamp
    return root


class ServerError(RuntimeError):
    """A server did not start; the message names what failed and where its log is."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def log_tail(path: Path, lines: int = 15) -> str:
    """The last ``lines`` lines of the log at ``path`` ("(no log)" when it cannot be read)."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


# --- PostgreSQL -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PostgresServer:
    """How to reach a running PostgreSQL server (one database, one password user)."""

    host: str
    port: int
    user: str
    password: str
    db_name: str
    pid: int  # the postmaster

    def env(self) -> dict[str, str]:
        """The settings as the environment ``deploy/dagster.postgres.yaml`` reads."""
        return {
            "DAGSTER_PG_HOST": self.host,
            "DAGSTER_PG_PORT": str(self.port),
            "DAGSTER_PG_DB": self.db_name,
            "DAGSTER_PG_USER": self.user,
            "DAGSTER_PG_PASSWORD": self.password,
        }

    def connect(self, db_name: str | None = None) -> Any:
        """A psycopg2 connection to ``db_name`` (default: the server's database)."""
        import psycopg2  # type: ignore[import-untyped]  # no stubs in the environment

        return psycopg2.connect(
            host=self.host,
            port=self.port,
            user=self.user,
            password=self.password,
            dbname=db_name or self.db_name,
            connect_timeout=10,
        )


def postgres_bin_dir() -> Path:
    """The folder of ``initdb`` and ``pg_ctl``: from ``PATH``, else Debian's newest version."""
    found = shutil.which("pg_ctl")
    if found and Path(found).with_name("initdb").exists():
        return Path(found).resolve().parent
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if not versions:
        raise ServerError(
            "no PostgreSQL server binaries (pg_ctl, initdb) on PATH or in /usr/lib/postgresql; "
            "`make postgres` installs them"
        )
    return versions[-1].parent


def _os_user() -> pwd.struct_passwd | None:
    """The account to run PostgreSQL as: ``None`` (this one) unless this process is root."""
    if os.geteuid() != 0:
        return None
    for name in POSTGRES_OS_USERS:
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise ServerError(f"running as root and none of the accounts {POSTGRES_OS_USERS} exists")


@contextlib.contextmanager
def postgres_server(
    *, db_name: str = POSTGRES_DB, wait_s: float = 60.0
) -> Iterator[PostgresServer]:
    """Start a throwaway PostgreSQL server on 127.0.0.1, yield its settings, stop it.

    Steps: a temporary folder (owned by the server's account); ``initdb`` with a random
    password for the ``genstrat`` superuser; ``postgres`` on a free port (its Unix socket in
    the temporary folder, no fsync: the data is thrown away), a fast shutdown (SIGINT) if this
    thread dies first; ``CREATE DATABASE`` once it accepts connections; at the end ``pg_ctl
    stop -m fast`` (then ``immediate``, then a kill of the postmaster if it still runs) and the
    folder removed.
    """
    bin_dir = postgres_bin_dir()
    account = _os_user()
    prefix = ["runuser", "-u", account.pw_name, "--"] if account is not None else []
    root = server_folder("genstrat-pg-")
    data, log, pwfile = root / "data", root / "server.log", root / "password"
    password = secrets.token_hex(16)
    pwfile.write_text(password + "\n")
    if account is not None:
        for path in (root, pwfile):
            os.chown(path, account.pw_uid, account.pw_gid)
    pwfile.chmod(0o600)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*prefix, *args], capture_output=True, text=True, check=False, timeout=wait_s
        )

    port = free_port()
    server_process: subprocess.Popen[bytes] | None = None
    try:
        init = run(
            str(bin_dir / "initdb"), "-D", str(data), "-U", POSTGRES_USER,
            f"--pwfile={pwfile}", "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C",
            "--no-sync", "--no-instructions",
        )  # fmt: skip
        if init.returncode != 0:
            raise ServerError(f"initdb failed: {(init.stderr or init.stdout).strip()}")
        with open(log, "wb") as sink:
            server_process = subprocess.Popen(
                [
                    str(bin_dir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(root),
                    "-c", f"listen_addresses={HOST}", "-c", "fsync=off",
                ],
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=functools.partial(default_signals, os.getpid(), signal.SIGINT, account),
            )  # fmt: skip
        server = PostgresServer(HOST, port, POSTGRES_USER, password, db_name, server_process.pid)
        deadline = time.monotonic() + wait_s
        while True:
            try:
                admin = server.connect("postgres")
                break
            except Exception as exc:  # psycopg2.OperationalError: not accepting connections yet
                if server_process.poll() is not None:
                    raise ServerError(
                        f"postgres exited ({server_process.returncode}):\n{log_tail(log)}"
                    ) from None
                if time.monotonic() > deadline:
                    raise ServerError(f"postgres not serving after {wait_s:.0f} s: {exc}") from None
                time.sleep(0.2)
        with contextlib.closing(admin):
            admin.autocommit = True
            with admin.cursor() as cursor:
                cursor.execute(f'CREATE DATABASE "{db_name}"')
        yield server
    finally:
        if server_process is not None:
            if server_process.poll() is None:
                _stop_postgres(run, bin_dir, data)
            try:
                server_process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server_process.kill()
                server_process.wait()
        shutil.rmtree(root, ignore_errors=True)


def _postmaster_pid(data: Path) -> int | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        return int((data / "postmaster.pid").read_text().splitlines()[0])
    return None


def _stop_postgres(run: Any, bin_dir: Path, data: Path) -> None:
    """Stop the server in ``data``: a fast shutdown, else an immediate one, else a kill."""
    pid = _postmaster_pid(data)
    for mode in ("fast", "immediate"):
        done = run(str(bin_dir / "pg_ctl"), "stop", "-D", str(data), "-m", mode, "-w", "-t", "30")
        if done.returncode == 0:
            return
    if pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


# --- Dask ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DaskCluster:
    """A running Dask scheduler and its workers (separate processes on 127.0.0.1)."""

    address: str
    scheduler_file: Path
    # worker address -> pid of the process that runs its tasks (the nanny's child)
    worker_pids: Mapping[str, int]
    log_dir: Path
    env: Mapping[str, str] = field(default_factory=dict)

    def run_config(self) -> dict[str, object]:
        """Run config of ``scaleout_job`` for this cluster (docs/DEPLOY.md, section 3)."""
        return self.run_config_for(self.address)

    @staticmethod
    def run_config_for(address: str) -> dict[str, object]:
        """Run config of ``scaleout_job`` for the scheduler at ``address``."""
        return {"execution": {"config": {"cluster": {"existing": {"address": address}}}}}


def _dask_command() -> str:
    """The ``dask`` command of this interpreter's environment."""
    return str(Path(sys.executable).with_name("dask"))


def scheduler_command(scheduler_file: Path, dask: str = "dask") -> list[str]:
    """The scheduler's command line (docs/DEPLOY.md, section 3, shows it)."""
    return [
        dask, "scheduler", "--host", HOST, "--port", "0", "--no-dashboard",
        "--scheduler-file", str(scheduler_file),
    ]  # fmt: skip


def worker_command(scheduler_file: Path, dask: str = "dask") -> list[str]:
    """One worker's command line: one process, one thread (docs/DEPLOY.md, section 3)."""
    return [
        dask, "worker", "--scheduler-file", str(scheduler_file),
        "--nworkers", "1", "--nthreads", "1", "--host", HOST, "--no-dashboard",
    ]  # fmt: skip


def _start(command: list[str], log: Path, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    with open(log, "wb") as sink:
        return subprocess.Popen(
            command,
            stdout=sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=REPO_ROOT,
            env=dict(env),
            preexec_fn=functools.partial(default_signals, os.getpid()),
        )


def _alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def _stop_groups(processes: list[subprocess.Popen[bytes]], wait_s: float = 20.0) -> None:
    """SIGTERM to the process group of each of ``processes`` (each its own session), then
    SIGKILL to any group with a process left after ``wait_s``; reap the leaders."""
    for sig, wait in ((signal.SIGTERM, wait_s), (signal.SIGKILL, 5.0)):
        groups = [p.pid for p in processes if _alive(p.pid)]
        for group in groups:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, sig)
        deadline = time.monotonic() + wait
        while groups and time.monotonic() < deadline:
            for process in processes:
                process.poll()
            groups = [group for group in groups if _alive(group)]
            time.sleep(0.1)
    for process in processes:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)


def _dask_logs(root: Path) -> str:
    return "\n".join(f"{log.name}:\n{log_tail(log)}" for log in sorted(root.glob("*.log")))


@contextlib.contextmanager
def dask_cluster(
    *, workers: int = 2, env: Mapping[str, str] | None = None, wait_s: float = 90.0
) -> Iterator[DaskCluster]:
    """Start ``dask scheduler`` and ``workers`` ``dask worker`` processes, yield the cluster.

    Every process gets this process's environment plus ``env`` and ``PYTHONPATH`` set to the
    repository (the workers import the code location from it).  Steps: the scheduler on a free
    port with a scheduler file; each worker with one process and one thread; wait until all
    workers are registered; at the end stop the workers, then the scheduler.
    """
    from dask.distributed import Client

    root = server_folder("genstrat-dask-")
    scheduler_file = root / "scheduler.json"
    python_path = os.pathsep.join(
        p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p
    )
    full_env = {**os.environ, **(env or {}), "PYTHONPATH": python_path}
    # Each process's scratch space in the temporary folder, removed with it.
    full_env["DASK_TEMPORARY_DIRECTORY"] = str(root)
    dask = _dask_command()
    processes: list[subprocess.Popen[bytes]] = []
    try:
        scheduler = _start(
            scheduler_command(scheduler_file, dask), root / "scheduler.log", full_env
        )
        processes.append(scheduler)
        for index in range(workers):
            command = worker_command(scheduler_file, dask)
            processes.append(_start(command, root / f"worker-{index}.log", full_env))
        deadline = time.monotonic() + wait_s
        while not scheduler_file.exists():
            for process in processes:
                if process.poll() is not None:
                    raise ServerError(f"a Dask process exited early:\n{_dask_logs(root)}")
            if time.monotonic() > deadline:
                raise ServerError(f"no scheduler file after {wait_s:.0f} s:\n{_dask_logs(root)}")
            time.sleep(0.2)
        with Client(  # type: ignore[no-untyped-call]  # distributed does not annotate it
            scheduler_file=str(scheduler_file), timeout=wait_s
        ) as client:
            client.wait_for_workers(workers, timeout=max(1.0, deadline - time.monotonic()))
            pids = client.run(os.getpid)
        address = str(json.loads(scheduler_file.read_text())["address"])
        yield DaskCluster(address, scheduler_file, pids, root, env or {})
    finally:
        _stop_groups(processes[1:])  # the workers, then the scheduler
        _stop_groups(processes[:1])
        shutil.rmtree(root, ignore_errors=True)
