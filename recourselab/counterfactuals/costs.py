"""Two standard costs of a move, priced by the data's spread instead of the feature's range.

The book's default cost is the L1 distance on features rescaled to [0, 1] by
their range (:meth:`Encoder.cost <recourselab.features.Encoder.cost>`). The
papers of the "Recourse basics" lesson price a change differently:

- :func:`mad_l1_cost`: :cite:t:`wachter2017counterfactual` divide each change
  by the feature's median absolute deviation (MAD) in the data;
- :func:`percentile_shift_cost`: :cite:t:`ustun2019actionable` measure how far
  a change moves the person in the feature's distribution (the maximum
  percentile shift; their other cost, the total log-percentile shift, is not
  implemented here).

Both take the observed people as ``reference`` and one person before and after
a move, as mappings from numeric feature to value (a dict or a Series).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from .._validation import check_array

__all__ = ["mad_l1_cost", "percentile_shift_cost"]


def _move(reference, x, x_new):
    """The reference frame and the moved features' values before and after, validated."""
    if not isinstance(reference, pd.DataFrame):
        raise TypeError(f"reference must be a DataFrame of observed people, got {type(reference).__name__}.")
    if not isinstance(x, Mapping | pd.Series) or not isinstance(x_new, Mapping | pd.Series):
        raise TypeError("x and x_new must be mappings from feature to value (a dict or a Series).")
    features = list(x.keys())
    if sorted(features) != sorted(x_new.keys()):
        raise ValueError(f"x and x_new must name the same features, got {features} and {list(x_new.keys())}.")
    missing = [f for f in features if f not in reference.columns]
    if missing:
        raise ValueError(f"features {missing} are not columns of reference; columns: {list(reference.columns)}.")
    for f in features:
        if not pd.api.types.is_numeric_dtype(reference[f]):
            raise ValueError(f"feature {f!r} is not numeric; these costs price numeric changes only.")
    check_array(reference[features], "reference", ndim=2)  # finite: NaN or inf would poison the MAD or the ranks
    before = check_array([x[f] for f in features], "x")
    after = check_array([x_new[f] for f in features], "x_new")
    return features, before, after


def mad_l1_cost(reference: pd.DataFrame, x, x_new) -> float:
    """Wachter et al.'s distance: :math:`\\sum_f |x'_f - x_f| / \\mathrm{MAD}_f`.

    :math:`\\mathrm{MAD}_f = \\operatorname{median}_i |x_{i,f} - \\operatorname{median}_j x_{j,f}|`
    over the observed people, so a change is measured against how much the
    feature typically varies :cite:p:`wachter2017counterfactual`.

    Parameters
    ----------
    reference : DataFrame
        The observed people; the MAD of each moved feature is computed on it.
    x, x_new : mapping or Series
        One person's numeric features before and after the move (same keys).

    Returns
    -------
    float

    Examples
    --------
    >>> import pandas as pd
    >>> people = pd.DataFrame({"age": [20, 30, 40, 50, 60], "debt": [1.0, 2.0, 2.0, 3.0, 9.0]})
    >>> mad_l1_cost(people, {"age": 30, "debt": 3.0}, {"age": 35, "debt": 2.0})  # 5/10 + 1/1
    1.5
    """
    features, before, after = _move(reference, x, x_new)
    values = reference[features].to_numpy(dtype=float)
    mad = np.median(np.abs(values - np.median(values, axis=0)), axis=0)
    moved = after != before
    if (moved & (mad == 0)).any():
        zero = [f for f, z in zip(features, moved & (mad == 0), strict=True) if z]
        raise ValueError(f"features {zero} have a median absolute deviation of 0 in reference (more than half "
                         "the people share one value), so a change of them has no finite MAD-scaled cost.")
    return float(np.sum(np.abs(after - before)[moved] / mad[moved]))


def percentile_shift_cost(reference: pd.DataFrame, x, x_new) -> float:
    """Ustun et al.'s maximum percentile shift: :math:`\\max_f |Q_f(x'_f) - Q_f(x_f)|`.

    :math:`Q_f(v)` is the share of the observed people whose feature :math:`f`
    is at most :math:`v` (the empirical distribution function), so a change
    costs the share of people it passes in that feature's distribution
    :cite:p:`ustun2019actionable`.

    Parameters
    ----------
    reference : DataFrame
        The observed people; :math:`Q_f` is computed on them.
    x, x_new : mapping or Series
        One person's numeric features before and after the move (same keys).

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> import pandas as pd
    >>> people = pd.DataFrame({"age": [20, 30, 40, 50, 60]})
    >>> percentile_shift_cost(people, {"age": 30}, {"age": 52})  # Q = 2/5 before, 4/5 after
    0.4
    """
    features, before, after = _move(reference, x, x_new)
    values = reference[features].to_numpy(dtype=float)
    q_before = (values <= before).mean(axis=0)
    q_after = (values <= after).mean(axis=0)
    return float(np.max(np.abs(q_after - q_before), initial=0.0))
