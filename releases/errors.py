"""How a release check or a pull fails, as the command line reports it.

Why it exists: ``genstrat release verify`` and ``pull`` end every expected failure in one line,
and the exit status tells a script what kind of failure it was (``pipelines.cli``): 2 for a
mistake in the command (an unknown id, a path that is no release), 1 for a release or a store
that failed a check. Both are ``ValueError``s, so every caller that already catches
``ValueError`` (the asset check, ``publish``) keeps working.
"""

from __future__ import annotations


class ReleaseFailure(ValueError):
    """Not a mistake in the command: the release, or the store serving it, failed (exit 1)."""


class Refused(ReleaseFailure):
    """A release or its source failed a check: a tampered or unlisted file, a file past its
    declared size, a redirect to another host, a symbolic link, a pull past its deadline.
    Whatever the refused attempt wrote has been removed."""


class Interrupted(ReleaseFailure):
    """A transfer broke off after the retry policy's attempts; what was downloaded is kept in
    ``.part`` files so that the same command resumes."""


class OutOfTime(Refused):
    """A pull did not finish within its deadline (``--deadline``)."""
