"""Recourse that survives the next round (Section 6): rho-robust recourse, its baselines, and validity.

Budgets (and applicants, and utilities) change from one round to the next. :func:`robust_recourse`
takes the :math:`\\lceil \\rho n \\rceil`-th smallest of an applicant's prediction counterfactuals
over :math:`n` sampled rounds (Algorithm 1), :func:`monte_carlo_recourse` is Algorithm 1 with any
sampler of rounds, :func:`noisy_recourse` the perturbation baseline, :func:`validity` the share of
new rounds in which a recommendation works, and :class:`BudgetDistribution` the normal budget model
of the paper's experiments :cite:p:`segal2024luck`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd
from scipy.stats import norm, truncnorm

from .._validation import (
    check_aligned,
    check_array,
    check_int,
    check_number,
    check_probabilities,
    check_rng,
    check_unit_interval,
)
from ._checks import check_capacity, check_eps, check_policy, check_targets, check_utility, policy_weights
from .explanations import add_item, prediction_ce_matrix, prediction_cost

__all__ = [
    "robust_recourse",
    "MonteCarloRecourse",
    "monte_carlo_recourse",
    "noisy_recourse",
    "validity",
    "BudgetDistribution",
]

#: Absolute tolerance of the validity comparison ``m_new >= m'``. The same need computed under two
#: budgets that select the same others comes out of the leave-one-out tables through different sums
#: and can differ by ~1e-15; without a tolerance such a tie counts as a failure. 1e-12 is far below
#: the margin epsilon (1e-6 in utility), so the conservative reading of the epsilon band is kept.
TIE_TOL = 1e-12


def reaches(m_new, ce):
    """``m_new >= ce`` up to ``TIE_TOL``, and never for an infinite need (arrays broadcast)."""
    ce = np.asarray(ce, dtype=float)
    return (np.asarray(m_new, dtype=float) >= ce - TIE_TOL) & np.isfinite(ce)


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
    samples = check_targets(ce_samples, "ce_samples")
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
            "valid": reaches(m_new, self.samples),
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
        row = add_item(row, int(w_others[j]), float(v_others[j]))
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
    >>> from recourselab.allocation import AdmissionUtility
    >>> u = AdmissionUtility(G=2, C=1)
    >>> others = np.array([0.9, 0.8, 0.7, 0.6, 0.55])
    >>> def sampler(rng):
    ...     return others, None, int(rng.integers(1, 6)), u
    >>> res = monte_carlo_recourse(0.5, 1, sampler, 200, 0.7, policy="greedy", random_state=0)
    >>> round(res.m_prime, 4), round(res.validity, 2)   # one slot more than 0.8 needs is rare
    (0.8, 0.81)
    """
    policy = check_policy(policy)
    m_i = float(check_probabilities(m_i, "m_i", ndim=0))
    w_i = check_capacity(w_i, "w_i") if policy == "knapsack" else 1
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    rho = check_unit_interval(rho, "rho")
    if not callable(sampler):
        raise TypeError(f"sampler must be a function rng -> (others_proba, others_weights, capacity, utility), "
                        f"got {type(sampler).__name__}.")
    eps = check_eps(eps)
    rng = check_rng(random_state)
    samples = np.empty(n_samples)
    caps = np.empty(n_samples, dtype=np.int64)
    for j in range(n_samples):
        samples[j], caps[j] = _sampled_prediction_ce(sampler(rng), w_i, policy, eps)
    m_rho = float(robust_recourse(samples[:, None], rho)[0])
    m_new = max(m_i, m_rho) if math.isfinite(m_rho) else m_i
    valid = float(np.mean(reaches(m_new, samples)))
    return MonteCarloRecourse(m_rho, m_i, float(prediction_cost(m_i, m_rho)), rho, samples, caps, valid)


def _sampled_prediction_ce(drawn, w_i: int, policy: str, eps: float) -> tuple[float, int]:
    """Alg. 1, lines 2-4 for one sampled round: the newcomer's prediction counterfactual, and the round's budget."""
    if not (isinstance(drawn, tuple) and len(drawn) == 4):
        raise TypeError("sampler(rng) must return a tuple (others_proba, others_weights, capacity, utility).")
    p_others, w_others, capacity, utility = drawn
    utility = check_utility(utility)
    p_others = check_probabilities(p_others, "others_proba", ndim=1, allow_empty=True)
    w_others = (policy_weights(policy, w_others, len(p_others), "others_weights") if len(p_others)
                else np.zeros(0, np.int64))
    r = check_capacity(capacity, "capacity (from sampler)")
    values = utility.value(p_others, w_others if policy == "knapsack" else None) if len(p_others) else p_others
    t = _single_threshold(np.asarray(values, dtype=float), w_others, w_i, r, policy)
    return utility.probability(t + eps, w_i if policy == "knapsack" else None), r


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
    >>> from recourselab.allocation import AdmissionUtility
    >>> u = AdmissionUtility(G=1, C=0.6)
    >>> noisy_recourse([0.8, 0.7, 0.6, 0.5], None, 2, 0.5, 0.9, policy="greedy", utility=u,
    ...                random_state=0).round(3).tolist()   # budgets 1 to 3: the worst is 1 slot
    [0.7, 0.8, 0.8, 0.8]
    """
    r = check_capacity(capacity)
    sigma = check_number(sigma, "sigma", minimum=0.0)
    p = check_unit_interval(p, "p")
    n_samples = check_int(n_samples, "n_samples", minimum=1)
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
    infinite counterfactual can never be met. Equal needs computed through
    different sums are compared with the tolerance ``TIE_TOL``.

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
    >>> from recourselab.allocation import AdmissionUtility
    >>> u = AdmissionUtility(G=1, C=0.6)
    >>> validity([0.8, 0.7, 0.65, 0.65], [0.8, 0.7, 0.6, 0.5], None, [2, 3], policy="greedy", utility=u).tolist()
    [1.0, 1.0, 0.5, 0.5]
    """
    check_aligned(proba, "proba", m_new=m_new, weights=weights)
    ce = prediction_ce_matrix(proba, weights, capacities, policy=policy, utility=utility, eps=eps)
    m_new = check_targets(m_new, "m_new", ndim=None)
    if m_new.shape != ce.shape[1:]:
        raise ValueError(f"m_new has shape {m_new.shape} but the pool has {ce.shape[1]} applicants.")
    return reaches(m_new[None, :], ce).mean(axis=0)


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
        object.__setattr__(self, "mean", check_number(self.mean, "mean"))
        object.__setattr__(self, "std", check_number(self.std, "std", minimum=0.0))

    @classmethod
    def fit(cls, budgets) -> "BudgetDistribution":
        """Normal fit: the sample mean and the sample standard deviation (``ddof=1``) of past budgets."""
        b = check_array(budgets, "budgets", ndim=1)
        if len(b) < 2:
            raise ValueError(f"budgets has {len(b)} value(s); fitting a normal distribution needs at least 2 "
                             "historical budgets.")
        return cls(float(b.mean()), float(b.std(ddof=1)))

    def sample(self, n: int, random_state=None) -> np.ndarray:
        """``n`` budgets: normal draws rounded to integers and clipped at 0."""
        n = check_int(n, "n", minimum=0)
        rng = check_rng(random_state)
        return np.maximum(np.round(rng.normal(self.mean, self.std, size=int(n))), 0).astype(np.int64)
