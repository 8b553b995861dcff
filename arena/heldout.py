"""The held-out split of an edition: secret seeds, salted commitments, reveals (issue 39, item 4).

Why the seeds are secret: the generator is public and deterministic, so a game's seed *is* its
spec (``generate(seed, config)``), and an edition's public seed range, acceptance filter and
farthest-point selection can all be rerun by anyone. A private game whose seed were drawn from
that range could be recomputed from the public release; a commitment to its spec would hide
nothing. So an edition's private games are drawn from seeds derived from a key the deployment
keeps (``<data>/.editions/key``, 32 random bytes, mode 0600, made on first use):
``private_seed_base(key, profile, edition)`` is a 47-bit offset above ``PRIVATE_SEED_FLOOR``
(far above any public range), and the private candidates are the consecutive seeds from it.

What a later release reveals is kept beside the key (:class:`EditionSecrets`), not in the
release store, which a deployment may serve as it is.

A release publishes, for each private game, ``commitment = SHA-256(salt || spec JSON)`` (the
canonical spec JSON, UTF-8) with a 32-byte ``salt = HMAC-SHA-256(key, "salt/" profile/edition/
spec hash)``, derived so that publishing the same inputs again gives the same release id. A later
release reveals salt and spec; anyone checks them with :func:`commitment` alone.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

KEY_FOLDER = ".editions"
KEY_FILE = "key"
KEY_BYTES = 32
PRIVATE_SEED_FLOOR = 2**48
PRIVATE_SEED_SPAN = 2**47


def edition_key(root: Path) -> bytes:
    """The deployment's edition key under the data folder ``root``, made on first use (0600;
    two processes that race to make it read the same key)."""
    path = root / KEY_FOLDER / KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(descriptor, secrets.token_bytes(KEY_BYTES))
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
    key = path.read_bytes()
    if len(key) != KEY_BYTES:
        raise ValueError(
            f"the edition key {path} holds {len(key)} bytes, not {KEY_BYTES}: restore it from "
            "a backup (private games cannot be revealed or redrawn without it)"
        )
    return key


@dataclass(frozen=True)
class EditionSecrets:
    """The deployment's edition key and the folder beside it where a release keeps what a
    later release reveals (``<data>/.editions/reveal/``): secrets, never in a release store
    that may be served."""

    key: bytes
    folder: Path

    @staticmethod
    def exists(root: Path) -> bool:
        """Whether the data folder ``root`` holds an edition key."""
        return (root / KEY_FOLDER / KEY_FILE).is_file()

    @classmethod
    def of(cls, root: Path) -> EditionSecrets:
        """The secrets under the data folder ``root`` (the key made on first use)."""
        return cls(edition_key(root), root / KEY_FOLDER / "reveal")


def _mac(key: bytes, message: str) -> bytes:
    return hmac.new(key, message.encode("utf-8"), hashlib.sha256).digest()


def private_seed_base(key: bytes, profile: str, edition: int) -> int:
    """The first private candidate seed of ``profile``'s ``edition`` (secret without ``key``)."""
    offset = int.from_bytes(_mac(key, f"seeds/{profile}/{edition}")[:8], "big")
    return PRIVATE_SEED_FLOOR + offset % PRIVATE_SEED_SPAN


def salt(key: bytes, profile: str, edition: int, spec_hash: str) -> str:
    """The commitment's salt for one private game, as hex."""
    return _mac(key, f"salt/{profile}/{edition}/{spec_hash}").hex()


def commitment(salt_hex: str, spec_json: str) -> str:
    """``SHA-256(salt || spec JSON)`` as hex: what a release publishes for a private game."""
    return hashlib.sha256(bytes.fromhex(salt_hex) + spec_json.encode("utf-8")).hexdigest()
