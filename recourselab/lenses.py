"""The capstone's lenses on one world with a planted bias (plumbing for the lesson "One model, five lenses").

:func:`planted_world` fits one model on biased historical labels and its
reference on the true labels (:func:`recourselab.audit.train_on_biased_history`)
and keeps what every lens needs: the test applicants, both models' decisions
and the **truth**, the protected applicants the audited model refuses and the
reference approves. Each ``*_lens`` function runs one lesson's engine on that
world and returns a :class:`Lens`: whom it flags, the people its question is
about (its population; a lens never flags anyone outside it) and the numbers
the lesson reads. Nothing here is a new method: each function wires a
package engine to the world (the lesson that teaches the engine is named in
its docstring).

Everything random takes ``random_state`` or is seeded from the world's seed.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import allocation as al
from . import fair_ranking as rk
from ._validation import check_bool, check_int, check_positions, check_unit_interval
from .audit import BiasedHistory, overlap_table, train_on_biased_history
from .counterfactuals import linear_recourse
from .datasets import Dataset
from .explanation_consistency import audit_explanations
from .group_counterfactuals import build_feasibility_graph, choose_epsilon, connectivity_by_epsilon
from .scm import AdditiveNoiseSCM
from .situation_testing import situation_testing

__all__ = ["World", "planted_world", "Lens", "face_lens", "cst_lens", "cec_lens", "ranking_lens", "budget_lens",
           "boundary_recourse", "closest_to_boundary", "truth_table"]


@dataclass(frozen=True)
class World:
    """One split of a data set with a planted label bias (:func:`planted_world`).

    Attributes
    ----------
    history : BiasedHistory
        The audited model (``history.biased``) and its reference.
    seed : int
    rate : float
        Share of the protected group's favourable training labels turned into 0.
    protected : ndarray of bool
        Test rows of the penalised group.
    approved, approved_reference : ndarray of bool
        Decisions of the audited and the reference model on the test rows.
    harmed : ndarray of bool
        The truth: protected test rows refused by the audited model and approved by the reference.
    """

    history: BiasedHistory
    seed: int
    rate: float
    protected: np.ndarray
    approved: np.ndarray
    approved_reference: np.ndarray
    harmed: np.ndarray

    @property
    def audited(self):
        return self.history.biased

    @property
    def reference(self):
        return self.history.reference

    @property
    def Z(self) -> np.ndarray:
        """Encoded test rows."""
        return self.history.biased.Z_test

    @property
    def columns(self) -> list:
        return list(self.history.biased.encoder.feature_names_out_)

    @property
    def groups(self) -> np.ndarray:
        """The protected column's values on the test rows."""
        return self.history.biased.test[self.history.column].to_numpy()

    @property
    def refused(self) -> np.ndarray:
        return ~self.approved


def planted_world(dataset: Dataset, *, protected_value, rate: float, random_state: int = 0) -> World:
    """Plant a label bias, fit the audited model and its reference, and name the harmed.

    Parameters
    ----------
    dataset : Dataset
    protected_value : object
        The penalised group's value of the data set's first protected column.
    rate : float in [0, 1]
        Share of that group's favourable training labels turned into 0.
    random_state : int, default 0
        Seeds the split, the flipped labels, the models and every lens run on the world.

    Returns
    -------
    World

    Examples
    --------
    >>> from recourselab.datasets import load_german_credit
    >>> world = planted_world(load_german_credit(), protected_value="female", rate=0.25)
    >>> bool(world.harmed.any()), bool((world.harmed <= world.protected).all())
    (True, True)
    """
    seed = check_int(random_state, "random_state", minimum=0)
    history = train_on_biased_history(dataset, protected_value=protected_value, rate=rate, random_state=seed)
    Z = history.biased.Z_test
    protected = history.biased.test[history.column].to_numpy() == protected_value
    return World(history=history, seed=seed, rate=float(rate), protected=protected,
                 approved=history.biased.decide(Z), approved_reference=history.reference.decide(Z),
                 harmed=history.harmed())


@dataclass(frozen=True)
class Lens:
    """What one lens says about a world.

    Attributes
    ----------
    flags : ndarray of bool
        Test rows the lens flags (always inside ``population``).
    population : ndarray of bool
        Test rows the lens's question is about.
    details : dict
        The numbers the lesson reads (named in each lens's docstring).
    """

    flags: np.ndarray
    population: np.ndarray
    details: dict = field(default_factory=dict)

    def __getattr__(self, name):
        try:
            return self.__dict__["details"][name]
        except KeyError:
            raise AttributeError(name) from None


def face_lens(world: World, epsilons, *, approved=None, nodes: str = "test") -> Lens:
    """FACEGroup's reachability (lesson "Group counterfactuals"): refused applicants with no feasible path.

    ε is chosen on the grid ``epsilons`` by the book's rule (the smallest
    after which no further refused applicant becomes coverable); the graph is
    KDE-weighted, costs are L2. ``nodes="all"`` builds the graph on the
    training applicants too, as waypoints and targets (FACEGroup builds it on
    the whole data set); who has a path depends on the nodes, and only test rows
    are flagged either way. ``approved`` replaces the audited model's decisions
    of the nodes (e.g. the reference's): the test rows, then with ``nodes="all"``
    the training rows. Details: ``epsilon``,
    ``C`` (costs, refused test rows × approved nodes), ``sources`` (test rows),
    ``targets`` (nodes: test rows first, then training rows).
    """
    if nodes not in ("test", "all"):
        raise ValueError(f"nodes={nodes!r}: give 'test' (the graph on the test applicants) or 'all' (the "
                         "training applicants too).")
    Z = world.Z if nodes == "test" else np.vstack([world.Z, world.audited.Z_train])
    if approved is None:
        approved = world.approved if nodes == "test" else np.concatenate(
            [world.approved, world.audited.decide(world.audited.Z_train)])
    approved = np.asarray(approved, bool)
    if approved.shape != (len(Z),):
        raise ValueError(f"approved has {approved.size} values; with nodes={nodes!r} give one decision per node "
                         f"({len(Z)}: the test rows" + (", then the training rows)." if nodes == "all" else ")."))
    sources = np.flatnonzero(~approved[:len(world.Z)])
    targets = np.flatnonzero(approved)
    encoder = world.audited.encoder
    epsilon = choose_epsilon(connectivity_by_epsilon(Z, epsilons, encoder=encoder, sources=sources,
                                                     targets=targets)).epsilon
    graph = build_feasibility_graph(Z, epsilon, encoder=encoder, weighting="kde")
    C = graph.costs(sources, targets, cost="l2")
    flags = np.zeros(len(world.Z), bool)
    flags[sources[~np.isfinite(C).any(axis=1)]] = True
    return Lens(flags, ~approved[:len(world.Z)], {"epsilon": epsilon, "C": C, "sources": sources,
                                                  "targets": targets})


def cst_lens(world: World, dag, *, k: int = 15, alpha: float = 0.05) -> Lens:
    """Counterfactual situation testing (lesson "Situation testing") for the refused protected applicants.

    An additive-noise SCM on ``dag`` (root: the protected column, encoded 0/1)
    is fitted on the training rows and gives each test row its counterfactual
    with the protected column set to 1. Flags: CST significant (k-NN with
    centres, one-sided Wald test at ``alpha``). Details: ``st`` (classic situation
    testing significant), ``flip`` (the audited model approves the SCM
    counterfactual), ``sex_flip`` (it approves the row with only the protected
    column switched), ``scm``, ``table`` (CST's per-complainant table).
    """
    column = world.history.column
    cols = world.columns
    inputs = [c for c in cols if c != column]
    scm = AdditiveNoiseSCM(dag, bounds={c: (0.0, 1.0) for c in dag.nodes if c != column})
    scm.fit(pd.DataFrame(world.audited.Z_train, columns=cols))
    X = pd.DataFrame(world.Z, columns=cols, index=world.audited.test.index)
    X_cf = scm.counterfactual(X, do={column: 1.0})[cols]
    approved_cf = world.audited.decide(X_cf.to_numpy())
    switched = world.Z.copy()
    switched[:, cols.index(column)] = 1.0
    population = world.protected & world.refused
    y_hat = world.approved.astype(int)
    cst = situation_testing(X[inputs], world.protected, y_hat, k=k, X_cf=X_cf[inputs],
                            y_hat_cf=approved_cf.astype(int), include_centers=True, alpha=alpha)
    st = situation_testing(X[inputs], world.protected, y_hat, k=k, alpha=alpha)

    def significant(table):
        return pd.Series(table["significant"], index=table.index).reindex(X.index, fill_value=False).to_numpy(
            dtype=bool) & population

    return Lens(significant(cst), population,
                {"st": significant(st), "flip": population & approved_cf,
                 "sex_flip": population & world.audited.decide(switched), "scm": scm, "table": cst})


def cec_lens(world: World, financial) -> Lens:
    """Explanation consistency (lesson "Explanation consistency") for both models.

    Partners of the other group are matched on the ``financial`` columns
    among the training rows with the same true label. Flags: refused
    applicants with a partner in regime D (different decision, different
    reasoning). Details: ``summary`` (coverage, CEC, flip rate and regime
    shares for "audited" and "reference"), ``regime`` (the audited model's
    regime per test row, None without a partner), ``flipped`` (refused rows
    whose partner gets the other decision).
    """
    cols = world.columns
    idx = [cols.index(f) for f in financial]
    audits = {}
    for name, trained in (("audited", world.audited), ("reference", world.reference)):
        audits[name] = audit_explanations(trained.model, world.Z, world.reference.y_test, world.groups,
                                          financial=idx, X_pool=trained.Z_train, y_pool=world.reference.y_train,
                                          groups_pool=trained.train[world.history.column].to_numpy())
    frame = audits["audited"].to_frame()
    population = world.refused & frame["matched"].to_numpy(dtype=bool)
    regime = frame["regime"].to_numpy(dtype=object)
    flipped = population & np.isin(regime, ["C", "D"])  # the partner gets the other decision
    summary = pd.DataFrame({name: a.summary() for name, a in audits.items()}).T
    return Lens(population & (regime == "D"), population, {"summary": summary, "regime": regime, "flipped": flipped})


def boundary_recourse(trained, Z, rows, *, actionable: bool):
    """Each given row's recourse to a trained linear model's boundary: relaxed, or as actionable advice.

    The relaxation is the closed-form projection onto the boundary (feasible moves, continuous); the
    advice is the exact MIP in whole levels and units under the advice policy, the optimum of a
    weighted-L1 stand-in priced in L2, so its cost is an upper bound on the cheapest advice. (The closed
    form's actionable variant, the projection snapped onwards to whole levels, moves nearly every mutable
    feature and overshoots the boundary.) Rows the advice cannot bring to the favourable side get cost
    ``inf``.

    Parameters
    ----------
    trained : the ``audited`` or ``reference`` model of a :class:`World`
        A fitted logistic regression with its encoder.
    Z : array, shape (n, d)
        The encoded rows (e.g. ``world.Z``).
    rows : array of int
        Positions in ``Z`` of the rows to move (e.g. ``np.flatnonzero(world.refused)``).
    actionable : bool
        False: the relaxation; True: actionable advice.

    Returns
    -------
    tuple
        ``(X, result)``: the rows as an encoded DataFrame, and the
        :func:`~recourselab.counterfactuals.linear_recourse` result (``cost``, ``X_cf``, ``delta``).
    """
    actionable = check_bool(actionable, "actionable")
    Z = np.asarray(Z, dtype=float)
    rows = check_positions(rows, "rows", len(Z))
    coef, intercept = trained.model.coef_[0], float(trained.model.intercept_[0])
    X = pd.DataFrame(Z[rows], columns=list(trained.encoder.feature_names_out_))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*cannot reach the favourable side.*")  # counted as no_advice
        return X, linear_recourse(X, coef, intercept, encoder=trained.encoder, actionable=actionable,
                                  method="mip" if actionable else "closed_form")


def ranking_lens(world: World, *, tolerance: float = 1 / 3) -> Lens:
    """The recourse-aware waiting list (lesson "Fair ranking") of the refused applicants.

    Each refused applicant's cost to the (linear) model's boundary is computed
    twice with :func:`~recourselab.counterfactuals.linear_recourse`: as the
    continuous **relaxation** (feasible moves, what RAGUEL's ρ is defined on)
    and as **actionable advice** (the MIP in whole levels and units under the
    advice policy; it minimises a weighted-L1 stand-in and reports the L2 cost
    of its point, an upper bound on the cheapest advice; some applicants have
    none). Flags: none (a waiting list detects nobody).
    Details: ``rows``, ``X`` (encoded refused rows), ``relaxed`` and ``advice``
    (the two recourse results), ``rho`` and ``rho_reference`` (ρ = the smaller
    group mean of relaxed costs over the larger, for the audited and the
    reference model), ``rho_advice`` (ρ of the actionable costs of those with
    advice), ``no_advice`` (refused per group without actionable advice),
    ``raguel_edits`` (profiles RAGUEL edits at ``tolerance``: an intervention,
    not a detector).
    """
    groups = world.groups
    rows = np.flatnonzero(world.refused)
    X, relaxed = boundary_recourse(world.audited, world.Z, rows, actionable=False)
    _, advice = boundary_recourse(world.audited, world.Z, rows, actionable=True)
    ref_rows = np.flatnonzero(~world.approved_reference)
    _, ref_relaxed = boundary_recourse(world.reference, world.Z, ref_rows, actionable=False)
    ok = np.isfinite(advice.cost)
    coef, intercept = world.audited.model.coef_[0], float(world.audited.model.intercept_[0])
    edited = rk.raguel(X, groups[rows], coef=coef, intercept=intercept, encoder=world.audited.encoder,
                       protected_group=world.history.protected_value, tolerance=tolerance)
    return Lens(np.zeros(len(world.Z), bool), world.refused.copy(),
                {"rows": rows, "X": X, "relaxed": relaxed, "advice": advice,
                 "rho": rk.recourse_fairness_ratio(relaxed.cost, groups[rows]),
                 "rho_reference": rk.recourse_fairness_ratio(ref_relaxed.cost, groups[ref_rows]),
                 "rho_advice": rk.recourse_fairness_ratio(advice.cost[ok], groups[rows][ok]),
                 "no_advice": pd.Series(~ok).groupby(groups[rows]).sum(), "raguel_edits": int(np.sum(edited.changed))})


def _budget_history(trained, utility, funded_share: float, round_size: int, history_rounds: int, rng):
    credit = np.round(trained.train["credit_amount"].to_numpy() / 100).astype(int)
    profitable = utility.value(trained.proba(trained.Z_train), credit) > 0
    draws = (rng.choice(len(credit), round_size, replace=False) for _ in range(history_rounds))
    return al.BudgetDistribution.fit([funded_share * credit[r][profitable[r]].sum() for r in draws])


def budget_lens(world: World, utility, *, funded_share: float = 0.5, rounds: int = 15, history_rounds: int = 50,
                rho: float = 0.9, trained=None) -> Lens:
    """The bank lends from a budget (lesson "Robust allocation"): who is refused because the money ran out?

    The budget distribution is fitted (normal) on ``history_rounds`` past
    rounds of training applicants, each funding ``funded_share`` of the credit
    (hundreds of DM) its profitable applicants requested. The test applicants
    arrive in ``rounds`` rounds; **each round's budget is drawn** from that
    distribution, and the knapsack policy lends. Flags: refused although the
    expected utility is positive (caused by the budget). ``trained`` replaces
    the audited model (e.g. the reference). Details: ``lent``, ``profitable``,
    ``budgets`` (one per round), ``distribution``, ``caused_share`` (flags over
    refusals), and for the flagged: ``valid_static`` / ``valid_robust`` (share
    of 200 new budgets under which the advice for the round's budget / the
    ``rho``-robust advice is funded, the target probability capped at 1) and
    ``impossible`` (robust target above 1).
    """
    funded_share = check_unit_interval(funded_share, "funded_share")
    rounds = check_int(rounds, "rounds", minimum=1)
    trained = world.audited if trained is None else trained
    rng = np.random.default_rng(world.seed)
    proba = trained.proba(world.Z)
    credit = np.round(world.audited.test["credit_amount"].to_numpy() / 100).astype(int)
    distribution = _budget_history(trained, utility, funded_share, len(world.Z) // rounds, history_rounds, rng)
    budgets = distribution.sample(rounds, random_state=rng)
    validation, check = (distribution.sample(200, random_state=s) for s in (1, 2))
    n = len(world.Z)
    reason = np.empty(n, dtype=object)
    valid_static, valid_robust, target = (np.full(n, np.nan) for _ in range(3))
    for rows, budget in zip(np.array_split(rng.permutation(n), rounds), budgets, strict=True):
        p, w = proba[rows], credit[rows]
        reason[rows] = al.refusal_reasons(utility.value(p, w), w, int(budget))
        static = al.prediction_ce_matrix(p, w, [int(budget)], policy="knapsack", utility=utility)[0]
        robust = al.robust_recourse(al.prediction_ce_matrix(p, w, validation, policy="knapsack", utility=utility),
                                    rho)
        target[rows] = robust
        for out, m in ((valid_static, static), (valid_robust, robust)):
            out[rows] = al.validity(np.minimum(m, 1.0), p, w, check, policy="knapsack", utility=utility)
    lent, flags = reason == "selected", reason == "budget"
    return Lens(flags, ~lent, {"lent": lent, "profitable": utility.value(proba, credit) > 0, "budgets": budgets,
                               "distribution": distribution, "caused_share": flags.sum() / max((~lent).sum(), 1),
                               "valid_static": valid_static[flags], "valid_robust": valid_robust[flags],
                               "impossible": int((target[flags] > 1).sum())})


def closest_to_boundary(world: World, k: int) -> np.ndarray:
    """The ``k`` refused protected applicants with the highest audited P(favourable): a margin rule.

    A baseline detector that asks no counterfactual: it ranks the refused
    protected applicants by their distance to the audited model's boundary. It
    borrows ``k`` from another detector (e.g. the flip's count).

    Examples
    --------
    >>> from recourselab.datasets import load_german_credit
    >>> world = planted_world(load_german_credit(), protected_value="female", rate=0.25)
    >>> int(closest_to_boundary(world, 5).sum())
    5
    """
    k = check_int(k, "k", minimum=0)
    complainants = np.flatnonzero(world.protected & world.refused)
    proba = world.audited.proba(world.Z[complainants])
    flags = np.zeros(len(world.Z), bool)
    flags[complainants[np.argsort(-proba, kind="stable")[:k]]] = True
    return flags


def truth_table(world: World, detectors: dict) -> pd.DataFrame:
    """Each detector's flags among the refused protected applicants, read against the truth and against chance.

    Within the :math:`n` refused protected applicants, :math:`H` of them
    harmed, a detector that flags :math:`f` would hit :math:`fH/n` harmed on
    average if its flags were drawn at random (hypergeometric). Flags outside
    the refused protected applicants are ignored.

    Parameters
    ----------
    world : World
    detectors : dict of str to array of bool
        Flags per test row, one entry per detector.

    Returns
    -------
    DataFrame
        One row per detector: ``population`` (n), ``flagged``, ``harmed``,
        ``hits``, ``precision`` (hits / flagged), ``base rate`` (H / n),
        ``recall`` (hits / H), ``expected`` hits by chance, ``chance low`` and
        ``chance high`` (the central 95% interval of chance hits, two-sided),
        ``p-value`` (one-sided, P(chance hits >= hits)) and ``lift`` (hits /
        expected).

    Examples
    --------
    >>> from recourselab.datasets import load_german_credit
    >>> world = planted_world(load_german_credit(), protected_value="female", rate=0.25)
    >>> table = truth_table(world, {"every refused woman": world.refused})
    >>> float(table.loc["every refused woman", "lift"])
    1.0
    """
    complainants = world.protected & world.refused
    flags = pd.DataFrame({name: np.asarray(f, bool) & complainants for name, f in detectors.items()}
                         | {"harmed": world.harmed})
    populations = pd.DataFrame({name: complainants for name in flags.columns})
    table = overlap_table(flags, populations, pairs=[(name, "harmed") for name in detectors], n_boot=0)
    table = table.droplevel(1).rename_axis("detector").rename(
        columns={"flags A": "flagged", "flags B": "harmed", "observed": "hits", "share of A": "precision",
                 "share of B": "recall"})
    table["base rate"] = table["harmed"] / table["population"]
    return table[["population", "flagged", "harmed", "hits", "precision", "base rate", "recall", "expected",
                  "chance low", "chance high", "p-value", "lift"]]
