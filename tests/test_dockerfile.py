"""The code location's image (Dockerfile, .dockerignore; docs/DEPLOY.md, section 7).

No container runtime here can build it: the runtimes Debian packages (podman, docker.io)
install, but the base image comes from a container registry this machine does not reach. So
the slow test runs the Dockerfile's own steps on this Debian 12 host, in a clean folder and a
clean venv: its apt-get line (when one of its packages is missing), ``python3 -m venv`` with
Debian's Python, each COPY (the sources the build context admits), the ``pip install`` line as
written, the instance file, then its CMD: the start-up check, and the code server, until it
answers a health check. The image's paths (``/opt/genstrat``, ``/var/lib/genstrat``) are mapped
into the test's folder; the only other difference is pip's download cache, kept between runs
(the image sets ``PIP_NO_CACHE_DIR`` to stay small).
"""

from __future__ import annotations

import fnmatch
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import REPO_ROOT

DOCKERFILE = REPO_ROOT / "Dockerfile"
DOCKERIGNORE = REPO_ROOT / ".dockerignore"
IMAGE_PREFIXES = ("/opt/genstrat", "/var/lib/genstrat")
PIP_CACHE = Path.home() / ".cache" / "genstrat-image-pip"


@dataclass(frozen=True)
class Step:
    instruction: str
    argument: str


def steps() -> list[Step]:
    """The Dockerfile's instructions, continuation lines joined, comments dropped."""
    lines: list[str] = []
    pending = ""
    for raw in DOCKERFILE.read_text().splitlines():
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        lines.append(pending + stripped)
        pending = ""
    return [Step(*line.split(None, 1)) for line in lines]


def of(kind: str) -> list[str]:
    return [step.argument for step in steps() if step.instruction == kind]


def env_values() -> dict[str, str]:
    values: dict[str, str] = {}
    for argument in of("ENV"):
        for pair in shlex.split(argument):
            name, _, value = pair.partition("=")
            values[name] = value
    return values


def ignored(relative: str) -> bool:
    """Whether ``.dockerignore`` keeps ``relative`` (a path in the repository) out of the build
    context: its patterns in order, the last match deciding, ``!`` admitting."""
    verdict = False
    for line in DOCKERIGNORE.read_text().splitlines():
        pattern = line.strip()
        if not pattern or pattern.startswith("#"):
            continue
        admit = pattern.startswith("!")
        pattern = pattern.lstrip("!").rstrip("/")
        parts = relative.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        names = [pattern, pattern.removeprefix("**/")]
        if any(fnmatch.fnmatch(p, n) for p in prefixes for n in names) or any(
            fnmatch.fnmatch(part, pattern.removeprefix("**/"))
            for part in parts
            if pattern.startswith("**/")
        ):
            verdict = not admit
    return verdict


def test_the_image_is_debian_12_with_the_sandbox_and_stockfish() -> None:
    assert steps()[0] == Step("FROM", "debian:bookworm-slim")  # Python 3.11, as pyproject says
    [apt] = [run for run in of("RUN") if "apt-get install" in run]
    packages = set(shlex.split(apt.split("apt-get install", 1)[1].split("&&")[0]))
    assert {"python3", "python3-venv", "bubblewrap", "stockfish"} <= packages
    assert "/usr/games" in env_values()["PATH"]  # where Debian puts stockfish


def test_every_package_is_copied_and_the_pins_are_used() -> None:
    packages = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"
    ]["find"]["include"]
    copied = {shlex.split(c)[0] for c in of("COPY")}
    assert {p.rstrip("*") for p in packages} <= copied
    for source in copied:
        assert (REPO_ROOT / source).exists(), source
        assert not ignored(source), f".dockerignore keeps {source} out of the build"
    [pip] = [run for run in of("RUN") if "pip install" in run]
    assert shlex.split(pip) == ["pip", "install", "-c", "constraints.txt", "."]


def test_the_build_context_leaves_out_the_machines_state() -> None:
    for kept_out in (
        ".venv/bin/python",
        ".git/config",
        "data/demo/edition-1/seed_pool.parquet",
        ".dagster_home/dagster.yaml",
        "build/engine/manifest.json",
        "releases_store/index.json",
        "tests/conftest.py",
        "arena/__pycache__/files.cpython-311.pyc",
    ):
        assert ignored(kept_out), kept_out
    assert not ignored("arena/files.py")
    assert not ignored("deploy/dagster.postgres.yaml")


def test_the_container_starts_with_the_check_then_the_code_server() -> None:
    [cmd] = of("CMD")
    script = json.loads(cmd)[-1]  # the exec (JSON array) form
    check, serve = script.split(" && ")
    assert check == "genstrat deploy check"
    assert serve.startswith("exec dagster code-server start ")
    assert serve.endswith("-m pipelines.definitions")


def mapped(text: str, root: Path) -> str:
    for prefix in IMAGE_PREFIXES:
        text = text.replace(prefix, str(root / prefix.strip("/").replace("/", "-")))
    return text


def wait_for(done: Callable[[], bool], what: str, timeout_s: float) -> None:
    """Poll ``done`` until it holds (a deadline only to end a hung test)."""
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout_s:.0f} s")
        time.sleep(0.5)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """The Dockerfile's steps run in a clean folder: the image's root and its environment."""
    root = tmp_path_factory.mktemp("image")
    env = {"HOME": str(root / "home"), "PIP_CACHE_DIR": str(PIP_CACHE)}
    for name, value in env_values().items():
        env[name] = mapped(value, root)
    env.pop("PIP_NO_CACHE_DIR")
    workdir = root
    for step in steps():
        if step.instruction == "WORKDIR":
            workdir = Path(mapped(step.argument, root))
            workdir.mkdir(parents=True, exist_ok=True)
        elif step.instruction == "COPY":
            *sources, target = shlex.split(step.argument)
            destination = workdir / mapped(target, root) if not target.startswith("/") else None
            for source in sources:
                place = destination or Path(mapped(target, root))
                origin = REPO_ROOT / source
                if origin.is_dir():
                    shutil.copytree(
                        origin,
                        place,
                        ignore=lambda folder, names: [
                            n
                            for n in names
                            if ignored(str((Path(folder) / n).relative_to(REPO_ROOT)))
                        ],
                    )
                else:
                    place = place / source if target.endswith("/") else place
                    place.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(origin, place)
        elif step.instruction == "RUN":
            command = mapped(step.argument, root)
            if "apt-get install" in command:
                packages = shlex.split(command.split("apt-get install", 1)[1].split("&&")[0])
                names = [p for p in packages if not p.startswith("-")]
                missing = subprocess.run(
                    ["dpkg-query", "-W", *names], capture_output=True, check=False
                )
                if missing.returncode == 0:
                    continue  # installed on this host already: the line would change nothing
            done = subprocess.run(
                ["sh", "-c", command], cwd=workdir, env=env, capture_output=True, text=True
            )
            assert done.returncode == 0, f"RUN {step.argument}\n{done.stdout}\n{done.stderr}"
    yield workdir, env


@pytest.mark.slow
@pytest.mark.timeout(3600)  # a clean install of every pinned dependency, from PyPI at worst
def test_the_dockerfiles_steps_build_a_code_location_that_serves(
    image: tuple[Path, dict[str, str]],
) -> None:
    workdir, env = image
    venv = Path(env["VIRTUAL_ENV"])
    # the project comes from the venv, not from a checkout: pip installed it
    shown = subprocess.run(
        [venv / "bin" / "pip", "show", "-f", "genstrat"], env=env, capture_output=True, text=True
    )
    assert shown.returncode == 0 and "pipelines/definitions.py" in shown.stdout
    [cmd] = of("CMD")
    check, serve = json.loads(cmd)[-1].split(" && ")
    checked = subprocess.run(
        ["sh", "-c", check], cwd=workdir, env=env, capture_output=True, text=True, timeout=300
    )
    assert checked.returncode == 0, checked.stderr
    assert [line.split(":")[0] for line in checked.stdout.splitlines()] == [
        "storage",
        "working folder",
        "sandbox",
    ]
    port = free_port()
    # the container's interface is this machine's loopback here
    command = serve.removeprefix("exec ").replace("-h 0.0.0.0 -p 4000", f"-h 127.0.0.1 -p {port}")
    server = subprocess.Popen(
        shlex.split(command),
        cwd=workdir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:

        def healthy() -> bool:
            assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
            probe = subprocess.run(
                [venv / "bin" / "dagster", "api", "grpc-health-check", "-p", str(port)],
                env=env,
                capture_output=True,
            )
            return probe.returncode == 0

        wait_for(healthy, "the image's code server to answer", timeout_s=600)
        listed = subprocess.run(
            [venv / "bin" / "dagster", "asset", "list", "-m", "pipelines.definitions"],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert listed.returncode == 0, listed.stderr
        assert "release_bundle" in listed.stdout.split()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:  # a code server busy loading the graph
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
