"""Recourse in binary allocation problems: policies, counterfactuals and rho-robust recourse.

A *binary allocation problem* :math:`\\langle r, X, U \\rangle` gives a resource
of size :math:`r` (a budget, a number of study places) to some of :math:`n`
applicants; applicant :math:`i` asks for :math:`w_i` units and is worth the
individual utility :math:`v_i = u(x_i) = S_\\theta(M(x_i))` to the decision
maker, where :math:`M` is a prediction model (the probability of success) and
:math:`S_\\theta` an increasing function :cite:p:`segal2024luck`. The
decision maker's utility is separable, :math:`U(Y) = \\sum_{i: y_i = 1} v_i`,
and the policy picks the allocation :math:`Y \\in \\{0, 1\\}^n`:

* **lending** (Eq. 1): :math:`u = M (w G_1 + G_2) - (1 - M) C w` with the
  optimal 0-1 :func:`knapsack` policy over the requested credits;
* **admissions** (Eq. 2): :math:`u = M G - C`, one slot each, and the
  :func:`greedy` policy.

Being refused here says little about the model alone: it depends on the budget
and on everyone else. The module follows the paper's pipeline from the decision
back to the features (Section 5): the minimal **utility counterfactual**
:func:`utility_ce`, the **prediction counterfactual** :func:`prediction_ce`
(:math:`m' = S_\\theta^{-1}(v')`) and a **feature counterfactual**
:func:`feature_ce` among observed data points. Because budgets change from one
round to the next, Section 6 turns the counterfactual into **recourse** that
stays valid for a share :math:`\\rho` of future budgets:
:func:`robust_recourse` (Algorithm 1, on a matrix of prediction
counterfactuals from :func:`prediction_ce_matrix`), the general Monte-Carlo
form :func:`monte_carlo_recourse`, the perturbation baseline
:func:`noisy_recourse`, :func:`validity`, and :func:`robustness_experiment`,
which runs the design of the paper's Table 3.

Input conventions. Probabilities (``m``, ``proba``, ``m_i``, the samplers'
``others_proba``) must lie in [0, 1] and be finite; shares and levels
(``rho``, ``rhos``, ``p``, ``ps``) lie in [0, 1]. A *prediction
counterfactual* :math:`m'` may exceed 1 or be ``inf`` (no probability is enough;
the paper keeps such values), but it is never NaN or negative. Counts, row
positions and seeds (``n_samples``, ``index``, ``candidates``, ``problems``,
``random_state``) must be Python or numpy integers: floats are rejected even
when whole, never truncated. Amounts of the resource (``weights``,
``capacity``, ``capacities``) are data in whole units: an int, or a float with a
whole value such as ``6.0``; ``2.5`` is rejected.

Speed: the utility counterfactual of *every* applicant under the knapsack
policy comes from one prefix and one suffix dynamic programme (:math:`O(n r)`
time in total instead of :math:`O(n^2 r)` for re-solving the knapsack per
applicant), and the tables for the largest budget answer every smaller budget.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm, truncnorm
from tqdm.auto import tqdm

from .._validation import check_rng, check_unit_interval
from ..counterfactuals.recourse import NO_COUNTERFACTUAL

__all__ = [
    "lending_utility",
    "lending_probability",
    "admission_utility",
    "admission_probability",
    "LendingUtility",
    "AdmissionUtility",
    "Allocation",
    "knapsack",
    "greedy",
    "allocate",
    "utility_ce",
    "utility_ce_naive",
    "prediction_ce",
    "prediction_cost",
    "FeatureCounterfactual",
    "feature_ce",
    "prediction_ce_matrix",
    "robust_recourse",
    "MonteCarloRecourse",
    "monte_carlo_recourse",
    "noisy_recourse",
    "validity",
    "BudgetDistribution",
    "RobustnessExperiment",
    "robustness_experiment",
    "REFUSAL_REASONS",
    "refusal_reasons",
    "RefusalBreakdown",
    "refusal_breakdown",
    "pareto_dominance",
    "graft_candidates",
    "prune_move",
]

POLICIES = ("knapsack", "greedy")
# Largest dynamic-programming table (applicants x capacity cells) a knapsack may build.
_MAX_TABLE_CELLS = 500_000_000
# Rows of a suffix table kept in memory at once by the leave-one-out programme (32 MB of float64);
# longer pools are processed in blocks recomputed from checkpoints (see _leave_one_out).
_BLOCK_CELLS = 4_000_000
# From this capacity on, max-plus queries loop over contiguous slices instead of building a matrix.
_SLICE_LOOP_FROM = 1024


# --------------------------------------------------------------------------- validation helpers
def _entry(arr: np.ndarray, name: str, where: int) -> str:
    """``name[i]=value`` for an array, ``name=value`` for a scalar (for messages)."""
    return f"{name}={arr.ravel()[where]:g}" if arr.ndim == 0 else f"{name}[{where}]={arr.ravel()[where]:g}"


def _float_array(x, name: str, *, allow_inf: bool = False) -> np.ndarray:
    if x is None:
        raise TypeError(f"{name} is None; give numbers (an array or a scalar).")
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be numbers (an array or a scalar), got {type(x).__name__}.") from None
    bad = np.isnan(arr) if allow_inf else ~np.isfinite(arr)
    if bad.any():
        where = int(np.flatnonzero(bad.ravel())[0])
        raise ValueError(
            f"{_entry(arr, name, where)} is not {'a number' if allow_inf else 'finite'}; "
            f"give {'numbers' if allow_inf else 'finite numbers'} only."
        )
    return arr


def _check_probabilities(x, name: str) -> np.ndarray:
    """Finite probabilities in [0, 1] (an array or a scalar); errors name the first bad entry."""
    arr = _float_array(x, name)
    bad = (arr < 0) | (arr > 1)
    if bad.any():
        where = int(np.flatnonzero(bad.ravel())[0])
        raise ValueError(f"{_entry(arr, name, where)} is outside [0, 1]; {name} holds probabilities (e.g. a "
                         "model's predict_proba[:, 1]).")
    return arr


def _check_utilities(x, name: str) -> np.ndarray:
    """Utilities: finite numbers or +inf (a counterfactual that can never be met); NaN and -inf are errors."""
    arr = _float_array(x, name, allow_inf=True)
    bad = arr == -np.inf
    if bad.any():
        where = int(np.flatnonzero(bad.ravel())[0])
        raise ValueError(f"{_entry(arr, name, where)}: a utility of -inf has no probability; give finite utilities "
                         "(or +inf for a counterfactual that can never be met).")
    return arr


def _check_targets(x, name: str) -> np.ndarray:
    """Prediction counterfactuals m': numbers >= 0; above 1 and inf are allowed (no probability is enough)."""
    arr = _float_array(x, name, allow_inf=True)
    bad = arr < 0
    if bad.any():
        where = int(np.flatnonzero(bad.ravel())[0])
        raise ValueError(f"{_entry(arr, name, where)} is negative; {name} is a probability to reach (>= 0; values "
                         "above 1 or inf mean no probability is enough).")
    return arr


def _check_values(values, name: str = "values") -> np.ndarray:
    v = _float_array(values, name)
    if v.ndim != 1:
        raise ValueError(f"{name} has shape {v.shape}; give one utility per applicant (a 1-d array).")
    if len(v) == 0:
        raise ValueError(f"{name} is empty: there are no applicants.")
    return v


def _check_weights(weights, n: int, name: str = "weights") -> np.ndarray:
    if weights is None:
        raise ValueError(f"{name} is None; the knapsack policy needs each applicant's requested amount "
                         "(integers >= 0, e.g. credit in hundreds).")
    raw = np.asarray(weights)
    if raw.dtype == bool:
        raise TypeError(f"{name} are booleans; give integer requested amounts.")
    w = _float_array(raw, name)
    if w.ndim != 1 or len(w) != n:
        raise ValueError(f"{name} has shape {w.shape} but there are {n} applicants; give one weight per applicant.")
    negative = np.flatnonzero(w < 0)
    if len(negative):
        i = int(negative[0])
        raise ValueError(f"{name}[{i}]={w[i]:g} is negative; requested amounts must be integers >= 0.")
    fractional = np.flatnonzero(w != np.round(w))
    if len(fractional):
        i = int(fractional[0])
        raise ValueError(
            f"{name}[{i}]={w[i]:g} is not an integer; express the resource in whole units "
            "(e.g. credit in hundreds) and round the requests."
        )
    return w.astype(np.int64)


def _check_capacity(capacity, name: str = "capacity") -> int:
    if isinstance(capacity, (bool, np.bool_)) or not isinstance(capacity, numbers.Real):
        raise TypeError(f"{name}={capacity!r} must be an integer amount of the resource.")
    if not math.isfinite(capacity):
        raise ValueError(f"{name}={capacity!r} is not a finite whole number; give the budget in whole units.")
    if capacity != int(capacity):
        raise ValueError(f"{name}={capacity!r} is not an integer; round the budget to whole units of the resource.")
    if capacity < 0:
        raise ValueError(f"{name}={capacity!r} is negative; a budget must be >= 0.")
    return int(capacity)


def _check_capacities(capacities, name: str = "capacities") -> np.ndarray:
    caps = _float_array(np.atleast_1d(capacities), name)
    if caps.ndim != 1 or len(caps) == 0:
        raise ValueError(f"{name} has shape {caps.shape}; give a non-empty 1-d array of budgets.")
    if (caps < 0).any():
        i = int(np.flatnonzero(caps < 0)[0])
        raise ValueError(f"{name}[{i}]={caps[i]:g} is negative; budgets must be >= 0 (clip them at 0).")
    if (caps != np.round(caps)).any():
        i = int(np.flatnonzero(caps != np.round(caps))[0])
        raise ValueError(f"{name}[{i}]={caps[i]:g} is not an integer; round the budgets to whole units.")
    return caps.astype(np.int64)


def _check_policy(policy) -> str:
    if policy not in POLICIES:
        raise ValueError(f"policy={policy!r} is not one of {POLICIES}.")
    return policy


def _policy_weights(policy: str, weights, n: int, name: str = "weights") -> np.ndarray:
    """Integer weights for the knapsack; ones for the greedy policy (which must not get other weights)."""
    if policy == "knapsack":
        return _check_weights(weights, n, name)
    if weights is None:
        return np.ones(n, dtype=np.int64)
    w = _check_weights(weights, n, name)
    if (w != 1).any():
        i = int(np.flatnonzero(w != 1)[0])
        raise ValueError(
            f"{name}[{i}]={w[i]} but the greedy policy gives every applicant one slot; pass {name}=None "
            "(or all ones), or use policy='knapsack' for requests of different sizes."
        )
    return w


def _check_eps(eps) -> float:
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not (math.isfinite(eps) and eps > 0):
        raise ValueError(f"eps={eps!r} must be a small positive number (the margin that breaks ties), e.g. 1e-6.")
    return float(eps)


def _check_count(value, name: str, minimum: int = 1) -> int:
    """A count given as a Python or numpy integer (floats are rejected, even whole ones)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name}={value!r} must be an integer >= {minimum} (a Python or numpy int; floats such "
                         "as 2.0 are not accepted).")
    return int(value)


def _check_levels(values, name: str) -> tuple:
    """A sequence of distinct levels in [0, 1] (one number is one level)."""
    values = (values,) if isinstance(values, numbers.Real) else tuple(values)
    levels = tuple(check_unit_interval(x, name) for x in values)
    duplicated = sorted({f"{x:g}" for x in levels if sum(f"{y:g}" == f"{x:g}" for y in levels) > 1})
    if duplicated:
        raise ValueError(f"{name} repeats the level(s) {duplicated}; each level names a method in the table, so give "
                         "each once.")
    return levels


# --------------------------------------------------------------------------- utilities
def _lending_params(G1, G2, C):
    for name, value in (("G1", G1), ("G2", G2), ("C", C)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise TypeError(f"{name}={value!r} must be a finite number.")
    if not 0 <= G1 <= 1:
        raise ValueError(f"G1={G1!r} is outside [0, 1]; G1 is the bank's profit as a fraction of the credit.")
    if not 0 <= C <= 1:
        raise ValueError(f"C={C!r} is outside [0, 1]; C is the fraction of the credit lost on a default.")
    return float(G1), float(G2), float(C)


def _lending_slope(credit, G1, G2, C) -> np.ndarray:
    """dS/dm = credit * (G1 + C) + G2; it must be > 0 for every applicant (S increasing, so invertible)."""
    credit = _float_array(credit, "credit")
    if (credit < 0).any():
        i = int(np.flatnonzero(np.ravel(credit < 0))[0])
        raise ValueError(f"credit[{i}]={np.ravel(credit)[i]:g} is negative; requested credit must be >= 0.")
    slope = credit * (G1 + C) + G2
    if (slope <= 0).any():
        i = int(np.flatnonzero(np.ravel(slope <= 0))[0])
        raise ValueError(
            f"credit*(G1 + C) + G2 = {np.ravel(slope)[i]:g} <= 0 for credit[{i}]={np.ravel(credit)[i]:g} "
            f"(G1={G1:g}, G2={G2:g}, C={C:g}): the utility does not increase with the repayment probability, "
            "so it cannot be inverted; use G2 > 0 or a larger G1 + C."
        )
    return slope


def lending_utility(m, credit, G1, G2, C):
    """The lender's expected utility of granting a loan (the paper's Eq. 1).

    .. math:: u = M\\,(w G_1 + G_2) - (1 - M)\\, C w = M\\,(w (G_1 + C) + G_2) - C w

    with :math:`M` the probability of repayment, :math:`w` the credit, :math:`G_1`
    the profit as a fraction of the credit, :math:`G_2` the social value of a
    loan and :math:`C` the fraction lost on a default.

    Parameters
    ----------
    m : float or array
        Probability of repayment, in [0, 1].
    credit : float or array (broadcast with ``m``)
        Requested credit (>= 0).
    G1, C : float in [0, 1]
    G2 : float
        The slope :math:`w (G_1 + C) + G_2` must be positive for every credit,
        otherwise ``ValueError`` (the utility would not be invertible).

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> lending_utility([0.8, 0.7, 0.6, 0.5], [4, 3, 2, 1], G1=0.05, G2=1, C=0.2).round(3).tolist()
    [0.8, 0.625, 0.5, 0.425]
    """
    G1, G2, C = _lending_params(G1, G2, C)
    slope = _lending_slope(credit, G1, G2, C)
    m = _check_probabilities(m, "m")
    out = m * slope - C * np.asarray(credit, dtype=float)
    return float(out) if out.ndim == 0 else out


def lending_probability(v, credit, G1, G2, C):
    """Inverse of :func:`lending_utility`: the repayment probability that gives utility ``v``.

    .. math:: m = S^{-1}(v) = \\frac{v + C w}{w (G_1 + C) + G_2}

    Values above 1 mean that no probability is enough; ``inf`` stays ``inf``.

    Examples
    --------
    >>> round(lending_probability(1.05, 4, G1=0.05, G2=1, C=0.2), 6)   # the paper's applicant 1
    0.925
    """
    G1, G2, C = _lending_params(G1, G2, C)
    slope = _lending_slope(credit, G1, G2, C)
    v = _check_utilities(v, "v")
    out = (v + C * np.asarray(credit, dtype=float)) / slope
    return float(out) if out.ndim == 0 else out


def _admission_params(G, C):
    for name, value in (("G", G), ("C", C)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise TypeError(f"{name}={value!r} must be a finite number.")
    if G <= 0:
        raise ValueError(f"G={G!r} must be > 0: with G <= 0 the utility M*G - C does not increase with M, "
                         "so it cannot be inverted.")
    if C < 0:
        raise ValueError(f"C={C!r} is negative; C is the cost of an admitted student (>= 0).")
    return float(G), float(C)


def admission_utility(m, G, C):
    """The institution's expected utility of admitting a student (the paper's Eq. 2).

    .. math:: u = M (G - C) + (1 - M)(-C) = M G - C

    with :math:`M` the probability of graduating (in [0, 1]), :math:`G > 0` the
    gain of a graduate and :math:`C \\ge 0` the cost of a student.

    Examples
    --------
    >>> admission_utility([0.8, 0.7, 0.6, 0.5], G=1, C=0.6).round(3).tolist()
    [0.2, 0.1, 0.0, -0.1]
    """
    G, C = _admission_params(G, C)
    out = _check_probabilities(m, "m") * G - C
    return float(out) if out.ndim == 0 else out


def admission_probability(v, G, C):
    """Inverse of :func:`admission_utility`: :math:`m = (v + C) / G`.

    Examples
    --------
    >>> round(admission_probability(0.1, G=1, C=0.6), 6)
    0.7
    """
    G, C = _admission_params(G, C)
    out = (_check_utilities(v, "v") + C) / G
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class LendingUtility:
    """The lending utility of Eq. 1 with fixed parameters (see :func:`lending_utility`).

    Parameters
    ----------
    G1 : float in [0, 1]
        Profit as a fraction of the credit.
    G2 : float
        Social value of granting a loan.
    C : float in [0, 1]
        Fraction of the credit lost when the loan is not repaid.

    Examples
    --------
    >>> u = LendingUtility(G1=0.05, G2=1, C=0.2)
    >>> u.value([0.8, 0.7], [4, 3]).round(3).tolist()
    [0.8, 0.625]
    >>> round(u.probability(1.05, 4), 6)
    0.925
    """

    G1: float
    G2: float
    C: float

    def __post_init__(self):
        G1, G2, C = _lending_params(self.G1, self.G2, self.C)
        if G2 <= 0 and G1 + C == 0:
            raise ValueError(f"G1 + C = 0 and G2={G2:g} <= 0: the utility never increases with the repayment "
                             "probability; use G2 > 0 or G1 + C > 0.")
        for name, value in (("G1", G1), ("G2", G2), ("C", C)):
            object.__setattr__(self, name, value)

    def value(self, m, weights):
        """Utility of each applicant with probability ``m`` and credit ``weights``."""
        if weights is None:
            raise ValueError("weights is None; the lending utility needs each applicant's credit.")
        return lending_utility(m, weights, self.G1, self.G2, self.C)

    def probability(self, v, weights):
        """The probability giving utility ``v`` to an applicant asking for ``weights``."""
        if weights is None:
            raise ValueError("weights is None; the lending utility needs each applicant's credit.")
        return lending_probability(v, weights, self.G1, self.G2, self.C)


@dataclass(frozen=True)
class AdmissionUtility:
    """The admissions utility of Eq. 2 with fixed parameters (see :func:`admission_utility`).

    Parameters
    ----------
    G : float > 0
        Gain of a student who graduates.
    C : float >= 0
        Cost of every admitted student.

    ``weights`` is accepted by the methods for a common interface and ignored.

    Examples
    --------
    >>> u = AdmissionUtility(G=2, C=1)   # the paper's experiment: positive utility iff M > 0.5
    >>> u.value([0.4, 0.5, 0.75]).round(3).tolist()
    [-0.2, 0.0, 0.5]
    """

    G: float
    C: float

    def __post_init__(self):
        G, C = _admission_params(self.G, self.C)
        object.__setattr__(self, "G", G)
        object.__setattr__(self, "C", C)

    def value(self, m, weights=None):
        """Utility of each applicant with graduation probability ``m``."""
        return admission_utility(m, self.G, self.C)

    def probability(self, v, weights=None):
        """The graduation probability giving utility ``v``."""
        return admission_probability(v, self.G, self.C)


def _check_utility(utility):
    if not (hasattr(utility, "value") and hasattr(utility, "probability")):
        raise TypeError(
            f"utility must be a LendingUtility, an AdmissionUtility or an object with value(m, weights) and "
            f"probability(v, weights); got {type(utility).__name__}."
        )
    return utility


# --------------------------------------------------------------------------- policies
@dataclass(frozen=True)
class Allocation:
    """The decision of an allocation policy.

    Attributes
    ----------
    selected : ndarray of bool, shape (n,)
        Who gets the resource.
    utility : float
        Total utility :math:`U(Y) = \\sum_{i: y_i = 1} v_i` of the selected set.
    capacity : int
        The budget (knapsack) or the number of slots (greedy).
    policy : str
        ``"knapsack"`` or ``"greedy"``.
    values : ndarray of float, shape (n,)
        The individual utilities the policy saw.
    weights : ndarray of int, shape (n,)
        The requested amounts (ones for the greedy policy).
    """

    selected: np.ndarray
    utility: float
    capacity: int
    policy: str
    values: np.ndarray = field(repr=False, default=None)
    weights: np.ndarray = field(repr=False, default=None)

    @property
    def selected_index(self) -> np.ndarray:
        """Positions of the selected applicants."""
        return np.flatnonzero(self.selected)

    @property
    def used(self) -> int:
        """Amount of the resource given out."""
        return int(self.weights[self.selected].sum()) if self.weights is not None else int(self.selected.sum())

    def to_frame(self) -> pd.DataFrame:
        """One row per applicant: utility, requested amount, selected."""
        return pd.DataFrame(
            {"value": self.values, "weight": self.weights, "selected": self.selected},
            index=pd.RangeIndex(len(self.selected), name="applicant"),
        )


def _knapsack_solve(v: np.ndarray, w: np.ndarray, r: int) -> tuple[np.ndarray, float]:
    """Forward DP keeping a boolean 'take' table; ties resolved towards leaving later items out."""
    n = len(v)
    useful = (v > 0) & (w <= r)
    R = int(min(r, w[useful].sum()))
    if n * (R + 1) > _MAX_TABLE_CELLS:
        raise ValueError(
            f"capacity={r} with {n} applicants needs a {n} x {R + 1} table; express the resource in coarser "
            "units (e.g. credit in hundreds instead of units) so that n * capacity stays below "
            f"{_MAX_TABLE_CELLS:,}."
        )
    row = np.zeros(R + 1)
    take = np.zeros((n, R + 1), dtype=bool)
    for i in np.flatnonzero(useful):
        wi, vi = int(w[i]), float(v[i])
        candidate = row[: R + 1 - wi] + vi            # value of taking i at capacities wi..R
        better = candidate > row[wi:]                 # strictly better: ties leave i out
        take[i, wi:] = better
        row[wi:] = np.where(better, candidate, row[wi:])
    selected = np.zeros(n, dtype=bool)
    c = R
    for i in range(n - 1, -1, -1):
        if take[i, c]:
            selected[i] = True
            c -= int(w[i])
    return selected, float(v[selected].sum())


def knapsack(values, weights, capacity) -> Allocation:
    """The optimal 0-1 knapsack allocation, by dynamic programming over integer weights.

    .. math:: \\max_{Y \\in \\{0, 1\\}^n} \\sum_i v_i y_i \\quad \\text{s.t.} \\quad \\sum_i w_i y_i \\le r

    The resource is discretised: weights and capacity are whole units (the
    paper divides German Credit amounts by 100 and rounds, so one unit is 100 DM).
    The table :math:`V[i, c]` (best utility of applicants :math:`< i` within
    capacity :math:`c`) has :math:`n \\times (r + 1)` cells, so the time is
    :math:`O(n r)` (pseudo-polynomial). Applicants with a non-positive utility are
    dropped: they are never selected, since including them cannot increase
    :math:`U`. The capacity is capped at the total weight of the positive
    applicants (beyond it every one of them fits).

    Ties between optimal allocations are broken deterministically: the set is
    reconstructed from the last applicant to the first, and an applicant is
    selected only when doing so is *strictly* better than every allocation of
    the earlier applicants within the remaining capacity. Among equally good
    allocations, later applicants are therefore left out (the indicator vector
    read backwards from applicant :math:`n` is lexicographically smallest).

    Parameters
    ----------
    values : array of float, shape (n,)
        Individual utilities :math:`v_i` (finite).
    weights : array of int, shape (n,)
        Requested amounts :math:`w_i`, integers >= 0.
    capacity : int
        Budget :math:`r` >= 0.

    Returns
    -------
    Allocation

    Examples
    --------
    The paper's Table 1 (lending, budget 6): applicant 1 is refused although
    their probability and utility are the highest.

    >>> res = knapsack([0.8, 0.625, 0.5, 0.425], [4, 3, 2, 1], 6)
    >>> res.selected.astype(int).tolist(), round(res.utility, 3)
    ([0, 1, 1, 1], 1.55)
    """
    v = _check_values(values)
    w = _check_weights(weights, len(v))
    r = _check_capacity(capacity)
    selected, total = _knapsack_solve(v, w, r)
    return Allocation(selected, total, r, "knapsack", v, w)


def _greedy_order(v: np.ndarray) -> np.ndarray:
    """Applicants by decreasing utility, ties by lower index."""
    return np.lexsort((np.arange(len(v)), -v))


def greedy(values, capacity) -> Allocation:
    """The greedy allocation of unit slots: best utility first while it is positive and slots remain.

    Every applicant asks for one slot (:math:`w_i = 1`). Applicants are taken in
    order of decreasing utility, ties by lower index, as long as the utility is
    positive and fewer than ``capacity`` are selected — the optimal policy for
    unit weights.

    Parameters
    ----------
    values : array of float, shape (n,)
    capacity : int
        Number of slots (>= 0).

    Returns
    -------
    Allocation

    Examples
    --------
    The paper's Table 2 (admissions, G = 1, C = 0.6): with 2 or 3 slots the
    same two applicants are admitted, because applicant 3's utility is 0.

    >>> greedy([0.2, 0.1, 0.0, -0.1], 2).selected.astype(int).tolist()
    [1, 1, 0, 0]
    >>> greedy([0.2, 0.1, 0.0, -0.1], 3).selected.astype(int).tolist()
    [1, 1, 0, 0]
    """
    v = _check_values(values)
    r = _check_capacity(capacity)
    order = _greedy_order(v)
    chosen = order[:r]
    chosen = chosen[v[chosen] > 0]
    selected = np.zeros(len(v), dtype=bool)
    selected[chosen] = True
    return Allocation(selected, float(v[selected].sum()), r, "greedy", v, np.ones(len(v), dtype=np.int64))


def allocate(values, weights, capacity, policy: str = "knapsack") -> Allocation:
    """Run an allocation policy: ``"knapsack"`` (:func:`knapsack`) or ``"greedy"`` (:func:`greedy`).

    For the greedy policy ``weights`` must be None or all ones (one slot each).

    Examples
    --------
    >>> allocate([0.2, 0.1, 0.0, -0.1], None, 2, policy="greedy").selected_index.tolist()
    [0, 1]
    """
    policy = _check_policy(policy)
    if policy == "knapsack":
        return knapsack(values, weights, capacity)
    v = _check_values(values)
    _policy_weights("greedy", weights, len(v))
    return greedy(v, capacity)


# --------------------------------------------------------------------------- utility counterfactuals
def _add_item(row: np.ndarray, wi: int, vi: float) -> np.ndarray:
    """One knapsack DP step on a value row (capacities 0..R): the row with one more item available."""
    if vi <= 0 or wi >= len(row):
        return row
    new = row.copy()
    if wi == 0:
        new += vi
    else:
        np.maximum(row[wi:], row[:-wi] + vi, out=new[wi:])
    return new


def _maxplus_at(f: np.ndarray, b: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """max_{0 <= c <= q} f[c] + b[q - c] for each query q (-inf for q < 0).

    Small capacities: one (queries x capacity) matrix built from a sliding window
    over the reversed ``b`` (in chunks of bounded memory). Large capacities: one
    vectorised pass per query over contiguous slices, which then costs less than
    building the matrix (measured in benchmarks/allocation.py's setting).
    """
    out = np.full(len(queries), -np.inf)
    ok = queries >= 0
    if not ok.any():
        return out
    q = queries[ok]
    top = int(q.max())
    if top >= _SLICE_LOOP_FROM or len(q) < 8:
        out[ok] = [(f[: t + 1] + b[t::-1]).max() for t in q.tolist()]
        return out
    padded = np.concatenate([b[top::-1], np.full(top, -np.inf)])    # padded[k] = b[top - k], -inf past b[0]
    window = np.lib.stride_tricks.sliding_window_view(padded, top + 1)  # window[top - t][c] = b[t - c]
    head = f[: top + 1]
    found = np.empty(len(q))
    step = max(1, _BLOCK_CELLS // 4 // (top + 1))
    for s in range(0, len(q), step):
        found[s:s + step] = (window[top - q[s:s + step]] + head).max(axis=1)
    out[ok] = found
    return out


def _leave_one_out(v: np.ndarray, w: np.ndarray, R: int, queries: Callable[[int], np.ndarray]) -> list:
    """L_i(q) = U*([n] \\ i, q) for each i and each q in queries(i), from prefix and suffix tables.

    F[i] (items < i) is swept forward one row at a time; B[i + 1] (items > i) is
    computed backwards. To bound memory on long pools, B is kept only at block
    boundaries (blocks of k = _BLOCK_CELLS // (R + 1) rows) and each block's rows
    are recomputed from its checkpoint when the forward sweep reaches it: at most
    k + n / k rows are held, for at most 3n DP row updates instead of 2n.
    """
    n = len(v)
    k = max(1, _BLOCK_CELLS // (R + 1))          # rows per block
    ends = list(range(k, n, k)) + [n]            # block [s, e) needs B[s + 1 .. e]
    boundaries = set(ends)
    checkpoint = {}
    first = {}
    row = np.zeros(R + 1)                        # B[n]
    for j in range(n, 0, -1):                    # row == B[j]
        if j in boundaries:
            checkpoint[j] = row
        if j <= ends[0]:
            first[j] = row
        row = _add_item(row, int(w[j - 1]), float(v[j - 1]))
    results = []
    f = np.zeros(R + 1)                          # F[0]
    start = 0
    for end in ends:
        if start == 0:
            suffix = first
        else:
            suffix = {end: checkpoint[end]}
            for j in range(end - 1, start, -1):
                suffix[j] = _add_item(suffix[j + 1], int(w[j]), float(v[j]))
        for i in range(start, end):
            results.append(_maxplus_at(f, suffix[i + 1], queries(i)))
            f = _add_item(f, int(w[i]), float(v[i]))
        start = end
    return results


def _knapsack_thresholds(v: np.ndarray, w: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """t[j, i] = U*([n]\\i, caps[j]) - U*([n]\\i, caps[j] - w_i); inf where w_i > caps[j]."""
    positive = v > 0
    R = int(min(caps.max(), w[positive].sum()))
    if len(v) * (R + 1) > _MAX_TABLE_CELLS:
        raise ValueError(
            f"capacity={int(caps.max())} with {len(v)} applicants means {len(v)} x {R + 1} DP cells; express the "
            "resource in coarser units so that n * capacity stays below "
            f"{_MAX_TABLE_CELLS:,}."
        )
    unique, inverse = np.unique(caps, return_inverse=True)
    K = len(unique)
    top = np.minimum(unique, R)                  # beyond R every positive applicant fits: L is flat

    def queries(i):
        short = unique - w[i]
        return np.concatenate([top, np.where(short < 0, -1, np.minimum(short, R))])

    loo = np.array(_leave_one_out(v, w, R, queries))          # (n, 2K)
    t = loo[:, :K] - loo[:, K:]                               # -inf in the second half -> +inf
    t[~np.isfinite(t)] = np.inf
    return t.T[inverse]                                       # (n_caps, n)


def _greedy_thresholds(v: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """t[j, i]: the r-th best positive utility among the others (0 if a slot would stay free); inf for r = 0."""
    n = len(v)
    order = _greedy_order(v)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    ranked = np.append(np.maximum(v[order], 0.0), 0.0)           # positive utilities, then zeros
    r = caps[:, None]
    inside = (v[None, :] > 0) & (rank[None, :] < r)             # selected at this capacity
    index = np.minimum(r - 1 + inside, n)
    t = ranked[np.maximum(index, 0)]
    return np.where(r == 0, np.inf, t)


def utility_ce(values, weights, capacity, *, policy: str = "knapsack", eps: float = 1e-6) -> np.ndarray:
    """The minimal utility that gets each applicant selected, for every applicant at once (Section 5).

    **Knapsack.** The paper's minimal utility counterfactual of a refused
    applicant :math:`i` is

    .. math:: v'_i = U^*([n], r) - U^*([n] \\setminus i,\\ r - w_i) + \\varepsilon ,

    the optimum minus the best allocation of the others in what is left once
    :math:`i` is in. We compute it as
    :math:`U^*([n] \\setminus i, r) - U^*([n] \\setminus i, r - w_i) + \\varepsilon`,
    which is the same number when :math:`i` is refused (then
    :math:`U^*([n], r) = U^*([n] \\setminus i, r)`), and for a selected applicant
    is the threshold their utility must stay above to remain selected (the
    paper's literal formula would return :math:`v_i + \\varepsilon` for them).
    With a prefix table :math:`F[i][c]` (best value of applicants :math:`< i`)
    and a suffix table :math:`B[i][c]` (applicants :math:`\\ge i`),

    .. math:: U^*([n] \\setminus i, q) = \\max_{0 \\le c \\le q} F[i][c] + B[i + 1][q - c],

    so all :math:`n` counterfactuals take :math:`O(n r)` time, not the
    :math:`O(n^2 r)` of re-solving one knapsack per applicant
    (:func:`utility_ce_naive`). Applicants with non-positive utility are
    ignored by the policy and so by the tables. If :math:`w_i > r` the applicant
    can never be selected: ``inf``.

    **Greedy.** With all :math:`r` slots taken by others,
    :math:`v'_i = \\min_{j: y_j = 1} v_j + \\varepsilon`; with a slot free,
    :math:`v'_i = \\varepsilon` (the paper's two cases). For a selected applicant
    the rule is applied to the greedy allocation of the others, i.e. with
    :math:`i` removed and the next applicant in line moved up. ``capacity = 0``
    gives ``inf``.

    The margin :math:`\\varepsilon` makes the counterfactual strict: with
    utility :math:`v'_i` the applicant is in *every* optimal allocation, so the
    result does not depend on tie-breaking.

    Parameters
    ----------
    values : array of float, shape (n,)
        Current individual utilities.
    weights : array of int, shape (n,), or None
        Requested amounts (knapsack); None or ones for the greedy policy.
    capacity : int
    policy : {"knapsack", "greedy"}
    eps : float, default 1e-6

    Returns
    -------
    ndarray of float, shape (n,)

    Examples
    --------
    >>> v = [0.8, 0.625, 0.5, 0.425]
    >>> utility_ce(v, [4, 3, 2, 1], 6, eps=1e-9).round(6).tolist()   # Table 1: applicant 1 needs 1.05
    [1.05, 0.375, 0.175, 0.175]
    >>> utility_ce([0.2, 0.1, 0.0, -0.1], None, 2, policy="greedy", eps=1e-9).round(6).tolist()   # Table 2
    [0.0, 0.0, 0.1, 0.1]
    """
    return _utility_ce_matrix(values, weights, [capacity], policy, eps, single=True)[0]


def _utility_ce_matrix(values, weights, capacities, policy, eps, *, single=False) -> np.ndarray:
    policy = _check_policy(policy)
    v = _check_values(values)
    w = _policy_weights(policy, weights, len(v))
    caps = np.array([_check_capacity(capacities[0])]) if single else _check_capacities(capacities)
    eps = _check_eps(eps)
    t = _knapsack_thresholds(v, w, caps) if policy == "knapsack" else _greedy_thresholds(v, caps)
    return t + eps


def utility_ce_naive(values, weights, capacity, *, policy: str = "knapsack", eps: float = 1e-6) -> np.ndarray:
    """Reference for :func:`utility_ce`: re-solve the allocation for each applicant.

    Knapsack: for each :math:`i`, two knapsacks over the others — with capacity
    :math:`r` (applicant :math:`i` removed) and :math:`r - w_i` (room made for
    :math:`i`, forced in). Greedy: the greedy allocation of the others and the
    paper's two cases. :math:`O(n^2 r)`; for tests and benchmarks.

    Examples
    --------
    >>> utility_ce_naive([0.8, 0.625, 0.5, 0.425], [4, 3, 2, 1], 6, eps=1e-9).round(6).tolist()
    [1.05, 0.375, 0.175, 0.175]
    """
    policy = _check_policy(policy)
    v = _check_values(values)
    w = _policy_weights(policy, weights, len(v))
    r = _check_capacity(capacity)
    eps = _check_eps(eps)
    out = np.empty(len(v))
    for i in range(len(v)):
        others = np.delete(np.arange(len(v)), i)
        if policy == "knapsack":
            if w[i] > r:
                out[i] = np.inf
                continue
            without = _knapsack_solve(v[others], w[others], r)[1] if len(others) else 0.0
            forced = _knapsack_solve(v[others], w[others], r - int(w[i]))[1] if len(others) else 0.0
            out[i] = without - forced + eps
        else:
            if r == 0:
                out[i] = np.inf
                continue
            chosen = greedy(v[others], r).selected if len(others) else np.zeros(0, dtype=bool)
            full = chosen.sum() == r
            out[i] = (v[others][chosen].min() + eps) if full else eps
    return out


def prediction_ce(v_prime, utility, weights=None):
    """The prediction counterfactual :math:`m' = S_\\theta^{-1}(v')` of utility counterfactuals.

    Because :math:`S_\\theta` increases, an applicant gets the utility
    :math:`v'` exactly when their predicted probability reaches :math:`m'`.
    Values above 1 mean that no probability is enough under the current
    budget and competition; they are kept (the paper's appendix, note 2), and
    ``inf`` (can never be selected) stays ``inf``.

    Parameters
    ----------
    v_prime : float or array
        Utility counterfactuals (e.g. from :func:`utility_ce`).
    utility : LendingUtility or AdmissionUtility
    weights : array, optional
        Requested amounts (needed by the lending utility).

    Examples
    --------
    >>> u = LendingUtility(G1=0.05, G2=1, C=0.2)
    >>> v = utility_ce([0.8, 0.625, 0.5, 0.425], [4, 3, 2, 1], 6, eps=1e-9)
    >>> prediction_ce(v, u, [4, 3, 2, 1]).round(6).tolist()
    [0.925, 0.557143, 0.383333, 0.3]
    """
    utility = _check_utility(utility)
    return utility.probability(_check_utilities(v_prime, "v_prime"), weights)


def prediction_cost(m, m_prime):
    """The paper's recourse cost in probability space: :math:`|M(x) - m'|`, 0 when :math:`M(x) \\ge m'`.

    ``m`` are probabilities in [0, 1]; ``m_prime`` are prediction
    counterfactuals (>= 0; above 1 or ``inf`` is allowed and gives that cost).

    Examples
    --------
    >>> prediction_cost([0.8, 0.9], [0.925, 0.5]).round(3).tolist()
    [0.125, 0.0]
    """
    m = _check_probabilities(m, "m")
    m_prime = _check_targets(m_prime, "m_prime")
    out = np.maximum(m_prime - m, 0.0)
    return float(out) if out.ndim == 0 else out


# --------------------------------------------------------------------------- feature counterfactuals
@dataclass(frozen=True)
class FeatureCounterfactual:
    """The cheapest observed, feasible profile whose predicted probability reaches :math:`m'`.

    Attributes
    ----------
    index : int
        Row of the applicant in ``Z``.
    target : int
        Row of the counterfactual profile in ``Z``;
        :data:`~recourselab.counterfactuals.NO_COUNTERFACTUAL` when no
        feasible candidate reaches ``m_prime`` (a value numpy refuses as an
        index, so ``Z[target]`` cannot pick a row by mistake; check ``found``).
    cost : float
        Cost of the move (``inf`` when none is found); 0 when the applicant
        already reaches ``m_prime``.
    proba : float
        Model probability of the target profile (NaN when none).
    m_prime : float
        The probability that had to be reached.
    factual_proba : float
        Model probability of the applicant's own profile.
    """

    index: int
    target: int
    cost: float
    proba: float
    m_prime: float
    factual_proba: float = float("nan")

    @property
    def found(self) -> bool:
        """Whether a feasible candidate reaching ``m_prime`` exists."""
        return self.target != NO_COUNTERFACTUAL

    def to_frame(self) -> pd.DataFrame:
        """One-row table of the result (``target`` is ``<NA>`` when none is found)."""
        frame = pd.DataFrame([{
            "index": self.index, "factual_proba": self.factual_proba, "m_prime": self.m_prime,
            "target": self.target if self.found else 0, "proba": self.proba, "cost": self.cost,
            "found": self.found,
        }])
        frame["target"] = frame["target"].astype("Int64").mask(~frame["found"])
        return frame


def feature_ce(model, Z, index, m_prime, encoder, *, candidates=None, weights: Mapping[str, float] | None = None,
               norm: str = "l1") -> FeatureCounterfactual:
    """Step 3 of the pipeline: a feature change that lifts the applicant's probability to :math:`m'`.

    .. math:: x' = \\arg\\min_{z \\in \\mathcal{C},\\ x \\to z \\text{ feasible}} d(x, z)
              \\quad \\text{s.t.} \\quad M(z) \\ge m'

    The search is over observed data points (like FACE): the candidates are
    rows of ``Z`` whose favourable-class probability
    (:func:`~recourselab.models.favourable_proba`) is at least :math:`m'`, the
    move must respect the encoder's actionability, and the cost is
    :meth:`Encoder.cost <recourselab.features.Encoder.cost>` — the cheapest is
    found by :func:`~recourselab.counterfactuals.nearest_counterfactuals`. The
    result is a valid, realistic change but not necessarily the globally
    minimal one (a synthetic point between data points might be cheaper). The
    requested amount :math:`w_i` is treated as fixed by the caller: leave it
    out of the model's features or make it immutable. If the applicant's own
    row already reaches :math:`m'` the answer is that row at cost 0.

    Parameters
    ----------
    model : fitted classifier with ``predict_proba``
        Taking the encoded rows ``Z``; a model fitted on the raw frame (e.g. a
        ``Pipeline`` with its own column transformer) goes in through
        :class:`~recourselab.adapters.EncodedModel` (an unwrapped one is
        refused with that advice, see :func:`~recourselab.adapters.check_model`).
    Z : array of shape (n, n_columns)
        Encoded rows (``encoder.transform``); the applicant and the candidates.
    index : int
        Row of the applicant (a Python or numpy int).
    m_prime : float
        Prediction counterfactual to reach (e.g. from :func:`prediction_ce` or
        :func:`robust_recourse`), >= 0; above 1 or ``inf`` means no profile can.
    encoder : Encoder
        The fitted encoder that produced ``Z``.
    candidates : array of int or bool mask, optional
        Rows of ``Z`` allowed as targets (integer positions, not floats);
        default all rows.
    weights : mapping, optional
        Per-feature cost weights overriding the specs' ``weight``.
    norm : {"l1", "l2"}, default "l1"

    Returns
    -------
    FeatureCounterfactual

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from sklearn.linear_model import LogisticRegression
    >>> from recourselab.features import FeatureSpec, Encoder
    >>> frame = pd.DataFrame({"grade": [3.0, 4.0, 5.0, 6.0, 2.0, 5.5]})
    >>> enc = Encoder([FeatureSpec("grade", "continuous", "increase")]).fit(frame)
    >>> Z = enc.transform(frame)
    >>> model = LogisticRegression(C=100).fit(Z, [0, 0, 1, 1, 0, 1])
    >>> res = feature_ce(model, Z, 0, 0.6, enc)
    >>> res.target, float(frame["grade"][res.target]), round(res.cost, 2)   # the cheapest grade reaching 0.6
    (2, 5.0, 0.5)
    """
    from ..adapters import check_model
    from ..counterfactuals.recourse import nearest_counterfactuals
    from ..features import check_encoded, check_encoder
    from ..models import favourable_proba

    check_encoder(encoder)
    Z = check_encoded(Z, "Z", encoder.n_columns)
    n = len(Z)
    if isinstance(index, bool) or not isinstance(index, numbers.Integral) or not 0 <= index < n:
        raise ValueError(f"index={index!r} must be a row position in Z (0 <= index < {n}).")
    index = int(index)
    if isinstance(m_prime, (bool, np.bool_)) or not isinstance(m_prime, numbers.Real) or math.isnan(m_prime):
        raise ValueError(f"m_prime={m_prime!r} must be a number (a probability to reach).")
    if m_prime < 0:
        raise ValueError(f"m_prime={m_prime!r} is negative; give a probability to reach (>= 0).")
    if candidates is None:
        rows = np.arange(n)
    else:
        cand = np.asarray(candidates)
        if cand.dtype == bool:
            if cand.shape != (n,):
                raise ValueError(f"candidates is a mask of shape {cand.shape}; it must have one entry per row of Z "
                                 f"({n}).")
            rows = np.flatnonzero(cand)
        elif cand.size and not np.issubdtype(cand.dtype, np.integer):
            raise ValueError(
                f"candidates has dtype {cand.dtype}; give integer row positions or a boolean mask (a float such as "
                "1.7 is not truncated to a row)."
            )
        else:
            rows = np.unique(cand.astype(np.int64).ravel())
            if len(rows) and (rows.min() < 0 or rows.max() >= n):
                raise ValueError(f"candidates hold row positions outside 0..{n - 1}.")
    check_model(model, encoder)
    own = float(favourable_proba(model, Z[index:index + 1])[0])
    if own >= m_prime:
        return FeatureCounterfactual(index, index, 0.0, own, float(m_prime), own)
    if len(rows) == 0 or not math.isfinite(m_prime) or m_prime > 1:
        return FeatureCounterfactual(index, NO_COUNTERFACTUAL, float("inf"), float("nan"), float(m_prime), own)
    proba = favourable_proba(model, Z[rows])
    reach = rows[proba >= m_prime]
    if len(reach) == 0:
        return FeatureCounterfactual(index, NO_COUNTERFACTUAL, float("inf"), float("nan"), float(m_prime), own)
    res = nearest_counterfactuals(Z[index:index + 1], Z[reach], encoder, weights=weights, norm=norm)
    if not res.has_recourse[0]:
        return FeatureCounterfactual(index, NO_COUNTERFACTUAL, float("inf"), float("nan"), float(m_prime), own)
    target = int(reach[res.best_index[0]])
    return FeatureCounterfactual(index, target, float(res.best_cost[0]), float(proba[rows == target][0]),
                                 float(m_prime), own)


# --------------------------------------------------------------------------- robust recourse
def prediction_ce_matrix(proba, weights, capacities, *, policy: str, utility, eps: float = 1e-6) -> np.ndarray:
    """Prediction counterfactuals of every applicant under each of several budgets.

    Row :math:`j` is :func:`prediction_ce` of :func:`utility_ce` at capacity
    ``capacities[j]``, the population and the utility being fixed (as in the
    paper's experiments, where only the budget varies). An applicant's
    counterfactual depends on the others only, not on their own probability.

    For the knapsack policy the prefix and suffix tables are built **once**,
    for the largest capacity: a row :math:`F[i][\\cdot]` over capacities
    :math:`0..r_{max}` already holds the optimum for every smaller capacity
    (the paper's appendix, note 1), so each further budget costs only the
    :math:`O(r)` combination per applicant, and repeated budgets are computed
    once. The greedy policy is a closed form (order statistics of the sorted
    utilities), vectorised over budgets and applicants.

    Parameters
    ----------
    proba : array of float, shape (n,)
        Predicted probabilities :math:`M(x_i)`, in [0, 1].
    weights : array of int, shape (n,), or None
        Requested amounts (knapsack); None for the greedy policy.
    capacities : array of int, shape (n_capacities,)
    policy : {"knapsack", "greedy"}
    utility : LendingUtility or AdmissionUtility
    eps : float, default 1e-6

    Returns
    -------
    ndarray of float, shape (n_capacities, n)

    Examples
    --------
    >>> u = AdmissionUtility(G=1, C=0.6)
    >>> prediction_ce_matrix([0.8, 0.7, 0.6, 0.5], None, [2, 3], policy="greedy", utility=u, eps=1e-9).round(6)
    array([[0.6, 0.6, 0.7, 0.7],
           [0.6, 0.6, 0.6, 0.6]])
    """
    utility = _check_utility(utility)
    p = _check_probabilities(_check_values(proba, "proba"), "proba")
    values = utility.value(p, weights)
    v_prime = _utility_ce_matrix(values, weights, capacities, policy, eps)
    if weights is None:
        return utility.probability(v_prime, None)
    return utility.probability(v_prime, np.broadcast_to(np.asarray(weights, dtype=float), v_prime.shape))


def robust_recourse(ce_samples, rho) -> np.ndarray:
    """The :math:`\\rho`-robust prediction counterfactual of Algorithm 1, per applicant.

    Given prediction counterfactuals :math:`m'_1, \\dots, m'_n` of one
    applicant under :math:`n` sampled allocation problems, the smallest
    probability that is valid in at least a share :math:`\\rho` of them is the
    :math:`\\lceil \\rho n \\rceil`-th smallest,

    .. math:: m_\\rho = \\operatorname{sorted}(m'_1, \\dots, m'_n)[\\lceil \\rho n \\rceil],

    valid because the policies are monotone: a probability that wins in one
    problem wins in every problem with a lower counterfactual. ``rho = 0`` is
    defined as the smallest counterfactual (valid in at least one sample);
    ``rho = 1`` is the largest (valid in all).

    Parameters
    ----------
    ce_samples : array of float, shape (n_samples, n)
        Prediction counterfactuals, e.g. :func:`prediction_ce_matrix` over
        sampled budgets: >= 0, ``inf`` allowed, NaN not.
    rho : float in [0, 1]

    Returns
    -------
    ndarray of float, shape (n,)

    Examples
    --------
    The paper's illustration (Section 6.2): with counterfactuals
    (0.1, 0.2, 0.01, 0.2, 0.2, 0.25), validity 0.5 needs 0.2.

    >>> robust_recourse([[0.1], [0.2], [0.01], [0.2], [0.2], [0.25]], 0.5).tolist()
    [0.2]
    """
    samples = _check_targets(ce_samples, "ce_samples")
    if samples.ndim == 1:
        samples = samples[:, None]
    if samples.ndim != 2 or samples.shape[0] == 0:
        raise ValueError(f"ce_samples has shape {samples.shape}; give an array (n_samples, n) with n_samples >= 1.")
    rho = check_unit_interval(rho, "rho")
    k = max(1, math.ceil(rho * samples.shape[0] - 1e-12))   # guard against 0.7 * 10 = 7.000000000000001
    return np.partition(samples, k - 1, axis=0)[k - 1]


@dataclass(frozen=True)
class MonteCarloRecourse:
    """The result of :func:`monte_carlo_recourse` for one applicant.

    Attributes
    ----------
    m_prime : float
        The :math:`\\rho`-robust prediction counterfactual :math:`m_\\rho`.
    proba : float
        The applicant's current probability :math:`M(x_i)`.
    cost : float
        :func:`prediction_cost` of moving from ``proba`` to ``m_prime``.
    rho : float
    samples : ndarray of float, shape (n_samples,)
        The prediction counterfactual in each sampled problem.
    capacities : ndarray of int, shape (n_samples,)
        The sampled budgets.
    validity : float
        Share of the samples in which ``max(proba, m_prime)`` is enough.
    """

    m_prime: float
    proba: float
    cost: float
    rho: float
    samples: np.ndarray
    capacities: np.ndarray
    validity: float

    def to_frame(self) -> pd.DataFrame:
        """One row per sampled problem: budget, counterfactual, and whether ``m_prime`` is valid there."""
        m_new = max(self.proba, self.m_prime) if math.isfinite(self.m_prime) else self.proba
        return pd.DataFrame({
            "capacity": self.capacities,
            "prediction_ce": self.samples,
            "valid": (m_new >= self.samples) & np.isfinite(self.samples),
        }, index=pd.RangeIndex(len(self.samples), name="sample"))


def _single_threshold(v_others: np.ndarray, w_others: np.ndarray, w_i: int, r: int, policy: str) -> float:
    """Utility threshold of a newcomer (weight w_i) joining the pool of others at capacity r."""
    if policy == "greedy":
        if r == 0:
            return np.inf
        top = np.sort(v_others[v_others > 0])[::-1]
        return float(top[r - 1]) if len(top) >= r else 0.0
    if w_i > r:
        return np.inf
    useful = v_others > 0
    R = int(min(r, w_others[useful].sum()))
    row = np.zeros(R + 1)
    for j in np.flatnonzero(useful):
        row = _add_item(row, int(w_others[j]), float(v_others[j]))
    return float(row[R] - row[min(r - w_i, R)])


def monte_carlo_recourse(m_i, w_i, sampler: Callable, n_samples: int, rho, *, policy: str,
                         random_state=None, eps: float = 1e-6) -> MonteCarloRecourse:
    """Algorithm 1: Monte-Carlo :math:`\\rho`-robust recourse over sampled allocation problems.

    For :math:`j = 1..n`: sample a problem :math:`(r_j, X_j, \\theta_j) \\sim D`
    with ``sampler(rng)``, add the applicant to the pool, compute their minimal
    utility counterfactual :math:`v'_j` under the policy and the prediction
    counterfactual :math:`m'_j = S_{\\theta_j}^{-1}(v'_j)`; return the
    :math:`\\lceil \\rho n \\rceil`-th smallest :math:`m'_j`
    (:func:`robust_recourse`). Budgets, the other applicants and the utility
    parameters may all vary between samples.

    Parameters
    ----------
    m_i : float in [0, 1]
        The applicant's current probability.
    w_i : int
        The applicant's requested amount (ignored by the greedy policy).
    sampler : callable
        ``sampler(rng) -> (others_proba, others_weights, capacity, utility)``
        for one sampled problem (``others_proba`` in [0, 1]); ``others_weights``
        may be None for the greedy policy.
    n_samples : int >= 1
    rho : float in [0, 1]
    policy : {"knapsack", "greedy"}
    random_state : int, numpy Generator or None
        Passed to ``sampler`` as a Generator.
    eps : float, default 1e-6
        Tie-breaking margin of the utility counterfactual (see :func:`utility_ce`).

    Returns
    -------
    MonteCarloRecourse

    Examples
    --------
    >>> u = AdmissionUtility(G=2, C=1)
    >>> others = np.array([0.9, 0.8, 0.7, 0.6, 0.55])
    >>> def sampler(rng):
    ...     return others, None, int(rng.integers(1, 6)), u
    >>> res = monte_carlo_recourse(0.5, 1, sampler, 200, 0.7, policy="greedy", random_state=0)
    >>> round(res.m_prime, 4), round(res.validity, 2)   # one slot more than 0.8 needs is rare
    (0.8, 0.81)
    """
    policy = _check_policy(policy)
    if isinstance(m_i, (bool, np.bool_)) or not isinstance(m_i, numbers.Real) or not (math.isfinite(m_i)
                                                                                       and 0 <= m_i <= 1):
        raise ValueError(f"m_i={m_i!r} must be a probability in [0, 1] (the applicant's current probability).")
    w_i = _check_capacity(w_i, "w_i") if policy == "knapsack" else 1
    n_samples = _check_count(n_samples, "n_samples")
    rho = check_unit_interval(rho, "rho")
    if not callable(sampler):
        raise TypeError(f"sampler must be a function rng -> (others_proba, others_weights, capacity, utility), "
                        f"got {type(sampler).__name__}.")
    eps = _check_eps(eps)
    rng = check_rng(random_state)
    samples = np.empty(n_samples)
    caps = np.empty(n_samples, dtype=np.int64)
    for j in range(n_samples):
        drawn = sampler(rng)
        if not (isinstance(drawn, tuple) and len(drawn) == 4):
            raise TypeError("sampler(rng) must return a tuple (others_proba, others_weights, capacity, utility).")
        p_others, w_others, capacity, utility = drawn
        utility = _check_utility(utility)
        p_others = _check_probabilities(np.atleast_1d(p_others), "others_proba").ravel()
        w_others = (_policy_weights(policy, w_others, len(p_others), "others_weights") if len(p_others)
                    else np.zeros(0, np.int64))
        r = _check_capacity(capacity, "capacity (from sampler)")
        values = utility.value(p_others, w_others if policy == "knapsack" else None) if len(p_others) else p_others
        t = _single_threshold(np.asarray(values, dtype=float), w_others, w_i, r, policy)
        samples[j] = utility.probability(t + eps, w_i if policy == "knapsack" else None)
        caps[j] = r
    m_rho = float(robust_recourse(samples[:, None], rho)[0])
    m_new = max(m_i, m_rho) if math.isfinite(m_rho) else m_i
    valid = float(np.mean((m_new >= samples) & np.isfinite(samples)))
    return MonteCarloRecourse(m_rho, float(m_i), float(prediction_cost(m_i, m_rho)), rho, samples, caps, valid)


def noisy_recourse(proba, weights, capacity, sigma, p, *, policy: str, utility, n_samples: int = 200,
                   random_state=None) -> np.ndarray:
    """The p-noisy baseline: the largest prediction counterfactual over perturbed budgets.

    Budgets :math:`r + \\nu_j`, with :math:`\\nu_j \\sim \\mathcal{N}(0, \\sigma^2)`
    truncated to :math:`[-z\\sigma, z\\sigma]` where
    :math:`z = \\Phi^{-1}((1 + p)/2)`, so that a share :math:`p` of the untruncated
    normal mass lies in the range; budgets are rounded to integers and clipped
    at 0. The recourse is the maximum of the prediction counterfactuals over
    the ``n_samples`` budgets — robustness to perturbations of the current
    budget, in the spirit of perturbation-robust recourse, rather than to the
    budget distribution itself. The paper sets :math:`\\sigma` to the budget
    distribution's standard deviation.

    Parameters
    ----------
    proba : array of float, shape (n,)
    weights : array of int, shape (n,), or None
    capacity : int
        The current budget :math:`r`.
    sigma : float >= 0
    p : float in [0, 1]
        ``p = 0`` keeps only the current budget; ``p = 1`` does not truncate.
    policy : {"knapsack", "greedy"}
    utility : LendingUtility or AdmissionUtility
    n_samples : int, default 200
    random_state : int, numpy Generator or None

    Returns
    -------
    ndarray of float, shape (n,)

    Examples
    --------
    >>> u = AdmissionUtility(G=1, C=0.6)
    >>> noisy_recourse([0.8, 0.7, 0.6, 0.5], None, 2, 0.5, 0.9, policy="greedy", utility=u,
    ...                random_state=0).round(3).tolist()   # budgets 1 to 3: the worst is 1 slot
    [0.7, 0.8, 0.8, 0.8]
    """
    r = _check_capacity(capacity)
    if isinstance(sigma, bool) or not isinstance(sigma, numbers.Real) or not (math.isfinite(sigma) and sigma >= 0):
        raise ValueError(f"sigma={sigma!r} must be a finite number >= 0 (the budget distribution's sd).")
    p = check_unit_interval(p, "p")
    n_samples = _check_count(n_samples, "n_samples")
    rng = check_rng(random_state)
    z = float(norm.ppf((1 + p) / 2))
    if sigma == 0 or z == 0:
        noise = np.zeros(n_samples)
    else:
        noise = truncnorm.rvs(-z, z, loc=0.0, scale=sigma, size=n_samples, random_state=rng)
    caps = np.maximum(np.round(r + noise), 0).astype(np.int64)
    return prediction_ce_matrix(proba, weights, caps, policy=policy, utility=utility).max(axis=0)


def validity(m_new, proba, weights, capacities, *, policy: str, utility, eps: float = 1e-6) -> np.ndarray:
    """Share of budgets under which each applicant, with probability ``m_new[i]``, is selected.

    Applicant :math:`i` alone moves to ``m_new[i]``; everyone else keeps
    ``proba``. Since both policies are monotone in the utility and the utility
    increases with the probability, :math:`i` is selected under budget
    :math:`r_j` exactly when ``m_new[i]`` reaches the prediction
    counterfactual :math:`m'_j(i)`, so

    .. math:: \\text{validity}_i = \\frac{1}{J} \\sum_j \\mathbb{1}[m^{new}_i \\ge m'_j(i)],

    computed for every applicant and budget at once from
    :func:`prediction_ce_matrix`. Because :math:`m'` carries the margin
    :math:`\\varepsilon`, a probability inside the :math:`\\varepsilon` band
    just above a tie counts as not valid (the conservative reading), and an
    infinite counterfactual can never be met.

    Parameters
    ----------
    m_new : array of float, shape (n,)
        New probability of each applicant (e.g. ``max(proba, m')``), >= 0 and
        not NaN. A prediction counterfactual above 1 (or ``inf``) may be passed
        as it is: it counts as valid under the budgets whose counterfactual it
        reaches (``inf`` under every finite one), as in the paper's Table 3.
    proba : array of float, shape (n,)
        Current probabilities of the pool, in [0, 1].
    weights : array of int, shape (n,), or None
    capacities : array of int, shape (n_capacities,)
    policy : {"knapsack", "greedy"}
    utility : LendingUtility or AdmissionUtility
    eps : float, default 1e-6

    Returns
    -------
    ndarray of float, shape (n,)

    Examples
    --------
    >>> u = AdmissionUtility(G=1, C=0.6)
    >>> validity([0.8, 0.7, 0.65, 0.65], [0.8, 0.7, 0.6, 0.5], None, [2, 3], policy="greedy", utility=u).tolist()
    [1.0, 1.0, 0.5, 0.5]
    """
    ce = prediction_ce_matrix(proba, weights, capacities, policy=policy, utility=utility, eps=eps)
    m_new = _check_targets(m_new, "m_new")
    if m_new.shape != ce.shape[1:]:
        raise ValueError(f"m_new has shape {m_new.shape} but the pool has {ce.shape[1]} applicants.")
    return ((m_new[None, :] >= ce) & np.isfinite(ce)).mean(axis=0)


@dataclass(frozen=True)
class BudgetDistribution:
    """A normal distribution of budgets, fitted to historical budgets (Section 6.2).

    Parameters
    ----------
    mean : float
    std : float >= 0

    Examples
    --------
    >>> dist = BudgetDistribution.fit([190, 200, 210, 205, 195])
    >>> dist.mean, round(dist.std, 3)
    (200.0, 7.906)
    >>> dist.sample(5, random_state=0).tolist()
    [201, 199, 205, 201, 196]
    """

    mean: float
    std: float

    def __post_init__(self):
        for name in ("mean", "std"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise ValueError(f"{name}={value!r} must be a finite number.")
            object.__setattr__(self, name, float(value))
        if self.std < 0:
            raise ValueError(f"std={self.std!r} must be >= 0.")

    @classmethod
    def fit(cls, budgets) -> "BudgetDistribution":
        """Normal fit: the sample mean and the sample standard deviation (``ddof=1``) of past budgets."""
        b = _float_array(np.atleast_1d(budgets), "budgets").ravel()
        if len(b) < 2:
            raise ValueError(f"budgets has {len(b)} value(s); fitting a normal distribution needs at least 2 "
                             "historical budgets.")
        return cls(float(b.mean()), float(b.std(ddof=1)))

    def sample(self, n: int, random_state=None) -> np.ndarray:
        """``n`` budgets: normal draws rounded to integers and clipped at 0."""
        n = _check_count(n, "n", minimum=0)
        rng = check_rng(random_state)
        return np.maximum(np.round(rng.normal(self.mean, self.std, size=int(n))), 0).astype(np.int64)


# --------------------------------------------------------------------------- why applicants are refused
#: The reasons :func:`refusal_reasons` gives, in table order.
REFUSAL_REASONS = ("selected", "unprofitable", "budget")


def refusal_reasons(values, weights, capacity, *, policy: str = "knapsack") -> np.ndarray:
    """Why each applicant of one allocation round is refused: unprofitable, or the budget.

    Both policies leave out every applicant whose utility is not positive, so
    a refusal has one of two causes:

    * ``"unprofitable"``: :math:`v_i \\le 0`; the applicant would be refused
      with *any* budget, however large (only a higher score helps);
    * ``"budget"``: :math:`v_i > 0` but not selected; with a large enough
      budget the applicant would be funded (the knapsack had no room left for
      the request, or all greedy slots went to better applicants). A request
      larger than the whole budget counts here too.

    Selected applicants get ``"selected"``. The share of refusals caused by
    the budget tells whether a data set tests an allocation method at all: if
    it is near 0, the budget never binds and the allocation is a threshold rule
    on the utility (see :func:`refusal_breakdown` for many rounds).

    Parameters
    ----------
    values : array of float, shape (n,)
        Individual utilities :math:`v_i` (finite).
    weights : array of int, shape (n,), or None
        Requested amounts (knapsack); None or ones for the greedy policy.
    capacity : int
        The budget (knapsack) or the number of slots (greedy).
    policy : {"knapsack", "greedy"}, default "knapsack"

    Returns
    -------
    ndarray of str, shape (n,)
        One of :data:`REFUSAL_REASONS` per applicant.

    Examples
    --------
    The paper's Table 1 (lending, budget 6): applicant 1 has the largest
    utility and is refused only because their request does not fit.

    >>> refusal_reasons([0.8, 0.625, 0.5, 0.425], [4, 3, 2, 1], 6).tolist()
    ['budget', 'selected', 'selected', 'selected']
    >>> refusal_reasons([0.2, 0.1, 0.0, -0.1], None, 3, policy="greedy").tolist()   # Table 2, r = 3
    ['selected', 'selected', 'unprofitable', 'unprofitable']
    """
    policy = _check_policy(policy)
    v = _check_values(values)
    chosen = allocate(v, weights, capacity, policy).selected
    return np.where(chosen, "selected", np.where(v > 0, "budget", "unprofitable")).astype(str)


@dataclass(frozen=True)
class RefusalBreakdown:
    """Result of :func:`refusal_breakdown`: why applicants were refused, round by round.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per round (index ``problem``): ``capacity`` (the budget),
        ``demand`` (the total request of the applicants with positive utility:
        what the budget would have to cover to fund every profitable
        applicant), ``used`` (the amount given out), ``selected``,
        ``unprofitable`` and ``budget`` (counts of each reason), ``refused``,
        ``budget_share`` (``budget / refused``; NaN if nobody was refused) and
        ``above_break_even`` (refused applicants whose prediction counterfactual
        lies above the probability at which their utility turns positive: the
        budget, not the break-even point, sets the score they need).
    reasons : list of ndarray of str
        :func:`refusal_reasons` of each round.
    """

    frame: pd.DataFrame
    reasons: list = field(repr=False)

    @property
    def budget_share(self) -> float:
        """Share of all refusals (pooled over rounds) caused by the budget; NaN if nobody was refused."""
        refused = int(self.frame["refused"].sum())
        return float(self.frame["budget"].sum() / refused) if refused else float("nan")

    @property
    def profitable_refused_share(self) -> float:
        """Share of the applicants with positive utility (pooled over rounds) that were refused."""
        profitable = int((self.frame["selected"] + self.frame["budget"]).sum())
        return float(self.frame["budget"].sum() / profitable) if profitable else float("nan")

    @property
    def above_break_even_share(self) -> float:
        """Share of all refusals (pooled) whose needed probability lies above their break-even probability."""
        refused = int(self.frame["refused"].sum())
        return float(self.frame["above_break_even"].sum() / refused) if refused else float("nan")

    def to_frame(self) -> pd.DataFrame:
        """The per-round table (a copy of :attr:`frame`)."""
        return self.frame.copy()

    def summary(self) -> pd.Series:
        """Pooled shares and the spread of the per-round budget share (mean, sd, min, max over rounds)."""
        per_round = self.frame["budget_share"]
        return pd.Series({
            "rounds": len(self.frame),
            "budget_share": self.budget_share,
            "profitable_refused_share": self.profitable_refused_share,
            "above_break_even_share": self.above_break_even_share,
            "budget_share_mean": float(per_round.mean()),
            "budget_share_sd": float(per_round.std(ddof=1)) if per_round.notna().sum() > 1 else float("nan"),
            "budget_share_min": float(per_round.min()),
            "budget_share_max": float(per_round.max()),
            "capacity_over_demand": float(self.frame["capacity"].sum() / self.frame["demand"].sum())
            if self.frame["demand"].sum() > 0 else float("inf"),
        }, name="refusals")


def refusal_breakdown(proba, weights, capacities, problems: Sequence, *, policy: str, utility,
                      eps: float = 1e-6) -> RefusalBreakdown:
    """Classify the refusals of many allocation rounds and report the share caused by the budget.

    Round :math:`k` allocates ``capacities[k]`` among the applicants
    ``problems[k]`` (row positions into ``proba``); every refusal is labelled
    by :func:`refusal_reasons`. Besides the counts, each round records whether
    the budget *sets the bar*: a refused applicant's prediction counterfactual
    (:func:`prediction_ce_matrix`) lies above their break-even probability
    :math:`S_\\theta^{-1}(0)` when the utility counterfactual exceeds
    :math:`2\\varepsilon`, i.e. when the others' claim on the budget asks for
    more than a positive utility. An unprofitable applicant in a round whose
    budget binds is refused for lack of profit but still needs more than the
    break-even score.

    Parameters
    ----------
    proba : array of float, shape (N,)
        Predicted probabilities of the whole pool, in [0, 1].
    weights : array of int, shape (N,), or None
        Requested amounts (knapsack); None for the greedy policy.
    capacities : array of int, shape (n_problems,)
        The budget of each round (e.g. :attr:`RobustnessExperiment.capacities`).
    problems : sequence of int arrays
        Row positions of each round's applicants.
    policy : {"knapsack", "greedy"}
    utility : LendingUtility or AdmissionUtility
    eps : float, default 1e-6
        Tie-breaking margin of the utility counterfactual.

    Returns
    -------
    RefusalBreakdown

    Examples
    --------
    >>> u = LendingUtility(G1=0.05, G2=1, C=0.2)
    >>> res = refusal_breakdown([0.8, 0.7, 0.6, 0.5, 0.1], [4, 3, 2, 1, 5], [6, 10], [[0, 1, 2, 3, 4]] * 2,
    ...                         policy="knapsack", utility=u)
    >>> res.frame[["capacity", "demand", "used", "unprofitable", "budget", "budget_share"]]
             capacity  demand  used  unprofitable  budget  budget_share
    problem
    0               6      10     6             1       1          0.5
    1              10      10    10             1       0          0.0
    >>> res.budget_share
    0.3333333333333333
    """
    utility = _check_utility(utility)
    policy = _check_policy(policy)
    p_all = _check_probabilities(_check_values(proba, "proba"), "proba")
    w_all = _policy_weights(policy, weights, len(p_all))
    caps = _check_capacities(capacities)
    problems = list(problems)
    if not problems:
        raise ValueError("problems is empty; give at least one array of applicant positions.")
    if len(problems) != len(caps):
        raise ValueError(f"capacities has {len(caps)} budget(s) but problems has {len(problems)} round(s); give one "
                         "budget per round.")
    eps = _check_eps(eps)
    rows, reasons = [], []
    for number, members in enumerate(problems):
        members = np.asarray(members)
        if members.ndim != 1 or len(members) == 0 or not np.issubdtype(members.dtype, np.integer):
            raise ValueError(f"problems[{number}] must be a non-empty 1-d array of integer row positions.")
        if members.min() < 0 or members.max() >= len(p_all):
            raise ValueError(f"problems[{number}] holds positions outside 0..{len(p_all) - 1}.")
        P, W = p_all[members], w_all[members]
        utility_weights = W if policy == "knapsack" else None
        values = np.asarray(utility.value(P, utility_weights), dtype=float)
        reason = refusal_reasons(values, utility_weights, int(caps[number]), policy=policy)
        refused = reason != "selected"
        bar = _utility_ce_matrix(values, utility_weights, caps[number:number + 1], policy, eps)[0]
        rows.append({
            "capacity": int(caps[number]),
            "demand": int(W[values > 0].sum()),
            "used": int(W[~refused].sum()),
            "selected": int((~refused).sum()),
            "unprofitable": int((reason == "unprofitable").sum()),
            "budget": int((reason == "budget").sum()),
            "refused": int(refused.sum()),
            "budget_share": float((reason == "budget").sum() / refused.sum()) if refused.any() else float("nan"),
            "above_break_even": int((refused & (bar > 2 * eps)).sum()),
        })
        reasons.append(reason)
    frame = pd.DataFrame(rows, index=pd.RangeIndex(len(rows), name="problem"))
    return RefusalBreakdown(frame, reasons)


# --------------------------------------------------------------------------- the Table 3 experiment
@dataclass(frozen=True)
class RobustnessExperiment:
    """Result of :func:`robustness_experiment`.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per (problem, refused applicant, method): ``problem``,
        ``applicant`` (row position in ``proba``), ``capacity`` (the problem's
        current budget), ``method``, ``proba``, ``m_prime``, ``cost``
        (:func:`prediction_cost`), ``validity`` (share of the test budgets) and
        ``reason`` (why the applicant was refused at the current budget:
        ``"budget"`` or ``"unprofitable"``, as in :func:`refusal_reasons`).
    capacities : ndarray of int
        The current budget of each problem.
    methods : tuple of str
        Method names in table order.
    """

    frame: pd.DataFrame
    capacities: np.ndarray
    methods: tuple

    @property
    def n_excluded(self) -> int:
        """Refused applicants left out of :meth:`to_frame` because some method's :math:`m'` is infinite."""
        finite = self.frame.assign(finite=np.isfinite(self.frame["m_prime"]))
        return int((~finite.groupby(["problem", "applicant"])["finite"].all()).sum())

    def to_frame(self) -> pd.DataFrame:
        """Table 3: per method, the mean cost normalised by the optimistic baseline's, and the mean validity.

        Means are over the refused applicants whose counterfactual is finite
        under every method (see :attr:`n_excluded`). Columns: ``cost``
        (normalised), ``validity``, ``mean_cost`` (unnormalised) and ``n``.
        """
        finite = self.frame.groupby(["problem", "applicant"])["m_prime"].transform(
            lambda s: np.isfinite(s).all())
        kept = self.frame[finite.astype(bool)]
        table = kept.groupby("method", sort=False).agg(
            mean_cost=("cost", "mean"), validity=("validity", "mean"), n=("cost", "size"))
        table = table.reindex(list(self.methods))
        base = table.loc["optimistic", "mean_cost"]
        table.insert(0, "cost", table["mean_cost"] / base if base > 0 else np.nan)
        return table[["cost", "validity", "mean_cost", "n"]]


def robustness_experiment(proba, weights, *, policy: str, utility, budget_distribution: BudgetDistribution,
                          problems: Sequence, rhos=(0.7, 0.9), ps=(0.7, 0.9), n_validation: int = 200,
                          n_test: int = 200, random_state=0, progress: bool = False) -> RobustnessExperiment:
    """The design of the paper's Table 3: static, :math:`\\rho`-robust, p-noisy and optimistic recourse.

    For each allocation problem (a set of applicants, e.g. 20 rows sampled
    from a test set) with the utility fixed and only the budget random:

    1. draw the current budget from ``budget_distribution`` and allocate;
    2. for every **refused** applicant compute the prediction counterfactual

       * ``static CE``: at the current budget;
       * ``rho-robust`` (each ``rho``): :func:`robust_recourse` over
         ``n_validation`` budgets drawn from the distribution;
       * ``p-noisy`` (each ``p``): :func:`noisy_recourse` around the current
         budget with :math:`\\sigma` = the distribution's sd;
       * ``optimistic``: :math:`\\rho = 1` on the test budgets themselves;

    3. score each with its cost :math:`\\max(m' - M, 0)` and its validity: the
       share of ``n_test`` fresh budgets under which the applicant, moved to
       :math:`\\max(M, m')`, is selected (:func:`validity`). An infinite
       :math:`m'` (no probability is enough) leaves the applicant at :math:`M`.

    :meth:`RobustnessExperiment.to_frame` averages over refused applicants and
    normalises costs by the optimistic baseline's mean cost, as in Table 3.

    Parameters
    ----------
    proba : array of float, shape (N,)
        Predicted probabilities of the whole applicant pool, in [0, 1].
    weights : array of int, shape (N,), or None
        Requested amounts (knapsack); None for the greedy policy.
    policy : {"knapsack", "greedy"}
    utility : LendingUtility or AdmissionUtility
    budget_distribution : BudgetDistribution
    problems : sequence of int arrays
        Row positions (into ``proba``) of each problem's applicants.
    rhos, ps : sequences of distinct floats in [0, 1] (one float is one level)
    n_validation, n_test : int, default 200
    random_state : int or numpy Generator, default 0
    progress : bool, default False
        Progress bar over problems.

    Returns
    -------
    RobustnessExperiment

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> proba = rng.uniform(0.3, 1.0, 200)
    >>> problems = [rng.choice(200, 50, replace=False) for _ in range(3)]
    >>> res = robustness_experiment(proba, None, policy="greedy", utility=AdmissionUtility(2, 1),
    ...                             budget_distribution=BudgetDistribution(20, 3), problems=problems)
    >>> res.to_frame().round(2)[["cost", "validity"]]
                cost  validity
    method
    static CE   0.66      0.68
    0.7-robust  0.67      0.77
    0.9-robust  0.74      0.92
    0.7-noisy   0.81      0.93
    0.9-noisy   0.87      0.99
    optimistic  1.00      1.00
    """
    utility = _check_utility(utility)
    policy = _check_policy(policy)
    if not isinstance(budget_distribution, BudgetDistribution):
        raise TypeError(f"budget_distribution must be a BudgetDistribution, got {type(budget_distribution).__name__}.")
    p_all = _check_probabilities(_check_values(proba, "proba"), "proba")
    w_all = _policy_weights(policy, weights, len(p_all))
    if policy == "greedy":
        w_all = None                                   # one slot each (weights were None or all ones)
    rhos = _check_levels(rhos, "rhos")
    ps = _check_levels(ps, "ps")
    n_validation = _check_count(n_validation, "n_validation")
    n_test = _check_count(n_test, "n_test")
    problems = list(problems)
    if not problems:
        raise ValueError("problems is empty; give at least one array of applicant positions.")
    rng = check_rng(random_state)
    methods = ("static CE", *(f"{r:g}-robust" for r in rhos), *(f"{p:g}-noisy" for p in ps), "optimistic")
    rows, current = [], []
    for number, members in enumerate(tqdm(problems, disable=not progress, desc="problems", unit="problem")):
        members = np.asarray(members)
        if members.ndim != 1 or len(members) == 0 or not np.issubdtype(members.dtype, np.integer):
            raise ValueError(f"problems[{number}] must be a non-empty 1-d array of integer row positions.")
        if members.min() < 0 or members.max() >= len(p_all):
            raise ValueError(f"problems[{number}] holds positions outside 0..{len(p_all) - 1}.")
        P = p_all[members]
        W = None if w_all is None else w_all[members]
        r0 = int(budget_distribution.sample(1, rng)[0])
        val_caps = budget_distribution.sample(n_validation, rng)
        test_caps = budget_distribution.sample(n_test, rng)
        current.append(r0)
        values = np.asarray(utility.value(P, W), dtype=float)
        refused = ~allocate(values, W, r0, policy).selected
        if not refused.any():
            continue
        kw = dict(policy=policy, utility=utility)
        m_primes = {"static CE": prediction_ce_matrix(P, W, [r0], **kw)[0]}
        val = prediction_ce_matrix(P, W, val_caps, **kw)
        for r in rhos:
            m_primes[f"{r:g}-robust"] = robust_recourse(val, r)
        for p in ps:
            m_primes[f"{p:g}-noisy"] = noisy_recourse(P, W, r0, budget_distribution.std, p, n_samples=n_validation,
                                                      random_state=rng, **kw)
        test = prediction_ce_matrix(P, W, test_caps, **kw)
        m_primes["optimistic"] = robust_recourse(test, 1.0)
        finite_test = np.isfinite(test)
        for method in methods:
            m = m_primes[method]
            m_new = np.where(np.isfinite(m), np.maximum(P, m), P)
            valid = ((m_new[None, :] >= test) & finite_test).mean(axis=0)
            cost = prediction_cost(P, m)
            for k in np.flatnonzero(refused):
                rows.append((number, int(members[k]), r0, method, P[k], m[k], cost[k], valid[k],
                             "budget" if values[k] > 0 else "unprofitable"))
    frame = pd.DataFrame(rows, columns=["problem", "applicant", "capacity", "method", "proba", "m_prime", "cost",
                                        "validity", "reason"])
    return RobustnessExperiment(frame, np.asarray(current, dtype=np.int64), methods)


def pareto_dominance(table: pd.DataFrame, *, cost: str = "cost", validity: str = "validity") -> pd.DataFrame:
    """Which method Pareto-dominates which: at most the cost, at least the validity, strictly better on one.

    This is the sense of "dominates" in the paper's discussion of Table 3: a
    method dominates another when no reader would prefer the other one,
    because it is no more expensive *and* no less valid, and better on at
    least one of the two.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per method (the index names it) with a cost column and a
        validity column, e.g. :meth:`RobustnessExperiment.to_frame`.
    cost, validity : str
        Column names (lower cost and higher validity are better).

    Returns
    -------
    pandas.DataFrame of bool
        ``out.loc[a, b]`` is True when method ``a`` dominates method ``b``
        (the diagonal is False).

    Examples
    --------
    >>> t = pd.DataFrame({"cost": [0.42, 0.407, 0.51], "validity": [0.823, 0.84, 0.917]},
    ...                  index=["static CE", "0.7-robust", "0.9-robust"])   # the paper's loans rows
    >>> pareto_dominance(t).loc["0.7-robust"].tolist()
    [True, False, False]
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame with one row per method, got {type(table).__name__}.")
    missing = [c for c in (cost, validity) if c not in table.columns]
    if missing:
        raise ValueError(f"table lacks the column(s) {missing}; its columns are {list(table.columns)}. Pass "
                         "cost=... and validity=... to name them.")
    if table.index.has_duplicates:
        raise ValueError(f"table names a method more than once: {sorted(set(table.index[table.index.duplicated()]))}.")
    c = _float_array(table[cost].to_numpy(), cost)
    v = _float_array(table[validity].to_numpy(), validity)
    no_worse = (c[:, None] <= c[None, :]) & (v[:, None] >= v[None, :])
    better = (c[:, None] < c[None, :]) | (v[:, None] > v[None, :])
    return pd.DataFrame(no_worse & better, index=table.index, columns=table.index)


def _feature_columns(encoder, names, argument: str) -> np.ndarray:
    """Boolean mask of the encoded columns of the features ``names`` (errors name unknown features)."""
    if isinstance(names, str):
        names = (names,)
    names = list(names)
    unknown = [n for n in names if n not in encoder.feature_names]
    if unknown:
        raise ValueError(f"{argument} names {unknown}, which are not features of the encoder; its features are "
                         f"{encoder.feature_names}.")
    mask = np.zeros(encoder.n_columns, dtype=bool)
    for n in names:
        mask[encoder.slices_[n]] = True
    return mask


def graft_candidates(z, Z, encoder, keep) -> np.ndarray:
    """Candidate profiles for :func:`feature_ce` that hold some features at the applicant's values.

    Searching only *observed* profiles (as :func:`feature_ce` does) changes
    every feature in which the nearest observed profile differs, including
    ones the applicant cannot or should not change here: the requested amount
    (it is the knapsack weight, held fixed by the allocation), the purpose of
    the loan, age or a past credit record. Grafting keeps those features at
    the applicant's values and takes every other feature from an observed
    profile, so each candidate is "the applicant, with the situation of
    someone who exists" on the features that may move.

    Parameters
    ----------
    z : array of shape (n_columns,) or (1, n_columns)
        The applicant, encoded.
    Z : array of shape (n, n_columns)
        Encoded observed profiles (the donors).
    encoder : Encoder
        The fitted encoder of ``z`` and ``Z``.
    keep : sequence of str
        Features held at the applicant's values.

    Returns
    -------
    ndarray of shape (n + 1, n_columns)
        Row 0 is the applicant; row ``j + 1`` is ``Z[j]`` with the columns of
        ``keep`` copied from the applicant. Pass it to :func:`feature_ce` with
        ``index=0``.

    Examples
    --------
    >>> import pandas as pd
    >>> from recourselab.features import FeatureSpec, Encoder
    >>> frame = pd.DataFrame({"amount": [10.0, 20.0, 30.0], "savings": [0.0, 5.0, 10.0]})
    >>> enc = Encoder([FeatureSpec("amount", "continuous"), FeatureSpec("savings", "continuous", "increase")])
    >>> Z = enc.fit(frame).transform(frame)
    >>> graft_candidates(Z[0], Z, enc, keep=["amount"]).tolist()
    [[0.0, 0.0], [0.0, 0.0], [0.0, 0.5], [0.0, 1.0]]
    """
    from ..features import check_encoded, check_encoder

    check_encoder(encoder)
    z = check_encoded(np.atleast_2d(z), "z", encoder.n_columns)
    if len(z) != 1:
        raise ValueError(f"z has {len(z)} rows; give the one applicant whose features are kept.")
    Z = check_encoded(Z, "Z", encoder.n_columns)
    mask = _feature_columns(encoder, keep, "keep")
    grafted = Z.copy()
    grafted[:, mask] = z[0, mask]
    return np.vstack([z, grafted])


def prune_move(model, z_from, z_to, m_prime, encoder) -> np.ndarray:
    """Undo the changes of a counterfactual that are not needed to keep the score at :math:`m'`.

    A profile found among observed (or grafted) candidates often changes
    more features than the target score requires. Greedily, while possible,
    this reverts the one changed feature whose reversal saves the most cost
    (:meth:`Encoder.cost <recourselab.features.Encoder.cost>`) among those
    whose reversal keeps the model's favourable probability at least
    :math:`m'` and the move feasible. The result changes a subset of the
    features of ``z_to``; no single remaining change can be undone (a local,
    not a global, minimum). Because the model need not be monotone, the
    pruned profile's score can differ from ``z_to``'s, but it stays at least
    :math:`m'`.

    Parameters
    ----------
    model : fitted classifier with ``predict_proba``
        Taking encoded rows; wrap a raw-frame model in
        :class:`~recourselab.adapters.EncodedModel`.
    z_from, z_to : array of shape (n_columns,)
        The applicant and a counterfactual with score at least ``m_prime``.
    m_prime : float
        The probability to keep, in [0, 1].
    encoder : Encoder

    Returns
    -------
    ndarray of shape (n_columns,)
        The pruned counterfactual.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.linear_model import LogisticRegression
    >>> from recourselab.features import FeatureSpec, Encoder
    >>> frame = pd.DataFrame({"a": [0.0, 1.0, 0.0, 1.0], "b": [0.0, 0.0, 1.0, 1.0]})
    >>> enc = Encoder([FeatureSpec("a", "continuous"), FeatureSpec("b", "continuous")]).fit(frame)
    >>> model = LogisticRegression(C=100).fit(enc.transform(frame), [0, 1, 0, 1])   # only a matters
    >>> prune_move(model, [0.0, 0.0], [1.0, 1.0], 0.6, enc).tolist()                 # b's change is undone
    [1.0, 0.0]
    """
    from ..adapters import check_model
    from ..features import check_encoded, check_encoder
    from ..models import favourable_proba

    check_encoder(encoder)
    check_model(model, encoder)
    a = check_encoded(np.atleast_2d(z_from), "z_from", encoder.n_columns)
    b = check_encoded(np.atleast_2d(z_to), "z_to", encoder.n_columns)
    if len(a) != 1 or len(b) != 1:
        raise ValueError(f"prune_move takes one row each; got {len(a)} and {len(b)} rows.")
    m_prime = check_unit_interval(m_prime, "m_prime")
    current = b[0].copy()
    if favourable_proba(model, current[None, :])[0] < m_prime:
        raise ValueError(f"z_to scores {favourable_proba(model, current[None, :])[0]:.4f} < m_prime={m_prime:g}; "
                         "give a counterfactual that reaches m_prime (e.g. from feature_ce).")
    slices = [encoder.slices_[name] for name in encoder.feature_names]
    while True:
        changed = [s for s in slices if not np.allclose(current[s], a[0, s])]
        if not changed:
            break
        trials = np.repeat(current[None, :], len(changed), axis=0)
        for k, s in enumerate(changed):
            trials[k, s] = a[0, s]
        ok = (favourable_proba(model, trials) >= m_prime) & encoder.feasible(np.repeat(a, len(changed), 0), trials)
        if not ok.any():
            break
        saved = encoder.cost(a, current[None, :])[0] - encoder.cost(np.repeat(a, len(changed), 0), trials)
        best = np.flatnonzero(ok)[np.argmax(saved[ok])]
        current = trials[best]
    return current
