"""Quality gates and attestation hashing: the checks that stand in front of every release.

Each gate is a plain function over tables or files that returns a :class:`GateResult`
``(passed, figures, message)``: ``figures`` are small JSON-able numbers for the integrity card
(``integrity.json`` of a release) and ``message`` is one line a maintainer can act on.
Assets wrap the gates as blocking Dagster asset checks; ``releases`` runs them again inside
write-audit-publish, so a release is never published past a failing gate.

This package imports ``engines`` and never ``dagster`` or ``releases``.
"""

from quality.gates import GateResult

__all__ = ["GateResult"]
