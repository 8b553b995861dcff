"""Typed Dagster resources shared by every stage.

Settings are keyword-only fields; environment variables are read through ``dg.EnvVar`` when a
resource is used inside a run, never when this module is imported (so loading the Definitions
does no I/O and does not depend on the caller's environment).
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
from pydantic import Field
from upath import UPath

from assets.run_profiles import EDITION_ENV_VAR, PROFILE_ENV_VAR, Profile, get_profile

DATA_ENV_VAR = "GENSTRAT_DATA"
WORK_ENV_VAR = "GENSTRAT_WORK"
ROSTER_ENV_VAR = "GENSTRAT_ROSTER"
# Built-in bots only, so the demo needs no API key (assets/roster.py).
DEMO_ROSTER = Path(__file__).with_name("rosters") / "demo.yaml"
DEFAULT_DATA_DIR = "data"
LOCAL_LLM_ENV_VAR = "GENSTRAT_LOCAL_LLM_URL"


class ProjectPaths(dg.ConfigurableResource):
    """Where the project keeps its data: one storage URL for the asset tables and the values
    steps hand each other, and one POSIX working folder for the harness's files.

    **Storage** (``data_dir``, else ``$GENSTRAT_DATA``, else ``./data`` relative to the working
    directory; the Makefile exports ``GENSTRAT_DATA`` as the project's ``data/`` folder) is a
    folder or any URL that fsspec reads (``file:///srv/genstrat``, ``s3://bucket/genstrat``,
    ``memory://genstrat`` within one process), through ``upath.UPath``: a local folder, a
    shared volume or an object store is this one setting.  The IO managers
    (``pipelines/io_managers.py``) keep every table and step value there.

    **The working folder** (``work_dir``, else ``$GENSTRAT_WORK``, else the storage folder when
    that is local) holds what needs a POSIX file system: the tournament journals (appended,
    locked with ``fcntl``), the response cache (SQLite), the held-out games' key (created
    ``O_EXCL``, mode 0600), the strategy programs' files (bound into bubblewrap sandboxes) and
    the ablation, episode and program-track folders.  Storage at a URL that is not local needs
    it set; :meth:`root_path` says so in one line.  On a cluster, every worker that plays a
    game's tournament steps must see the same working folder.

    Both are split by profile and edition (``<root>/<profile>/edition-<n>/``,
    :meth:`storage_path` and :meth:`data_path`), so that profiles and editions materialized
    into one place never read each other's tables.  ``profile`` and ``edition`` are resolved as
    the ``profile`` resource resolves them (:class:`RunProfile`); the Definitions give both
    resources the same settings.
    """

    data_dir: str | None = Field(
        default=None,
        description=f"storage folder or URL of asset tables; default ${DATA_ENV_VAR}, else ./data",
    )
    work_dir: str | None = Field(
        default=None,
        description=f"POSIX working folder (journals, caches); default ${WORK_ENV_VAR}, "
        "else the storage folder when it is local",
    )
    profile: str | None = Field(
        default=None, description=f"profile name; default ${PROFILE_ENV_VAR}, else demo"
    )
    edition: int | None = Field(
        default=None, description=f"edition; default ${EDITION_ENV_VAR}, else the policy's"
    )

    def storage_root(self) -> UPath:
        """The storage folder or URL itself (not created); ``ValueError`` in one line for a
        URL whose scheme no installed fsspec file system reads."""
        configured = self.data_dir or dg.EnvVar(DATA_ENV_VAR).get_value(default=DEFAULT_DATA_DIR)
        assert configured is not None
        return storage_location(configured, DATA_ENV_VAR)

    def storage_path(self) -> UPath:
        """The folder of this profile's edition under the storage root (not created)."""
        return self.storage_root().joinpath(*self._namespace())

    def root_path(self) -> Path:
        """The working folder, as an absolute local path (not created); ``ValueError`` in one
        line when storage is not local and no working folder is configured."""
        configured = self.work_dir or dg.EnvVar(WORK_ENV_VAR).get_value()
        if configured:
            return Path(configured).expanduser().resolve()
        storage = self.storage_root()
        local = local_path(storage)
        if local is None:
            raise ValueError(
                f"{DATA_ENV_VAR} is {storage}, not a local folder; the tournament journals, the "
                f"response cache and the held-out key need a POSIX folder: set {WORK_ENV_VAR} "
                "to one (on a cluster, one that every worker sees)"
            )
        return local

    def data_path(self) -> Path:
        """The working folder of this profile's edition (not created)."""
        return self.root_path().joinpath(*self._namespace())

    def _namespace(self) -> list[str]:
        chosen = RunProfile(name=self.profile, edition=self.edition).get()
        return chosen.data_namespace.split("/")


def storage_location(configured: str, setting: str = DATA_ENV_VAR) -> UPath:
    """A folder (``~`` expanded, made absolute) or a URL as a ``UPath``; ``ValueError`` in one
    line naming ``setting`` for a URL no installed fsspec file system reads."""
    if "://" not in configured:
        return UPath(Path(configured).expanduser().resolve())
    try:
        return UPath(configured)
    except (ValueError, ImportError) as exc:
        raise ValueError(f"{setting}={configured} cannot be used: {exc}") from None


def local_path(location: UPath) -> Path | None:
    """``location`` as a local path when it is one (a folder, ``file://`` or ``local://``),
    else ``None`` (an object store, ``memory://``, ...)."""
    if isinstance(location, Path):
        return location
    if location.protocol in ("file", "local"):
        return Path(location.path)
    return None


class RunProfile(dg.ConfigurableResource):
    """The run profile (``demo``, ``tiny``, ``tiny-paper`` or ``paper``, see
    ``assets/run_profiles.py``) at its edition.

    ``name`` left unset means ``$GENSTRAT_PROFILE``, else ``demo``; ``edition`` left unset means
    ``$GENSTRAT_EDITION``, else the edition the profile's policy makes current today.
    """

    name: str | None = Field(
        default=None,
        description=f"profile name; default ${PROFILE_ENV_VAR}, else demo",
    )
    edition: int | None = Field(
        default=None,
        description=f"edition; default ${EDITION_ENV_VAR}, else the profile's current one",
    )

    def get(self) -> Profile:
        """Resolve the profile; ``ValueError`` with the valid choices for an unknown name."""
        chosen = self.name or dg.EnvVar(PROFILE_ENV_VAR).get_value()
        edition = self.edition or dg.EnvVar(EDITION_ENV_VAR).get_value()
        return get_profile(chosen or None, edition or None)


class LocalModel(dg.ConfigurableResource):
    """A local OpenAI-compatible model server (e.g. the bundled SmolLM2) that the ablations may
    use as players, program author and judge.

    ``url`` left unset means ``$GENSTRAT_LOCAL_LLM_URL``; neither set means no local model.
    """

    url: str | None = Field(
        default=None,
        description=f"base URL of the server; default ${LOCAL_LLM_ENV_VAR}, else none",
    )

    def base_url(self) -> str | None:
        """The server's base URL, or ``None`` when no local model is configured."""
        return self.url or dg.EnvVar(LOCAL_LLM_ENV_VAR).get_value() or None


class RosterFile(dg.ConfigurableResource):
    """The deployment's roster file: what ``roster`` reads when its run config names none (the
    UI's Materialize, ``make run``, ``follow_upstream``) and the file ``roster_sensor`` watches.

    ``path`` left unset means ``$GENSTRAT_ROSTER``, else the demo roster.
    """

    path: str | None = Field(
        default=None,
        description=f"roster YAML file; default ${ROSTER_ENV_VAR}, else the demo roster",
    )

    def file(self) -> Path:
        """The roster file as an absolute path (not read here)."""
        configured = self.path or dg.EnvVar(ROSTER_ENV_VAR).get_value()
        if not configured or not configured.strip():
            return DEMO_ROSTER
        return Path(configured).expanduser().resolve()
