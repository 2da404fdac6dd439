"""Step 3 of the pipeline (Section 5): from a target probability :math:`m'` to a change of features.

:func:`feature_ce` finds the cheapest candidate profile whose favourable probability reaches
:math:`m'`; :func:`graft_candidates` builds candidates a person could move to (observed profiles,
clipped to the moves advice may make); :func:`prune_move` undoes the changes the score does not
need. By default every move returned is **actionable** under the encoder's specs
(:meth:`Encoder.actionable <recourselab.features.Encoder.actionable>`: feasible, on whole levels,
in the direction advice may move each feature and within its plausible change); a merely feasible
move is a relaxation, asked for with ``actionable=False`` and labelled so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd

from .._validation import (
    check_array,
    check_choice,
    check_columns,
    check_int,
    check_mask,
    check_number,
    check_positions,
    check_unit_interval,
    favourable_column,
)
from ..adapters import check_model
from ..counterfactuals import NO_COUNTERFACTUAL
from ..features import check_encoded, check_encoder

__all__ = ["FeatureCounterfactual", "feature_ce", "graft_candidates", "prune_move", "advise", "reachable"]

ADVICE_KINDS = ("actionable", "relaxation")


@dataclass(frozen=True)
class FeatureCounterfactual:
    """The cheapest candidate profile a person could move to whose predicted probability reaches :math:`m'`.

    Attributes
    ----------
    index : int
        Row of the applicant in ``Z``.
    target : int
        Row of the counterfactual profile in ``Z``;
        :data:`~recourselab.counterfactuals.NO_COUNTERFACTUAL` when no
        admissible candidate reaches ``m_prime`` (a value numpy refuses as an
        index, so ``Z[target]`` cannot pick a row by mistake; check ``found``).
    cost : float
        Cost of the move (``inf`` when none is found); 0 when the applicant
        already reaches ``m_prime``.
    proba : float
        Model probability of the favourable class at the target profile (NaN when none).
    m_prime : float
        The probability that had to be reached.
    factual_proba : float
        Model probability of the favourable class at the applicant's own profile.
    advice : {"actionable", "relaxation"}
        ``"actionable"``: the move passes :meth:`Encoder.actionable
        <recourselab.features.Encoder.actionable>` (advice a person could
        follow); ``"relaxation"``: it is only feasible (the actionability of
        the specs holds, but whole levels, advised directions and plausible
        changes were not required), so it is not to be shown as advice.
    """

    index: int
    target: int
    cost: float
    proba: float
    m_prime: float
    factual_proba: float = float("nan")
    advice: str = "actionable"

    @property
    def found(self) -> bool:
        """Whether an admissible candidate reaching ``m_prime`` exists."""
        return self.target != NO_COUNTERFACTUAL

    def to_frame(self) -> pd.DataFrame:
        """One-row table of the result (``target`` is ``<NA>`` when none is found)."""
        frame = pd.DataFrame([{
            "index": self.index, "factual_proba": self.factual_proba, "m_prime": self.m_prime,
            "target": self.target if self.found else 0, "proba": self.proba, "cost": self.cost,
            "found": self.found, "advice": self.advice,
        }])
        frame["target"] = frame["target"].astype("Int64").mask(~frame["found"])
        return frame


def _encoded(Z, name: str, encoder) -> np.ndarray:
    """Encoded rows as a 2-d array; a DataFrame is read by column name (the encoder's columns), never by position."""
    if isinstance(Z, pd.DataFrame):
        Z = check_columns(Z, encoder.feature_names_out_, name)
    elif isinstance(Z, pd.Series):
        Z = check_columns(Z.to_frame().T, encoder.feature_names_out_, name)
    return check_encoded(Z, name, encoder.n_columns)


def _favourable(model, Z: np.ndarray, column: int) -> np.ndarray:
    """The model's probability of the favourable class (column ``column`` of ``predict_proba``)."""
    return np.asarray(model.predict_proba(Z), dtype=float)[:, column]


def _candidate_rows(candidates, n: int) -> np.ndarray:
    """Sorted distinct row positions: all rows, a boolean mask, or integer positions."""
    if candidates is None:
        return np.arange(n)
    if np.asarray(candidates).dtype == bool:
        return np.flatnonzero(check_mask(candidates, "candidates", n, meaning="True = may be the target"))
    return np.unique(check_positions(candidates, "candidates", n))


def feature_ce(model, Z, index, m_prime, encoder, *, candidates=None, weights: Mapping[str, float] | None = None,
               norm: str = "l1", favourable=1, actionable: bool = True) -> FeatureCounterfactual:
    """Step 3 of the pipeline: the cheapest candidate move that lifts the applicant's probability to :math:`m'`.

    .. math:: x' = \\arg\\min_{z \\in \\mathcal{C},\\ x \\to z \\text{ actionable}} d(x, z)
              \\quad \\text{s.t.} \\quad M(z) \\ge m'

    **What is searched.** The rows of ``Z`` (or of ``candidates``), not the
    whole feature space: the paper's Eq. (3) over a finite candidate set, as
    FACE searches observed data points :cite:p:`segal2024luck`. A candidate
    qualifies when the model's probability of the ``favourable`` class
    reaches :math:`m'` and the move from the applicant's row to it is
    actionable (:meth:`Encoder.actionable
    <recourselab.features.Encoder.actionable>`); the cheapest by
    :meth:`Encoder.pairwise_cost <recourselab.features.Encoder.pairwise_cost>`
    wins, ties going to the lower row. Observed profiles usually differ from
    the applicant in features advice may not touch (age, a past record), so
    search :func:`graft_candidates` of the applicant, which keeps those at
    the applicant's values.

    **What is guaranteed.** The target reaches :math:`m'` under ``model``; the
    move is actionable (feasible, discrete features on whole levels, every
    feature moved only in the direction its spec lets advice move it and no
    further than its ``max_change``), so it can be shown as advice; it is the
    cheapest such candidate in the set, not the global minimum (a profile
    between the candidates might be cheaper). With ``actionable=False`` the
    move is only feasible, and the result says ``advice="relaxation"``. The
    requested amount :math:`w_i` is fixed by the allocation (the paper's
    appendix, note 2): keep it with ``graft_candidates(keep=...)`` or a spec
    that never advises it. If the applicant already reaches :math:`m'`, the
    answer is their own row at cost 0.

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
    favourable : label, default 1
        The class of ``model`` that is the favourable outcome (e.g. 0 when a
        label 1 means reoffending or default); a model whose ``classes_`` lack
        it is refused.
    actionable : bool, default True
        Require actionable moves (advice); False accepts every feasible move
        and labels the result a relaxation.

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
    >>> res.target, float(frame["grade"][res.target]), round(res.cost, 2), res.advice   # cheapest grade reaching 0.6
    (2, 5.0, 0.5, 'actionable')
    """
    check_encoder(encoder)
    Z = _encoded(Z, "Z", encoder)
    index = check_int(index, "index", minimum=0)
    if index >= len(Z):
        rows = f" (0..{len(Z) - 1})." if len(Z) else "; Z has no rows."
        raise ValueError(f"index={index} is not a row of Z{rows}")
    m_prime = check_number(m_prime, "m_prime", minimum=0.0, allow_inf=True)
    rows = _candidate_rows(candidates, len(Z))
    norm = check_choice(norm, "norm", ("l1", "l2"))
    column = favourable_column(check_model(model, encoder), favourable)
    advice = "actionable" if actionable else "relaxation"
    own = float(_favourable(model, Z[index:index + 1], column)[0])
    none = FeatureCounterfactual(index, NO_COUNTERFACTUAL, float("inf"), float("nan"), m_prime, own, advice)
    if own >= m_prime:
        return FeatureCounterfactual(index, index, 0.0, own, m_prime, own, advice)
    if len(rows) == 0 or m_prime > 1:
        return none
    proba = _favourable(model, Z[rows], column)
    reach = proba >= m_prime
    rows, proba = rows[reach], proba[reach]
    if len(rows) == 0:
        return none
    a = Z[index:index + 1]
    allowed = encoder.actionable_pairs(a, Z[rows]) if actionable else encoder.feasible_pairs(a, Z[rows])
    cost = np.where(allowed[0], encoder.pairwise_cost(a, Z[rows], weights=weights, norm=norm)[0], np.inf)
    best = int(np.argmin(cost))
    if not np.isfinite(cost[best]):
        return none
    return FeatureCounterfactual(index, int(rows[best]), float(cost[best]), float(proba[best]), m_prime, own, advice)


def _feature_columns(encoder, names, argument: str) -> np.ndarray:
    """Boolean mask of the encoded columns of the features ``names`` (errors name unknown features)."""
    if names is None:
        raise TypeError(f"{argument}=None; give a sequence of feature names (or () for none).")
    names = [names] if isinstance(names, str) else list(names)
    unknown = [n for n in names if n not in encoder.feature_names]
    if unknown:
        raise ValueError(f"{argument} names {unknown}, which are not features of the encoder; its features are "
                         f"{encoder.feature_names}.")
    mask = np.zeros(encoder.n_columns, dtype=bool)
    for n in names:
        mask[encoder.slices_[n]] = True
    return mask


def graft_candidates(z, Z, encoder, keep=()) -> np.ndarray:
    """Candidate profiles for :func:`feature_ce`: observed profiles, moved only as advice may move the applicant.

    Searching observed profiles as they are changes every feature in which
    the nearest one differs, including those advice may not touch. Each
    candidate here starts from a donor row of ``Z`` and, feature by feature,
    takes the donor's value only as far as the encoder's advice policy lets
    the applicant move (:meth:`Encoder.advice_bounds
    <recourselab.features.Encoder.advice_bounds>`):

    * a feature advice may never change (``advice_direction == "never"``:
      immutable features, age, a past record) keeps the applicant's value;
    * a feature advised in one direction takes the donor's value only when it
      lies that way, and stays at the applicant's otherwise;
    * a feature with a plausible change (``max_change``) moves at most that far
      towards the donor;
    * a feature whose donor value (after the cap) is one of its spec's
      ``never_advise_levels`` keeps the applicant's value, unless the
      applicant is at that level already;
    * the features in ``keep`` keep the applicant's values too (e.g. the
      requested amount, which the allocation holds fixed).

    Every candidate is therefore within the advice bounds of the applicant
    (feasible, advised directions, caps); it is on whole levels when the donor
    is and the caps are whole numbers of the features' units (as in the
    book's specs). :func:`feature_ce` checks every move with
    :meth:`Encoder.actionable <recourselab.features.Encoder.actionable>`
    regardless.

    Parameters
    ----------
    z : array of shape (n_columns,) or (1, n_columns)
        The applicant, encoded.
    Z : array of shape (n, n_columns)
        Encoded observed profiles (the donors).
    encoder : Encoder
        The fitted encoder of ``z`` and ``Z``.
    keep : sequence of str, default ()
        Further features held at the applicant's values.

    Returns
    -------
    ndarray of shape (n + 1, n_columns)
        Row 0 is the applicant; row ``j + 1`` is grafted from ``Z[j]``. Pass it
        to :func:`feature_ce` with ``index=0``.

    Examples
    --------
    >>> import pandas as pd
    >>> from recourselab.features import FeatureSpec, Encoder
    >>> frame = pd.DataFrame({"amount": [10.0, 20.0, 30.0], "savings": [0.0, 5.0, 10.0]})
    >>> enc = Encoder([FeatureSpec("amount", "continuous"), FeatureSpec("savings", "continuous", "increase")])
    >>> Z = enc.fit(frame).transform(frame)
    >>> graft_candidates(Z[1], Z, enc, keep=["amount"]).tolist()   # savings may only be advised up
    [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.5, 1.0]]
    """
    check_encoder(encoder)
    z = _encoded(z, "z", encoder)
    if len(z) != 1:
        raise ValueError(f"z has {len(z)} rows; give the one applicant whose features are kept.")
    Z = _encoded(Z, "Z", encoder)
    mask = _feature_columns(encoder, keep, "keep")
    lower, upper = encoder.advice_bounds()
    delta = Z - z
    grafted = np.where(delta < lower, z + lower, np.where(delta > upper, z + upper, Z))
    # a never-advised category is cut from the donor's block by the bounds: read it off the donor itself
    into = encoder.never_advised_moves(np.broadcast_to(z, grafted.shape), grafted)
    categorical = [spec.kind == "categorical" for spec in encoder.specs_]
    into[:, categorical] = encoder.never_advised_moves(np.broadcast_to(z, Z.shape), Z)[:, categorical]
    for f in np.flatnonzero(into.any(axis=0)):  # a level never advised: the applicant keeps the whole feature
        block = encoder.slices_[encoder.feature_names[f]]
        grafted[into[:, f], block] = z[0, block]
    grafted[:, mask] = z[0, mask]
    return np.vstack([z, grafted])


def _check_move(encoder, a: np.ndarray, b: np.ndarray, actionable: bool) -> None:
    """Refuse a move that is not actionable (or, for a relaxation, not feasible), naming the features."""
    if (encoder.actionable(a, b) if actionable else encoder.feasible(a, b))[0]:
        return
    table = encoder.advice_violations(a, b).iloc[0]
    broken = {name: reason for name, reason in table.items() if reason and (actionable or reason ==
                                                                             "moves the wrong way")}
    what = "actionable" if actionable else "feasible"
    raise ValueError(f"the move z_from -> z_to is not {what}: {broken}; prune_move only undoes changes, so give a "
                     f"{what} counterfactual (e.g. from feature_ce{'' if actionable else ', actionable=False'}).")


def prune_move(model, z_from, z_to, m_prime, encoder, *, favourable=1, actionable: bool = True) -> np.ndarray:
    """Undo the changes of a counterfactual that are not needed to keep the score at :math:`m'`.

    A profile found among candidates often changes more features than the
    target score requires. Greedily, while possible, this reverts the one
    changed feature whose reversal saves the most cost
    (:meth:`Encoder.cost <recourselab.features.Encoder.cost>`) among those
    whose reversal keeps the model's probability of the ``favourable`` class
    at least :math:`m'` and the move actionable. The result changes a subset
    of the features of ``z_to``; no single remaining change can be undone (a
    local, not a global, minimum). Because the model need not be monotone,
    the pruned profile's score can differ from ``z_to``'s, but it stays at
    least :math:`m'`.

    The move ``z_from -> z_to`` must be actionable (ValueError otherwise,
    naming the features that break it: a move that changes an immutable
    feature is refused, not returned); the pruned move is then actionable
    too. With ``actionable=False`` a feasible move is accepted and the
    pruned one is only guaranteed feasible (a relaxation, as the caller
    asked).

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
    favourable : label, default 1
        The class of ``model`` that is the favourable outcome; a model whose
        ``classes_`` lack it is refused.
    actionable : bool, default True
        Require (and keep) an actionable move; False requires only feasibility.

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
    check_encoder(encoder)
    column = favourable_column(check_model(model, encoder), favourable)
    a, b = _encoded(z_from, "z_from", encoder), _encoded(z_to, "z_to", encoder)
    if len(a) != 1 or len(b) != 1:
        raise ValueError(f"prune_move takes one row each; got {len(a)} and {len(b)} rows.")
    m_prime = check_unit_interval(m_prime, "m_prime")
    _check_move(encoder, a, b, actionable)
    score = float(_favourable(model, b, column)[0])
    if score < m_prime:
        raise ValueError(f"z_to scores {score:.4f} < m_prime={m_prime:g}; give a counterfactual that reaches m_prime "
                         "(e.g. from feature_ce).")
    allowed = encoder.actionable if actionable else encoder.feasible
    current = b[0].copy()
    slices = [encoder.slices_[name] for name in encoder.feature_names]
    while True:
        changed = [s for s in slices if not np.allclose(current[s], a[0, s])]
        if not changed:
            break
        trials = np.repeat(current[None, :], len(changed), axis=0)
        for k, s in enumerate(changed):
            trials[k, s] = a[0, s]
        starts = np.repeat(a, len(changed), 0)
        ok = (_favourable(model, trials, column) >= m_prime) & allowed(starts, trials)
        if not ok.any():
            break
        saved = encoder.cost(a, current[None, :])[0] - encoder.cost(starts, trials)
        current = trials[np.flatnonzero(ok)[np.argmax(saved[ok])]]
    return current


def advise(model, z, Z, m_prime, encoder, *, keep=(), favourable=1) -> tuple[FeatureCounterfactual, np.ndarray | None]:
    """Actionable advice that lifts one applicant to :math:`m'`: graft, search, prune, in one call.

    The three steps of the feature counterfactual as the lesson runs them:
    :func:`graft_candidates` moves each observed profile of ``Z`` only as far
    as advice may move the applicant ``z`` (holding ``keep`` too),
    :func:`feature_ce` takes the cheapest actionable candidate whose
    probability reaches ``m_prime``, and :func:`prune_move` undoes every change
    the score does not need.

    Parameters
    ----------
    model : fitted classifier with ``predict_proba`` on encoded rows
    z : array of shape (n_columns,) or (1, n_columns)
        The applicant, encoded.
    Z : array of shape (n, n_columns)
        Encoded observed profiles (the donors).
    m_prime : float in [0, 1]
        The probability to reach (a target above 1 cannot be reached: cap or skip it first).
    encoder : Encoder
    keep : sequence of str, default ()
        Features held at the applicant's values (e.g. the requested amount).
    favourable : label, default 1

    Returns
    -------
    move : FeatureCounterfactual
        The unpruned search result (on the grafted pool, whose row 0 is the applicant).
    advice : ndarray of shape (n_columns,) or None
        The pruned actionable profile, or None when no candidate reaches ``m_prime``.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.linear_model import LogisticRegression
    >>> from recourselab.features import FeatureSpec, Encoder
    >>> frame = pd.DataFrame({"a": [0.0, 1.0, 0.0, 1.0], "b": [0.0, 0.0, 1.0, 1.0]})
    >>> enc = Encoder([FeatureSpec("a", "continuous"), FeatureSpec("b", "continuous")]).fit(frame)
    >>> model = LogisticRegression(C=100).fit(enc.transform(frame), [0, 1, 0, 1])   # only a matters
    >>> move, advice = advise(model, [0.0, 0.0], enc.transform(frame), 0.6, enc)
    >>> move.found, advice.tolist()
    (True, [1.0, 0.0])
    """
    pool = graft_candidates(z, Z, encoder, keep)
    move = feature_ce(model, pool, 0, m_prime, encoder, favourable=favourable)
    if not move.found:
        return move, None
    return move, prune_move(model, pool[0], pool[move.target], m_prime, encoder, favourable=favourable)


def reachable(model, Z_rows, Z, m_prime, encoder, *, keep=(), favourable=1) -> np.ndarray:
    """Whether :func:`advise` finds advice for each applicant, without searching for the cheapest.

    :func:`advise` finds advice exactly when some candidate of its grafted
    pool (:func:`graft_candidates` of the applicant, with ``keep``) is an
    actionable move from the applicant (:meth:`Encoder.actionable_pairs
    <recourselab.features.Encoder.actionable_pairs>`) and the model's
    probability of the ``favourable`` class there reaches :math:`m'`, or when
    the applicant already reaches it. This returns that answer for many
    applicants at once: the pools of the distinct applicants go to the model
    in one call, and each applicant's best reachable probability is compared
    with its targets. Nothing is pruned and no cost is computed; use
    :func:`advise` for the advice itself.

    Parameters
    ----------
    model : fitted classifier with ``predict_proba`` on encoded rows
    Z_rows : array of shape (k, n_columns)
        The applicants, encoded; a row may repeat (e.g. one applicant refused
        in several rounds, with a target for each).
    Z : array of shape (n, n_columns)
        Encoded observed profiles (the donors), as for :func:`advise`.
    m_prime : float or array of shape (k,)
        The probability each row must reach, >= 0; above 1 or ``inf`` is
        never reached (no profile scores above 1).
    encoder : Encoder
        The fitted encoder of ``Z_rows`` and ``Z``.
    keep : sequence of str, default ()
        Features held at the applicant's values (e.g. the requested amount).
    favourable : label, default 1
        The class of ``model`` that is the favourable outcome.

    Returns
    -------
    ndarray of bool, shape (k,)
        ``reachable(...)[i]`` is ``advise(model, Z_rows[i], Z, m_prime[i], encoder,
        keep=keep)[1] is not None``.

    Notes
    -----
    The model scores ``(n + 1)`` rows per distinct applicant in one call, so
    memory grows with (distinct applicants) × n × n_columns; pass chunks of
    ``Z_rows`` for very many applicants.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.linear_model import LogisticRegression
    >>> from recourselab.features import FeatureSpec, Encoder
    >>> frame = pd.DataFrame({"a": [0.0, 1.0, 0.0, 1.0], "b": [0.0, 0.0, 1.0, 1.0]})
    >>> enc = Encoder([FeatureSpec("a", "continuous"), FeatureSpec("b", "continuous")]).fit(frame)
    >>> model = LogisticRegression(C=100).fit(enc.transform(frame), [0, 1, 0, 1])   # only a matters
    >>> Z = enc.transform(frame)
    >>> reachable(model, Z[[0, 0, 0]], Z, [0.6, 1.0, 0.6], enc, keep=[]).tolist()
    [True, False, True]
    >>> reachable(model, Z[[0]], Z, 0.6, enc, keep=["a"]).tolist()                  # a held: b does not help
    [False]
    """
    check_encoder(encoder)
    column = favourable_column(check_model(model, encoder), favourable)
    rows = _encoded(Z_rows, "Z_rows", encoder)
    Z = _encoded(Z, "Z", encoder)
    _feature_columns(encoder, keep, "keep")
    if np.ndim(m_prime) == 0:  # one target for every row, checked as advise checks it
        m_prime = np.full(len(rows), check_number(m_prime, "m_prime", minimum=0.0, allow_inf=True))
    m_prime = check_array(m_prime, "m_prime", length=len(rows), minimum=0.0, allow_inf=True, allow_empty=True)
    if len(rows) == 0:
        return np.zeros(0, dtype=bool)
    distinct, inverse = np.unique(rows, axis=0, return_inverse=True)
    pools = [graft_candidates(z, Z, encoder, keep) for z in distinct]
    proba = np.split(_favourable(model, np.vstack(pools), column), np.cumsum([len(q) for q in pools])[:-1])
    best = np.array([max(pr[0], pr[encoder.actionable_pairs(q[:1], q)[0]].max(initial=-np.inf))
                     for q, pr in zip(pools, proba, strict=True)])
    return best[np.ravel(inverse)] >= m_prime
