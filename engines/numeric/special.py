"""scipy's functions that the statistics use, imported on their first call.

Importing scipy costs about a second, and every process that loads the code location (the UI's
code server, the daemon, each run) reaches these modules whether or not its steps fit anything;
so the modules that fit import the functions from here, and scipy is imported by the first fit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def expit(x: Any) -> Any:
    """The logistic function, ``scipy.special.expit``."""
    from scipy.special import expit as logistic

    return logistic(x)


def rankdata(a: Any, axis: int | None = None) -> npt.NDArray[np.float64]:
    """Average ranks, ``scipy.stats.rankdata``."""
    from scipy.stats import rankdata as ranks

    return np.asarray(ranks(a, axis=axis), dtype=np.float64)


def t_sf(x: Any, df: Any) -> Any:
    """The survival function of Student's t, ``scipy.stats.t.sf``."""
    from scipy.stats import t

    return t.sf(x, df)


def spearman_statistic(xs: Any, ys: Any) -> float:
    """Spearman's rho, ``scipy.stats.spearmanr(xs, ys).statistic``."""
    from scipy.stats import spearmanr

    return float(spearmanr(xs, ys).statistic)
