"""Why applicants are refused, and the design of the paper's Table 3 (static, robust, noisy, optimistic).

:func:`refusal_reasons` and :func:`refusal_breakdown` tell whether a budget binds at all (a refusal
is caused by the budget or by an unprofitable utility); :func:`robustness_experiment` runs the
paper's comparison of recourse methods on many rounds, and :func:`pareto_dominance` reads its table
:cite:p:`segal2024luck`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from .._validation import check_aligned, check_array, check_int, check_rng
from ._checks import (
    check_capacities,
    check_eps,
    check_levels,
    check_policy,
    check_pool,
    check_problems,
    check_utility,
    check_values,
    policy_weights,
)
from .explanations import prediction_ce_matrix, prediction_cost, thresholds
from .policies import allocate
from .robust import BudgetDistribution, noisy_recourse, reaches, robust_recourse

__all__ = [
    "REFUSAL_REASONS",
    "refusal_reasons",
    "RefusalBreakdown",
    "refusal_breakdown",
    "RobustnessExperiment",
    "robustness_experiment",
    "pareto_dominance",
]

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
    check_aligned(values, "values", weights=weights)
    policy = check_policy(policy)
    v = check_values(values)
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
        Row positions of each round's applicants, each at most once per round: a repeated position
        is an error (the applicant would compete against themselves and be counted twice).
    policy : {"knapsack", "greedy"}
    utility : LendingUtility or AdmissionUtility
    eps : float, default 1e-6
        Tie-breaking margin of the utility counterfactual.

    Returns
    -------
    RefusalBreakdown

    Examples
    --------
    >>> from recourselab.allocation import LendingUtility
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
    check_aligned(proba, "proba", weights=weights)
    utility = check_utility(utility)
    policy = check_policy(policy)
    p_all = check_pool(proba)
    w_all = policy_weights(policy, weights, len(p_all))
    caps = check_capacities(capacities)
    problems = check_problems(problems, len(p_all))
    if len(problems) != len(caps):
        raise ValueError(f"capacities has {len(caps)} budget(s) but problems has {len(problems)} round(s); give one "
                         "budget per round.")
    eps = check_eps(eps)
    rows, reasons = [], []
    for members, capacity in zip(problems, caps.tolist(), strict=True):
        row, reason = _round_refusals(p_all[members], w_all[members], capacity, policy, utility, eps)
        rows.append(row)
        reasons.append(reason)
    frame = pd.DataFrame(rows, index=pd.RangeIndex(len(rows), name="problem"))
    return RefusalBreakdown(frame, reasons)


def _round_refusals(P: np.ndarray, W: np.ndarray, capacity: int, policy: str, utility, eps: float):
    """One round of :func:`refusal_breakdown`: its row of counts and every applicant's reason."""
    utility_weights = W if policy == "knapsack" else None
    values = check_values(utility.value(P, utility_weights), "utility.value(proba)")
    reason = refusal_reasons(values, utility_weights, capacity, policy=policy)
    refused = reason != "selected"
    bar = thresholds(values, W, np.array([capacity]), policy)[0] + eps
    row = {
        "capacity": capacity,
        "demand": int(W[values > 0].sum()),
        "used": int(W[~refused].sum()),
        "selected": int((~refused).sum()),
        "unprofitable": int((reason == "unprofitable").sum()),
        "budget": int((reason == "budget").sum()),
        "refused": int(refused.sum()),
        "budget_share": float((reason == "budget").sum() / refused.sum()) if refused.any() else float("nan"),
        "above_break_even": int((refused & (bar > 2 * eps)).sum()),
    }
    return row, reason


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
        ``"budget"`` or ``"unprofitable"``, as in :func:`refusal_reasons`) and
        ``impossible`` (the method's :math:`m'` exceeds 1: no probability is
        enough for it; with ``cap=True``, ``m_prime``, ``cost`` and
        ``validity`` are those of the capped recommendation).
    capacities : ndarray of int
        The current budget of each problem.
    methods : tuple of str
        Method names in table order.
    capped : bool
        Whether recommendations above probability 1 were capped at 1 (``cap=True``).
    """

    frame: pd.DataFrame
    capacities: np.ndarray
    methods: tuple
    capped: bool = False

    @property
    def n_excluded(self) -> int:
        """Refused applicants left out of :meth:`to_frame` because some method's :math:`m'` is infinite."""
        finite = self.frame.assign(finite=np.isfinite(self.frame["m_prime"]))
        return int((~finite.groupby(["problem", "applicant"])["finite"].all()).sum())

    def to_frame(self) -> pd.DataFrame:
        """Table 3: per method, the mean cost normalised by the optimistic baseline's, and the mean validity.

        Means are over the refused applicants whose counterfactual is finite
        under every method (see :attr:`n_excluded`; with ``cap=True`` nobody is
        left out). Columns: ``cost`` (normalised), ``validity``, ``mean_cost``
        (unnormalised), ``n`` and ``impossible`` (the share of the rows whose
        uncapped :math:`m'` exceeds 1).
        """
        finite = self.frame.groupby(["problem", "applicant"])["m_prime"].transform(
            lambda s: np.isfinite(s).all())
        kept = self.frame[finite.astype(bool)]
        table = kept.groupby("method", sort=False).agg(
            mean_cost=("cost", "mean"), validity=("validity", "mean"), n=("cost", "size"),
            impossible=("impossible", "mean"))
        table = table.reindex(list(self.methods))
        base = table.loc["optimistic", "mean_cost"]
        table.insert(0, "cost", table["mean_cost"] / base if base > 0 else np.nan)
        return table[["cost", "validity", "mean_cost", "n", "impossible"]]


def robustness_experiment(proba, weights, *, policy: str, utility, budget_distribution: BudgetDistribution,
                          problems: Sequence, rhos=(0.7, 0.9), ps=(0.7, 0.9), n_validation: int = 200,
                          n_test: int = 200, random_state=0, progress: bool = False,
                          cap: bool = False) -> RobustnessExperiment:
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
        Row positions (into ``proba``) of each problem's applicants, each at most once per problem
        (a repeated position is an error, as in :func:`refusal_breakdown`).
    rhos, ps : sequences of distinct floats in [0, 1] (one float is one level)
    n_validation, n_test : int, default 200
    random_state : int or numpy Generator, default 0
    progress : bool, default False
        Progress bar over problems.
    cap : bool, default False
        Cap every recommendation at probability 1 (see above). The random draws do not depend on it.

    Returns
    -------
    RobustnessExperiment

    Examples
    --------
    >>> from recourselab.allocation import AdmissionUtility
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
    check_aligned(proba, "proba", weights=weights)
    utility = check_utility(utility)
    policy = check_policy(policy)
    if not isinstance(budget_distribution, BudgetDistribution):
        raise TypeError(f"budget_distribution must be a BudgetDistribution, got {type(budget_distribution).__name__}.")
    p_all = check_pool(proba)
    w_all = policy_weights(policy, weights, len(p_all))
    if policy == "greedy":
        w_all = None                                   # one slot each (weights were None or all ones)
    rhos, ps = check_levels(rhos, "rhos"), check_levels(ps, "ps")
    n_validation = check_int(n_validation, "n_validation", minimum=1)
    n_test = check_int(n_test, "n_test", minimum=1)
    problems = check_problems(problems, len(p_all))
    rng = check_rng(random_state)
    methods = ("static CE", *(f"{r:g}-robust" for r in rhos), *(f"{p:g}-noisy" for p in ps), "optimistic")
    rows, current = [], []
    for number, members in enumerate(tqdm(problems, disable=not progress, desc="problems", unit="problem")):
        r0 = int(budget_distribution.sample(1, rng)[0])
        val_caps = budget_distribution.sample(n_validation, rng)
        test_caps = budget_distribution.sample(n_test, rng)
        current.append(r0)
        W = None if w_all is None else w_all[members]
        rows += _one_problem(number, members, p_all[members], W, (r0, val_caps, test_caps), rhos, ps,
                             budget_distribution.std, rng, bool(cap), policy=policy, utility=utility)
    frame = pd.DataFrame(rows, columns=["problem", "applicant", "capacity", "method", "proba", "m_prime", "cost",
                                        "validity", "reason", "impossible"])
    return RobustnessExperiment(frame, np.asarray(current, dtype=np.int64), methods, bool(cap))


def _one_problem(number, members, P, W, budgets, rhos, ps, sigma, rng, cap, **kw) -> list:
    """One problem of :func:`robustness_experiment`: a row per (refused applicant, method)."""
    r0, val_caps, test_caps = budgets
    values = np.asarray(kw["utility"].value(P, W), dtype=float)
    refused = ~allocate(values, W, r0, kw["policy"]).selected
    if not refused.any():
        return []
    m_primes = {"static CE": prediction_ce_matrix(P, W, [r0], **kw)[0]}
    val = prediction_ce_matrix(P, W, val_caps, **kw)
    for r in rhos:
        m_primes[f"{r:g}-robust"] = robust_recourse(val, r)
    for p in ps:
        m_primes[f"{p:g}-noisy"] = noisy_recourse(P, W, r0, sigma, p, n_samples=len(val_caps), random_state=rng, **kw)
    test = prediction_ce_matrix(P, W, test_caps, **kw)
    m_primes["optimistic"] = robust_recourse(test, 1.0)
    rows = []
    for method, m in m_primes.items():
        impossible = m > 1
        if cap:
            m = np.minimum(m, 1.0)
        m_new = np.where(np.isfinite(m), np.maximum(P, m), P)
        valid = reaches(m_new[None, :], test).mean(axis=0)
        cost = prediction_cost(P, m)
        for k in np.flatnonzero(refused):
            rows.append((number, int(members[k]), r0, method, P[k], m[k], cost[k], valid[k],
                         "budget" if values[k] > 0 else "unprofitable", bool(impossible[k])))
    return rows


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
    c = check_array(table[cost], cost)
    v = check_array(table[validity], validity)
    no_worse = (c[:, None] <= c[None, :]) & (v[:, None] >= v[None, :])
    better = (c[:, None] < c[None, :]) | (v[:, None] > v[None, :])
    return pd.DataFrame(no_worse & better, index=table.index, columns=table.index)
