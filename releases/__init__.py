"""Release bundles: build, verify, publish (write-audit-publish), list and pull.

DESIGN.md ("Release bundle") and GameBench 2 (Sections 2-3): a release is the versioned,
hash-attested set of tables a researcher cites. ``releases.bundle`` builds one into a folder
named by its content-derived id (``releases.archive`` makes its reproducible ``.tar.gz`` and
``releases.readme`` its README), ``releases.store`` publishes it into a store only after every
gate passed, ``releases.verification`` recomputes every hash, ``releases.download`` pulls one
from a local or HTTP store and refuses anything that does not verify, and ``releases.versioned``
applies the replay rule (only the newest engine version's result of a match counts).

This package imports ``engines`` and ``quality``, never ``dagster``.
"""

from releases.bundle import ReleaseContext, build_bundle, code_version, derive_release_id
from releases.download import pull
from releases.opened import OpenedRelease, compare_releases, open_release
from releases.store import (
    GateFailed,
    Published,
    default_store,
    list_releases,
    publish,
    read_index,
    verify,
)
from releases.verification import Verified, verify_archive, verify_folder
from releases.versioned import VersionedResults, newest_results

__all__ = [
    "GateFailed",
    "OpenedRelease",
    "Published",
    "ReleaseContext",
    "Verified",
    "VersionedResults",
    "build_bundle",
    "code_version",
    "compare_releases",
    "default_store",
    "derive_release_id",
    "list_releases",
    "newest_results",
    "open_release",
    "publish",
    "pull",
    "read_index",
    "verify",
    "verify_archive",
    "verify_folder",
]
