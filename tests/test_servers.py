"""The test servers (``tests/servers.py``) die with the session that started them, however it
ends: a session killed before its fixtures stop them (SIGKILL, or a SIGTERM that skips the
teardown) leaves no PostgreSQL server and no Dask scheduler, nanny or worker running, and the
folders it leaves are removed by the next session's servers."""

from __future__ import annotations

import json
import signal
import tempfile
import textwrap
from pathlib import Path

import pytest

from tests.servers import OWNER_STAMP, process_identity, sweep_orphans
from tests.support import gone, outliving, stand_in_session

pytestmark = pytest.mark.slow  # a server and a cluster started and killed twice (about 15 s)

# A stand-in for a test session: it starts one server of each kind as the session fixtures do,
# prints every process they run, and waits to be killed.
SESSION = textwrap.dedent(
    """
    import json, os, time
    from pathlib import Path
    from tests import servers

    def descendants(root):
        children = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        found, todo = [], [root]
        while todo:
            for child in children.get(todo.pop(), []):
                found.append(child)
                todo.append(child)
        return found

    with servers.postgres_server() as pg, servers.dask_cluster(workers=1) as cluster:
        pids = {"postmaster": pg.pid, "workers": list(cluster.worker_pids.values()),
                "all": descendants(os.getpid())}
        print(json.dumps(pids), flush=True)
        time.sleep(300)
    """
)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_the_servers_die_with_the_session_that_started_them(sig: signal.Signals) -> None:
    with stand_in_session(SESSION) as (session, first_line):
        started = json.loads(first_line)
        pids = sorted(set(started["all"]))
        assert started["postmaster"] in pids and set(started["workers"]) <= set(pids)
        assert len(pids) >= 4  # the postmaster and its helpers, the scheduler, a nanny, a worker
        assert not any(gone(pid) for pid in pids)
        names = {pid: _name(pid) for pid in pids}
        owner = process_identity(session.pid)
        folders = [
            folder
            for prefix in PREFIXES
            for folder in Path(tempfile.gettempdir()).glob(prefix + "*")
            if _stamp(folder) == owner
        ]
        assert len(folders) == 2  # the server's and the cluster's, stamped with their owner
        session.send_signal(sig)
        session.wait(timeout=30)
        left = [f"{pid} {names[pid]}" for pid in outliving(pids, 60)]
        assert not left, f"outlived the session killed by {sig.name}: {left}"
    # No teardown ran, so the folders stay; the next session's servers remove them.
    assert all(folder.exists() for folder in folders)
    swept = [folder for prefix in PREFIXES for folder in sweep_orphans(prefix)]
    assert set(folders) <= set(swept)
    assert not any(folder.exists() for folder in folders)


PREFIXES = ("genstrat-pg-", "genstrat-dask-")


def _stamp(folder: Path) -> str | None:
    try:
        return (folder / OWNER_STAMP).read_text().strip()
    except OSError:
        return None


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")[:80]
    except OSError:
        return "?"
