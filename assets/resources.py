"""Typed Dagster resources shared by every stage.

Settings are keyword-only fields; environment variables are read through ``dg.EnvVar`` when a
resource is used inside a run, never when this module is imported (so loading the Definitions
does no I/O and does not depend on the caller's environment).
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
from pydantic import Field

from assets.run_profiles import EDITION_ENV_VAR, PROFILE_ENV_VAR, Profile, get_profile

DATA_ENV_VAR = "GENSTRAT_DATA"
ROSTER_ENV_VAR = "GENSTRAT_ROSTER"
# Built-in bots only, so the demo needs no API key (assets/roster.py).
DEMO_ROSTER = Path(__file__).with_name("rosters") / "demo.yaml"
DEFAULT_DATA_DIR = "data"
LOCAL_LLM_ENV_VAR = "GENSTRAT_LOCAL_LLM_URL"


class ProjectPaths(dg.ConfigurableResource):
    """Where the project keeps its files on the local disk.

    ``data_dir`` left unset means ``$GENSTRAT_DATA``, else ``./data`` relative to the working
    directory (the Makefile exports ``GENSTRAT_DATA`` as the project's ``data/`` folder).  A
    materialization's files live under ``<data>/<profile>/edition-<n>/`` (:meth:`data_path`):
    the profile and edition are part of where data lives, so that profiles and editions
    materialized into one data folder never read each other's tables.  ``profile`` and
    ``edition`` are resolved as the ``profile`` resource resolves them (:class:`RunProfile`);
    the Definitions give both resources the same settings.
    """

    data_dir: str | None = Field(
        default=None,
        description=f"root folder of asset files; default ${DATA_ENV_VAR}, else ./data",
    )
    profile: str | None = Field(
        default=None, description=f"profile name; default ${PROFILE_ENV_VAR}, else demo"
    )
    edition: int | None = Field(
        default=None, description=f"edition; default ${EDITION_ENV_VAR}, else the policy's"
    )

    def root_path(self) -> Path:
        """The data folder itself, as an absolute path (not created)."""
        configured = self.data_dir or dg.EnvVar(DATA_ENV_VAR).get_value(default=DEFAULT_DATA_DIR)
        assert configured is not None
        return Path(configured).expanduser().resolve()

    def data_path(self) -> Path:
        """The folder of this profile's edition under the data folder (not created)."""
        chosen = RunProfile(name=self.profile, edition=self.edition).get()
        return self.root_path().joinpath(*chosen.data_namespace.split("/"))


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
