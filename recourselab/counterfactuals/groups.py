"""The burden of recourse across groups: who has any, at what cost, and within which budget.

Both functions take one recourse cost per individual (``inf`` = no recourse),
e.g. :attr:`NearestCounterfactuals.best_cost
<recourselab.counterfactuals.NearestCounterfactuals.best_cost>`, and a group
label per individual. A burden measure compares costs across groups, so it may
rest on feasible costs (``nearest_counterfactuals(..., actionable=False)``, a
relaxation); a page that does so says so.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import check_aligned, check_array, check_labels

__all__ = ["recourse_by_group", "coverage_by_group"]


def _costs_and_groups(cost, groups):
    """Validated 1-d float costs (``inf`` = no recourse) and group labels, one per individual."""
    check_aligned(cost, "cost", groups=groups)
    cost = check_array(cost, "cost", allow_nan=True, allow_inf=True)
    if np.isnan(cost).any():
        raise ValueError(f"cost has NaN values (first at position {int(np.flatnonzero(np.isnan(cost))[0])}); "
                         "use inf for 'no recourse'.")
    if (cost < 0).any():
        raise ValueError(f"cost has negative values (first at position {int(np.flatnonzero(cost < 0)[0])}); "
                         "a recourse cost is >= 0 (inf = no recourse).")
    groups = check_labels(groups, "groups", len(cost), what="individual")
    return cost, groups


def _check_budgets(budgets) -> np.ndarray:
    """Budgets as a 1-d float array (a single number is one budget): numbers >= 0, inf allowed, no NaN."""
    single = budgets is not None and not isinstance(budgets, (str, bytes)) and np.ndim(budgets) == 0
    values = [budgets] if single else budgets
    if np.asarray(values).dtype == bool:
        raise TypeError("budgets must be numbers (got booleans), e.g. np.linspace(0, 5, 21).")
    return check_array(values, "budgets", minimum=0.0, allow_inf=True)


def recourse_by_group(cost, groups) -> pd.DataFrame:
    """Per group: how many need recourse, the share who have any, and what it costs them.

    The cost columns are computed over the members **with** recourse only, so
    two groups' medians compare different subsets of their members: a group in
    which more people have (expensive) recourse can show the higher median and
    still be the better-off group. :func:`coverage_by_group` compares costs over
    all members instead.

    Parameters
    ----------
    cost : array-like or Series of float, shape (n,)
        Recourse cost per individual (e.g. ``NearestCounterfactuals.best_cost``);
        ``inf`` means no recourse was found.
    groups : array-like or Series, shape (n,)
        Group label per individual: none missing, all strings or all numbers
        (two Series must share one index).

    Returns
    -------
    pandas.DataFrame
        Indexed by group, columns ``n`` (individuals), ``with_recourse``
        (share with a finite cost), ``median_cost`` and ``mean_cost`` (over
        those with recourse; NaN when nobody in the group has any).

    Examples
    --------
    >>> recourse_by_group([1.0, 3.0, float("inf"), 2.0], ["a", "a", "a", "b"])
           n  with_recourse  median_cost  mean_cost
    group
    a      3       0.666667          2.0        2.0
    b      1       1.000000          2.0        2.0
    """
    cost, groups = _costs_and_groups(cost, groups)
    frame = pd.DataFrame({"group": groups, "cost": np.where(np.isfinite(cost), cost, np.nan)})
    return frame.groupby("group").agg(
        n=("cost", "size"),
        with_recourse=("cost", lambda c: c.notna().mean()),
        median_cost=("cost", "median"),
        mean_cost=("cost", "mean"),
    )


def coverage_by_group(cost, groups, budgets) -> pd.DataFrame:
    """Share of each group whose recourse costs at most each budget (the group's coverage curve).

    For a group :math:`G` and a budget :math:`c`,

    .. math::

        \\operatorname{cov}_G(c) = \\frac{|\\{i \\in G : \\operatorname{cost}_i \\le c\\}|}{|G|},

    where people without recourse (cost ``inf``) count in the denominator and
    never in the numerator, even for ``c = inf``. Unlike the cost columns of
    :func:`recourse_by_group`, nothing is conditioned on having recourse: a
    higher curve means a larger share of the group can reach the favourable
    decision within the budget, so the comparison of two groups at a budget is
    a comparison of like with like.

    Parameters
    ----------
    cost : array-like or Series of float, shape (n,)
        Recourse cost per individual; ``inf`` means no recourse.
    groups : array-like or Series, shape (n,)
        Group label per individual (as in :func:`recourse_by_group`).
    budgets : array-like of float, shape (m,), or a number
        Budgets :math:`c \\ge 0` (``inf`` gives the share with any recourse).

    Returns
    -------
    pandas.DataFrame
        One row per budget (index ``budget``, in the order given), one column
        per group (sorted), values in [0, 1].

    Examples
    --------
    >>> coverage_by_group([1.0, 3.0, float("inf"), 2.0], ["a", "a", "a", "b"], [0, 2, float("inf")])
    group          a    b
    budget
    0.0     0.000000  0.0
    2.0     0.333333  1.0
    inf     0.666667  1.0
    """
    cost, groups = _costs_and_groups(cost, groups)
    budgets = _check_budgets(budgets)
    labels = sorted(pd.unique(groups).tolist(), key=str)
    finite = np.isfinite(cost)
    shares = {}
    for label in labels:
        member_cost = np.sort(cost[(groups == label) & finite])
        size = int(np.count_nonzero(groups == label))
        shares[label] = np.searchsorted(member_cost, budgets, side="right") / size
    table = pd.DataFrame(shares, index=pd.Index(budgets, name="budget"))
    table.columns.name = "group"
    return table
