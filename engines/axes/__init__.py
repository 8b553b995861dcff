"""The complexity axes (paper, Section 3.1, Section 4 and Appendix C).

Population (``population``), decision distribution (``decisions``), worlds (``worlds``),
replays with common random numbers (``replay``), the five axes (``state_space``,
``temporal``, ``opponent``, ``information``, ``precision``), their diagnostics
(``diagnostics``), the six screening axes (``screening``), farthest-point selection
(``selection``), budgets (``budgets``) and the one-call entry point (``compute``).
"""
