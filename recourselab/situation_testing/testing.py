"""Situation testing (ST), counterfactual situation testing (CST) and counterfactual fairness (CF).

For every member of a protected group (a *complainant*) situation testing
builds two groups of similar people and compares how often each was refused
:cite:p:`thanh2011knn`:

* the **control group**: the k protected people most similar to the complainant;
* the **test group**: the k non-protected people most similar to a *test centre*.

In k-NN ST the test centre is the complainant's own profile (ceteris paribus:
"the same person, only of the other group"). In k-NN CST
:cite:p:`alvarez2023cst` it is the complainant's **counterfactual** profile from a
structural causal model (mutatis mutandis: "the person they would have been",
see :class:`~recourselab.scm.AdditiveNoiseSCM`). A complainant shows potential
discrimination when the control group's refusal rate exceeds the test group's,
:math:`\\Delta p = p_c - p_t > \\tau`, and the claim is statistically significant
when a one-sided Wald confidence interval for :math:`\\Delta p` lies above :math:`\\tau`.

The groups come from :func:`.build_groups` (:mod:`.neighbours`), the distance from
:func:`.situation_distance_transform` (:mod:`.distance`); the paper's algorithm written
literally, per complainant, is in :mod:`recourselab.situation_testing.paper`.

Input conventions. ``protected`` and ``reference`` are masks (bool, or 0/1 with
1 = member); ``y_hat`` and ``y_hat_cf`` are decisions (1 = favourable, 0 =
refused). A missing entry (None, NaN) in any of them is an error, never a
silently dropped row. ``k`` is a Python or numpy integer (a float such as
``2.0`` is a TypeError, never rounded). Numeric attributes must be finite.
pandas inputs given next to a DataFrame ``X`` must carry ``X``'s index (rows are
matched by position, so a reordered Series would silently pair the wrong rows);
pass ``.to_numpy()`` to match by position on purpose.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

from .._validation import (
    check_aligned,
    check_array,
    check_bool,
    check_mask,
    check_number,
    check_probabilities,
    check_unit_interval,
    plain,
)
from .distance import as_frame, check_options, match_cf
from .neighbours import MEANING, build, check_execution

__all__ = ["wald_ci", "situation_testing", "counterfactual_fairness"]


def wald_ci(p_c, p_t, n, alpha: float = 0.05, *, one_sided: bool = True):
    """Wald confidence interval for the difference of two proportions, Δp = p_c − p_t.

    .. math:: \\Delta p \\pm z \\sqrt{\\frac{p_c(1 - p_c) + p_t(1 - p_t)}{n}}

    Eq. (5) of :cite:t:`alvarez2023cst` under our reading: the paper prints the
    two variances with a minus sign, but the variance of a difference of
    independent proportions is their **sum**, which is what reproduces the
    paper's Tables 2 and 3. The text calls the interval two-sided, with
    :math:`z_{1-\\alpha/2}` (1.96 at α = 5 %), but the bounds printed in those
    tables need :math:`z = 1.645`, the one-sided quantile :math:`z_{1-\\alpha}`.
    ``one_sided=True`` (default) follows the printed numbers and the one-sided
    alternative Δp > τ; with ``one_sided=False`` the interval is the two-sided
    one the text describes (wider, so fewer claims are significant). The
    literal version is :func:`recourselab.situation_testing.paper.wald_interval`.

    Parameters
    ----------
    p_c, p_t : float or array
        Refusal rates of the control and test groups.
    n : int or array
        Group size (k, or k + 1 when the search centres are counted): whole
        numbers >= 1 (a fractional size such as 15.5 is rejected).
    alpha : float, default 0.05
        Strictly between 0 and 1.
    one_sided : bool, default True

    Returns
    -------
    low, high : float or ndarray

    Examples
    --------
    >>> [round(float(v), 2) for v in wald_ci(13 / 16, 0.0, 16)]   # the paper's Table 2, complainant 55
    [0.65, 0.97]
    """
    alpha = check_alpha(alpha)
    check_bool(one_sided, "one_sided")
    p_c = check_probabilities(p_c, "p_c", ndim=None)
    p_t = check_probabilities(p_t, "p_t", ndim=None)
    n = check_array(n, "n", ndim=None, minimum=1, integer=True)
    try:
        np.broadcast_shapes(p_c.shape, p_t.shape, n.shape)
    except ValueError:
        raise ValueError(f"p_c, p_t and n have shapes {p_c.shape}, {p_t.shape} and {n.shape}; give one value per "
                         "complainant in each (or a single number for all).") from None
    z = norm.ppf(1 - alpha) if one_sided else norm.ppf(1 - alpha / 2)
    delta = p_c - p_t
    half = z * np.sqrt((p_c * (1 - p_c) + p_t * (1 - p_t)) / n)
    low, high = delta - half, delta + half
    return (float(low), float(high)) if low.ndim == 0 else (low, high)


def situation_testing(X, protected, y_hat, *, k: int, X_cf=None, y_hat_cf=None, include_centers: bool = False,
                      reference=None, alpha: float = 0.05, tau: float = 0.0, categorical=None,
                      normalize: str = "range", cf_scaling: str = "factual", ties: str = "row", n_jobs=None,
                      chunk_size=None, progress: bool = False) -> pd.DataFrame:
    """k-NN situation testing for every complainant: ST without counterfactuals, CST with them.

    For complainant c with control group C and test group T,

    .. math:: p_c = \\frac{|\\{i \\in C : \\hat y_i = 0\\}|}{|C|}, \\quad
              p_t = \\frac{|\\{i \\in T : \\hat y_i = 0\\}|}{|T|}, \\quad
              \\Delta p = p_c - p_t .

    With ``include_centers`` the complainant's own decision joins the control
    group and the decision of its test centre (``y_hat_cf[c]`` for CST,
    ``y_hat[c]`` for ST) joins the test group, so both have k + 1 members:
    the paper's "CST" (with centres) rather than "CST w/o".

    Parameters
    ----------
    X : pandas.DataFrame or array of shape (n, p)
        Decision-relevant attributes (the decision maker's inputs).
    protected : array of bool or 0/1, shape (n,)
        1 = protected; every protected row is a complainant, whatever its decision.
    y_hat : array of 0/1, shape (n,)
        Decisions, 1 = favourable.
    k : int
        Size of the control and test groups.
    X_cf : like X, optional
        Counterfactual attributes of every row (e.g. from
        :meth:`AdditiveNoiseSCM.counterfactual <recourselab.scm.AdditiveNoiseSCM.counterfactual>`);
        given → CST, absent → ST.
    y_hat_cf : array of 0/1, shape (n,), optional
        Decisions on the counterfactual rows; needed with ``include_centers`` for
        CST, and meaningless without ``X_cf`` (an error).
    include_centers : bool, default False
    reference : array of bool, optional
        Test search space (default: the non-protected rows); see :func:`build_groups`.
    alpha : float, default 0.05
        Significance level of the one-sided Wald interval (:func:`wald_ci`),
        strictly between 0 and 1.
    tau : float in [0, 1), default 0.0
        The minimum deviation: the smallest difference Δp of refusal rates that
        counts as discrimination (the paper's τ ≥ 0, default 0). Δp is a
        difference of two proportions, so it lies in [-1, 1]: with τ ≥ 1
        nothing could ever be flagged, and a negative τ would flag complainants
        whose control group was refused *less* often than the test group; both
        are errors.
    categorical : list of str, optional
        Categorical columns for the distance (default: non-numeric columns).
    normalize : {"range", "std"}, default "range"
        Divide numeric differences by the column's range (the paper's Eq. 6)
        or by its standard deviation (the authors' code); see
        :func:`situation_distance_transform`.
    cf_scaling : {"factual", "refit"}, default "factual"
        Measure counterfactual rows with the factual data's ruler (the paper)
        or re-fit the normalisation on ``X_cf`` first (the authors' code);
        ``"refit"`` needs ``X_cf``.
    ties : {"row", "bitwise"}, default "row"
        Order of candidates at the same distance: the lower row first, with
        distances equal to 12 decimals counted as ties (reproducible), or the
        authors' bit-for-bit comparison (see :func:`build_groups`).
    n_jobs, chunk_size, progress
        Parallel jobs (joblib; a Dask cluster through joblib's dask backend),
        complainants per job and a progress bar, as in :func:`build_groups`;
        the result never depends on them.

    Returns
    -------
    pandas.DataFrame
        One row per complainant (indexed like X), columns ``p_c``, ``p_t``,
        ``delta_p``, ``ci_low``, ``ci_high``, ``discrimination``
        (Δp > τ) and ``significant`` (the interval lies above τ).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [0.2], [0.0], [0.1], [0.2]])
    >>> protected = np.array([1, 1, 1, 0, 0, 0])
    >>> y_hat = np.array([0, 0, 0, 1, 1, 0])
    >>> situation_testing(X, protected, y_hat, k=2)["delta_p"].round(2).tolist()
    [1.0, 1.0, 0.5]
    """
    check_aligned(X, "X", protected=protected, y_hat=y_hat, X_cf=X_cf, y_hat_cf=y_hat_cf)
    check_aligned(X, "X", reference=reference)
    alpha, tau = check_alpha(alpha), check_tau(tau)
    check_options(normalize, cf_scaling, ties)
    check_execution(n_jobs, chunk_size, progress)
    check_bool(include_centers, "include_centers")
    frame = as_frame(X, "X")
    n = len(frame)
    frame_cf = match_cf(frame, X_cf)
    y_hat, centre_decision = _decisions(y_hat, y_hat_cf, X_cf is not None, include_centers, n)
    protected = check_mask(protected, "protected", n, meaning=MEANING["protected"])
    reference = None if reference is None else check_mask(reference, "reference", n, meaning=MEANING["reference"])
    groups = build(frame, protected, k, frame_cf, reference, categorical, normalize, cf_scaling, ties, n_jobs,
                   chunk_size, progress)
    refused = ~y_hat
    neg_c = refused[groups.control].sum(axis=1).astype(float)   # Eq. (4): refusals in each group
    neg_t = refused[groups.test].sum(axis=1).astype(float)
    size = float(groups.k)
    if include_centers:
        neg_c += refused[groups.complainants]
        neg_t += ~centre_decision[groups.complainants]
        size += 1
    p_c, p_t = neg_c / size, neg_t / size
    low, high = wald_ci(p_c, p_t, np.full(len(p_c), size), alpha)
    index = X.index[groups.complainants] if isinstance(X, pd.DataFrame) else groups.complainants
    delta = p_c - p_t
    return pd.DataFrame(
        {"p_c": p_c, "p_t": p_t, "delta_p": delta, "ci_low": low, "ci_high": high,
         "discrimination": delta > tau, "significant": low > tau},
        index=index,
    )


def _decisions(y_hat, y_hat_cf, counterfactual: bool, include_centers: bool, n: int):
    """The decisions as masks, and the decisions of the test centres (None without ``include_centers``)."""
    y_hat = check_mask(y_hat, "y_hat", n, meaning=MEANING["y_hat"])
    if y_hat_cf is not None:
        if not counterfactual:
            raise ValueError("y_hat_cf is given without X_cf; the decisions on counterfactual rows need the rows "
                             "(pass X_cf for CST, or drop y_hat_cf for ST).")
        y_hat_cf = check_mask(y_hat_cf, "y_hat_cf", n, meaning=MEANING["y_hat_cf"])
    if not include_centers:
        return y_hat, None
    if counterfactual and y_hat_cf is None:
        raise ValueError("include_centers with counterfactuals needs y_hat_cf, the decisions on X_cf.")
    return y_hat, y_hat_cf if counterfactual else y_hat


def check_alpha(alpha) -> float:
    """A significance level strictly between 0 and 1."""
    return check_unit_interval(check_number(alpha, "alpha"), "alpha", open_interval=True)


def check_tau(tau) -> float:
    """The minimum deviation τ in [0, 1): Δp is a difference of proportions, so τ >= 1 could flag no one."""
    value = check_number(tau, "tau")
    if not 0 <= value < 1:
        raise ValueError(
            f"tau={plain(tau)!r} must lie in [0, 1): it is the minimum difference of refusal rates p_c - p_t that "
            "counts as discrimination (the paper's default is 0); p_c - p_t never exceeds 1, so tau >= 1 could flag "
            "no one."
        )
    return value


def counterfactual_fairness(y_hat, y_hat_cf) -> np.ndarray:
    """Counterfactual-fairness violations :cite:p:`kusner2017counterfactual`: refused, but favoured as a counterfactual.

    .. math:: \\mathrm{CF}_c = \\mathbb{1}[\\hat y_c = 0 \\wedge \\hat y_c^{CF} = 1]

    Parameters
    ----------
    y_hat, y_hat_cf : array of 0/1 or bool, shape (m,)
        Decisions on the factual and the counterfactual rows (1 = favourable);
        two Series must share their index.

    Returns
    -------
    ndarray of bool
        ``True`` where the factual decision is 0 and the counterfactual
        decision is 1 (the paper's CF column).

    Examples
    --------
    >>> counterfactual_fairness([0, 0, 1, 1], [1, 0, 1, 0]).tolist()
    [True, False, False, False]
    """
    check_aligned(y_hat, "y_hat", y_hat_cf=y_hat_cf)
    y_hat = check_mask(y_hat, "y_hat", meaning=MEANING["y_hat"])
    if len(y_hat) == 0:
        raise ValueError("y_hat is empty; give one factual and one counterfactual decision per complainant.")
    y_hat_cf = check_mask(y_hat_cf, "y_hat_cf", len(y_hat), meaning=MEANING["y_hat_cf"])
    return ~y_hat & y_hat_cf
