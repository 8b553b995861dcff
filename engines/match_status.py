"""The statuses of a match row (the ``status`` column of the match table).

``complete``: the deal was played to its end.  ``forfeit``: a strategy program crashed or
answered an illegal action and lost the match (GameBench 2, Section 2); its chip columns hold
the result.  ``timeout`` and ``error``: no move could be obtained; the match carries no result
and is left out of the evidence.
"""

DECIDED_STATUSES = ("complete", "forfeit")
FAILED_STATUSES = ("timeout", "error")
MATCH_STATUSES = (*DECIDED_STATUSES, *FAILED_STATUSES)
