"""z-scores: how many standard deviations a value lies from the mean of its column.

Why it exists: the benchmark table of the axes and the statistics (capability profiles,
composite complexity, the factor analysis, the planted corpora) all standardise, and the
paper's z_a(g) = (x_a(g) - mean_a) / s_a (Section 7) does not say which divisor s_a uses. This
is the one function that standardises; the divisor is a required argument, so that every
caller states which one its published table follows:

- ``ddof=1`` (the sample standard deviation, divisor G - 1): the ``z_`` columns of
  ``benchmark_axes`` (Section 3.1, "We standardize each axis across the 50 games"; the
  ordering by the mean of the five z-scored axes in Tables 11 and 12);
- ``ddof=0`` (the population standard deviation, divisor G, so each column has unit
  variance): the regressors of the capability profiles (Section 7), the composite complexity
  (Appendix E), the standardised strength grid of the factor analysis (Appendix G.1) and the
  verbosity regressor (Appendix, rulebook verbosity).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def zscores(x: npt.ArrayLike, *, ddof: int, axis: int = 0) -> FloatArray:
    """(x - mean) / sd along ``axis``: each column of a matrix (``axis=0``), each row
    (``axis=1``), or a vector.

    Steps:
    1. the mean and the standard deviation (divisor n - ``ddof``) of each column, over its
       entries that are not NaN;
    2. subtract the mean and divide by the standard deviation; NaN entries stay NaN;
    3. a column without spread (standard deviation 0 or NaN, or at most ``ddof`` entries) is
       all zeros: every value in it is at the mean.

    The sums run along ``axis`` as NumPy runs them, so a column standardised alone and the same
    column inside a matrix may differ in the last bit; callers keep the shape they publish.
    """
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 (population) or 1 (sample), got {ddof}")
    values = np.asarray(x, dtype=np.float64)
    missing = np.isnan(values)
    count = np.sum(~missing, axis=axis, keepdims=True)
    filled = np.where(missing, 0.0, values)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = filled.sum(axis=axis, keepdims=True) / count
        deviation = np.where(missing, 0.0, values - mean)
        sd = np.sqrt((deviation * deviation).sum(axis=axis, keepdims=True) / (count - ddof))
    spread = (count > ddof) & np.isfinite(sd) & (sd > 0)
    z: FloatArray = np.where(spread, (values - mean) / np.where(spread, sd, 1.0), 0.0)
    return z
