"""Numerical helpers that the axes and the statistics share: the one z-scoring (``zscores``) and
scipy's functions imported on their first call (``special``).  They import nothing of the
project, so both ``engines.axes`` and ``engines.stats`` (above it) can use them."""
