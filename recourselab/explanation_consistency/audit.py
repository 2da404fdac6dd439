"""The CEC score of factual-counterfactual pairs, the four regimes, and the one-call audit.

The literal versions are :func:`recourselab.explanation_consistency.paper.cec_score` and
:func:`recourselab.explanation_consistency.paper.regime`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validation import align_columns, check_aligned, check_array, check_table, check_unit_interval
from ._inputs import EPS, baseline_matrix, check_steps, feature_names, labels, partner_matrix, row_index
from .attributions import _model_columns, check_method, explain, model_inputs
from .matching import MatchResult, counterfactual_rows, label_group_baselines, match_counterfactuals
from .quadrature import check_rule

__all__ = ["CECResult", "cec_scores", "RegimeResult", "regimes", "ExplanationAudit", "audit_explanations"]

REGIMES = ("A", "B", "C", "D")   # Table 1: same/different prediction x same/different reasoning


@dataclass(frozen=True)
class CECResult:
    """Explanation consistency of factual-counterfactual pairs (:func:`cec_scores`).

    Attributes
    ----------
    score : ndarray, shape (n,)
        :math:`\\Delta_{CEC} = \\frac12 \\lVert \\hat g - \\hat{\\tilde g} \\rVert_2` in [0, 1].
    attributions, attributions_cf : ndarray, shape (n, d)
        Raw integrated gradients of the factual and counterfactual rows (same baseline).
    feature_gap : ndarray, shape (n, d)
        :math:`\\hat g - \\hat{\\tilde g}` per feature: which features the two
        explanations weigh differently (the decomposition the paper leaves to
        future work). ``score = ½ · ‖feature_gap‖``.
    feature_names : tuple of str
    steps : int
    """

    score: np.ndarray
    attributions: np.ndarray = field(repr=False)
    attributions_cf: np.ndarray = field(repr=False)
    feature_gap: np.ndarray = field(repr=False)
    feature_names: tuple = ()
    steps: int = 32
    row_index: pd.Index = field(default=None, repr=False)

    @property
    def mean(self) -> float:
        """The population CEC: the mean score."""
        return float(self.score.mean()) if len(self.score) else float("nan")

    def feature_gap_frame(self, feature_names=None) -> pd.DataFrame:
        """Mean absolute and mean signed gap per feature, largest first."""
        names = list(self.feature_names if feature_names is None else feature_names)
        if len(names) != self.feature_gap.shape[1]:
            raise ValueError(f"feature_names has {len(names)} names but there are {self.feature_gap.shape[1]} "
                             "features.")
        frame = pd.DataFrame({"mean_abs_gap": np.abs(self.feature_gap).mean(axis=0),
                              "mean_gap": self.feature_gap.mean(axis=0)}, index=pd.Index(names, name="feature"))
        return frame.sort_values("mean_abs_gap", ascending=False, kind="stable")

    def to_frame(self) -> pd.DataFrame:
        """Per row: the score and the feature with the largest absolute gap."""
        top = np.asarray(self.feature_names, dtype=object)[np.abs(self.feature_gap).argmax(axis=1)] \
            if self.feature_gap.size else np.array([], dtype=object)
        return pd.DataFrame({"cec": self.score, "largest_gap_feature": top}, index=self.row_index)


def scores_from_attributions(G, Gc):
    """The CEC score of each pair of attribution rows and the gap of their unit vectors."""
    def unit(A):
        return A / (np.linalg.norm(A, axis=1, keepdims=True) + EPS)

    gap = unit(G) - unit(Gc)
    return np.clip(0.5 * np.linalg.norm(gap, axis=1), 0.0, 1.0), gap


def _score_pairs(model, M, C, B, steps, rule, method, favourable, names, index) -> CECResult:
    G = explain(model, M, B, steps, rule, method, favourable)
    Gc = explain(model, C, B, steps, rule, method, favourable)
    score, gap = scores_from_attributions(G, Gc)
    return CECResult(score=score, attributions=G, attributions_cf=Gc, feature_gap=gap, feature_names=names,
                     steps=steps, row_index=index)


def cec_scores(model, X, X_cf, baselines, steps: int = 32, *, rule: str = "riemann", method: str = "auto",
               favourable=1) -> CECResult:
    """The CEC score of every factual-counterfactual pair (the paper's Definition 3).

    Both members of a pair are explained against the same baseline (the
    factual's label-group mean, Principle 1), each attribution vector is scaled
    to unit length (:math:`g / (\\lVert g \\rVert_2 + 10^{-8})`) and the score is
    half the distance between them,

    .. math:: \\Delta_{\\mathrm{CEC}}(x, \\tilde x) = \\tfrac12 \\lVert \\hat g - \\hat{\\tilde g} \\rVert_2
              = \\sin(\\theta / 2) \\in [0, 1]

    for the angle :math:`\\theta` between the explanations: 0 for the same
    direction, 1 for opposite ones. A pair where exactly one attribution
    vector is zero scores 0.5.

    The paper's Theorem 1 shows that with one shared baseline :math:`b`
    cancels from the *raw* difference :math:`\\mathrm{IG}_k(x; b) -
    \\mathrm{IG}_k(\\tilde x; b)` (for near-constant gradients). The score
    compares the *normalised* vectors, whose lengths
    :math:`\\lVert \\mathrm{IG}(x; b) \\rVert` still depend on :math:`b`, so
    the baseline does not cancel from the score itself: moving the shared
    baseline can move the score. Principle 1 removes the group-specific part
    of the baseline, not every effect of it.

    Parameters
    ----------
    model : any model :func:`integrated_gradients` supports
    X : DataFrame or 2-d array, shape (n, d)
        Factual rows (as the model sees them; a DataFrame is aligned by name to
        the model's columns when it has them).
    X_cf : array of shape (n, d)
        Their counterfactual partners. No NaN: drop unmatched rows first
        (``X[match.matched]``). A DataFrame is aligned to X's columns by name.
    baselines : array of shape (n, d) or (d,)
    steps : int, default 32
    rule, method : see :func:`integrated_gradients` (``method="auto"`` explains
        any classifier with ``predict_proba`` through finite differences).
    favourable : label, default 1
        The favourable class, whose logit is explained (see
        :func:`integrated_gradients`; the scores do not depend on it, the
        attributions change sign).

    Returns
    -------
    CECResult

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> model = LogisticRegression().fit([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]], [0, 1, 0, 1])
    >>> result = cec_scores(model, [[1.0, 1.0]], [[-1.0, -1.0]], baselines=[0.0, 0.0])
    >>> round(float(result.score[0]), 6)   # opposite explanations
    1.0
    """
    steps = check_steps(steps)
    rule = check_rule(rule)
    method = check_method(method)
    M, columns = model_inputs(model, X, X_cf=X_cf, baselines=baselines)
    C = partner_matrix(X_cf, "X_cf", M.shape, columns=columns)
    if np.isnan(C).any():
        bad = int(np.isnan(C).any(axis=1).sum())
        raise ValueError(f"X_cf has {bad} unmatched (NaN) row(s); score only the matched pairs, e.g. "
                         "X[match.matched], X_cf[match.matched] and baselines[match.matched].")
    B = baseline_matrix(baselines, M.shape, columns=columns)
    names = tuple(columns) if columns is not None else feature_names(X, M.shape[1])
    return _score_pairs(model, M, C, B, steps, rule, method, favourable, names, row_index(X, len(M)))


@dataclass(frozen=True)
class RegimeResult:
    """The four fairness regimes of every pair (:func:`regimes`).

    Attributes
    ----------
    labels : ndarray of str, shape (n,)
        "A" same prediction and same reasoning, "B" same prediction and
        different reasoning (hidden bias), "C" different prediction and same
        reasoning, "D" both differ.
    same_prediction, same_reasoning : ndarray of bool
    score : ndarray of float
    threshold : float
    """

    labels: np.ndarray
    same_prediction: np.ndarray = field(repr=False)
    same_reasoning: np.ndarray = field(repr=False)
    score: np.ndarray = field(repr=False)
    threshold: float = 0.25
    row_index: pd.Index = field(default=None, repr=False)

    @property
    def shares(self) -> pd.Series:
        """Fraction of pairs in each regime; all four are present (0 when empty)."""
        n = len(self.labels)
        return pd.Series({r: (float((self.labels == r).sum()) / n if n else float("nan")) for r in REGIMES},
                         name="share")

    @property
    def flip_rate(self) -> float:
        """Prediction flip rate PFR = P(ŷ(x) ≠ ŷ(x̃))."""
        return float((~self.same_prediction).mean()) if len(self.labels) else float("nan")

    @property
    def mean_score(self) -> float:
        return float(self.score.mean()) if len(self.score) else float("nan")

    def to_frame(self) -> pd.DataFrame:
        """Per pair: regime, same prediction, same reasoning and score."""
        return pd.DataFrame({"regime": self.labels, "same_prediction": self.same_prediction,
                             "same_reasoning": self.same_reasoning, "cec": self.score}, index=self.row_index)


def sort_regimes(s: np.ndarray, p: np.ndarray, pc: np.ndarray, threshold: float, index) -> RegimeResult:
    """Regimes of validated scores and decisions (any number of pairs, none included)."""
    same_p = p == pc
    same_r = s <= threshold
    regime = np.where(same_p, np.where(same_r, "A", "B"), np.where(same_r, "C", "D"))
    return RegimeResult(labels=regime, same_prediction=same_p, same_reasoning=same_r, score=s,
                        threshold=float(threshold), row_index=index)


def regimes(score, prediction, prediction_cf, *, threshold: float = 0.25) -> RegimeResult:
    """Cross "same prediction?" with "same reasoning?" into the regimes A-D (the paper's Table 1).

    Reasoning counts as the same when the CEC score is at most ``threshold``.
    The paper gives no threshold (under our reading, 0.25). Because the score
    equals :math:`\\tfrac12\\sqrt{2(1 - \\cos\\theta)} = \\sin(\\theta/2)`, the
    default 0.25 means the two normalised attribution vectors point within
    about 29° of each other (:math:`2 \\arcsin 0.25 = 28.96°`); 0.5 would allow 60°.

    Parameters
    ----------
    score : array of shape (n,), in [0, 1]
    prediction, prediction_cf : arrays of shape (n,)
        Decisions for the factual and counterfactual rows (none missing).
    threshold : float in [0, 1], default 0.25

    Returns
    -------
    RegimeResult

    Examples
    --------
    >>> r = regimes([0.1, 0.6, 0.1, 0.6], [1, 1, 1, 0], [1, 1, 0, 1])
    >>> r.labels.tolist(), r.flip_rate
    (['A', 'B', 'C', 'D'], 0.5)
    """
    check_aligned(score, "score", prediction=prediction, prediction_cf=prediction_cf)
    s = check_array(score, "score", minimum=0.0, maximum=1.0, length_of="pairs")
    p = labels(prediction, "prediction", len(s), what="pair")
    pc = labels(prediction_cf, "prediction_cf", len(s), what="pair")
    threshold = check_unit_interval(threshold, "threshold")
    return sort_regimes(s, p, pc, threshold, row_index(score, len(s)))


@dataclass(frozen=True)
class ExplanationAudit:
    """Everything :func:`audit_explanations` computed.

    Attributes
    ----------
    match : MatchResult
    cec : CECResult
        Scores of the matched rows only.
    regimes : RegimeResult
        Regimes of the matched rows only.
    rows : ndarray of int
        Positions (in X) of the matched rows that ``cec`` and ``regimes`` describe.
    prediction, prediction_cf : ndarray
        Decisions for every row of X and for its partner (partner entries of
        unmatched rows are meaningless).
    """

    match: MatchResult
    cec: CECResult
    regimes: RegimeResult
    rows: np.ndarray
    prediction: np.ndarray = field(repr=False)
    prediction_cf: np.ndarray = field(repr=False)

    @property
    def mean_cec(self) -> float:
        return self.cec.mean

    @property
    def flip_rate(self) -> float:
        return self.regimes.flip_rate

    def summary(self) -> pd.Series:
        """Coverage, mean CEC, prediction flip rate and the regime shares."""
        values = {"coverage": self.match.coverage, "cec": self.mean_cec, "pfr": self.flip_rate}
        values.update({f"regime_{r}": v for r, v in self.regimes.shares.items()})
        return pd.Series(values)

    def to_frame(self) -> pd.DataFrame:
        """One row per row of X: match, predictions, CEC score and regime (NaN/None when unmatched)."""
        n = len(self.match.index)
        frame = self.match.to_frame()
        frame["prediction"] = self.prediction
        frame["prediction_cf"] = pd.Series(self.prediction_cf, index=frame.index).where(self.match.matched)
        cec = np.full(n, np.nan)
        cec[self.rows] = self.cec.score
        regime = np.full(n, None, dtype=object)
        regime[self.rows] = self.regimes.labels
        frame["cec"] = cec
        frame["regime"] = regime
        return frame


def _default_predict(model, X, name: str) -> np.ndarray:
    if not hasattr(model, "predict"):
        raise TypeError("the model has no predict method; pass prediction and prediction_cf (decisions for X and "
                        "for each row's partner).")
    try:
        return np.asarray(model.predict(X))
    except TypeError as err:
        raise TypeError(f"model.predict failed on {name} ({err}); for a model that needs the group at prediction "
                        "time (e.g. ThresholdOptimizer) pass prediction and prediction_cf.") from err


def _aligned_tables(model, X, X_pool):
    """X and the pool in the model's column order when X is a DataFrame (an array pool is read in X's order)."""
    if not isinstance(X, pd.DataFrame):
        return X, X_pool
    columns = _model_columns(model) or [str(c) for c in X.columns]
    if X_pool is not None and not isinstance(X_pool, pd.DataFrame):
        X_pool = pd.DataFrame(check_table(X_pool, "X_pool", columns=list(X.columns)), columns=X.columns)
    return align_columns(X, columns, "X"), align_columns(X_pool, columns, "X_pool")


def _predictions(model, X, M, C, matched, prediction, prediction_cf):
    """Decisions for X and for each row's partner (model.predict unless given); unmatched partners get X's row."""
    n = len(M)
    C_filled = np.where(matched[:, None], C, M)
    if isinstance(X, pd.DataFrame):  # predict on frames with X's columns, as the model was probably fitted
        M_in, C_in = X, pd.DataFrame(C_filled, columns=X.columns, index=X.index).astype(X.dtypes.to_dict())
    else:
        M_in, C_in = M, C_filled
    pred = _default_predict(model, M_in, "X") if prediction is None else labels(prediction, "prediction", n)
    pred_cf = (_default_predict(model, C_in, "the partners") if prediction_cf is None
               else labels(prediction_cf, "prediction_cf", n))
    return pred, pred_cf


def audit_explanations(model, X, y, groups, *, financial=None, match: MatchResult | None = None, X_pool=None,
                       y_pool=None, groups_pool=None, tau=None, baselines=None, prediction=None, prediction_cf=None,
                       threshold: float = 0.25, steps: int = 32, rule: str = "riemann", method: str = "auto",
                       favourable=1) -> ExplanationAudit:
    """Match, explain, score and sort into regimes in one call (a thin wrapper).

    Runs :func:`match_counterfactuals` (unless ``match`` is given),
    :func:`counterfactual_rows`, :func:`label_group_baselines` (unless
    ``baselines`` is given), :func:`cec_scores` on the matched rows and
    :func:`regimes`.

    Parameters
    ----------
    model : any model :func:`integrated_gradients` supports
    X : DataFrame or 2-d array of numbers
        Rows to audit, as the model sees them (a DataFrame is aligned by name
        to the model's columns when it has them, and the pool with it).
    y, groups : arrays of shape (n,)
        True labels and each row's group (a binary protected attribute).
    financial : columns to match on (needed unless ``match`` is given)
    match : MatchResult, optional
    X_pool, y_pool, groups_pool : optional
        The pool partners come from (default: X itself), e.g. the training data.
    tau : float, optional
        Matching threshold.
    baselines : array of shape (n, d), optional
        Default: label-group means of the pool.
    prediction, prediction_cf : arrays of shape (n,), optional
        Decisions for X and for each row's partner; default ``model.predict``.
        Pass them for models that need the group at prediction time (e.g.
        ``ThresholdOptimizer``; use ``match.partner_group`` for the partners).
    threshold : float, default 0.25
    steps : int, default 32
    rule, method : see :func:`integrated_gradients`; with ``method="auto"``
        any binary classifier with ``predict_proba`` on X can be audited
        (finite differences, :math:`2dT` model calls per explained row).
    favourable : label, default 1
        The favourable class, whose logit is explained (see :func:`integrated_gradients`).

    Returns
    -------
    ExplanationAudit

    Notes
    -----
    **The protected attribute's own attribution.** If the protected attribute
    is one of the model's inputs, the default baselines (the mean of the row's
    own label and group, :func:`label_group_baselines`) equal the factual's
    value in that column, so the factual's explanation gives it exactly zero
    attribution, by construction: it can never show the model using the
    attribute. The partner's explanation (same baseline, the other group's
    value) can, and the score then counts it. Read ``cec.attributions`` for
    that column with this in mind, or pass your own ``baselines``.

    **More than two groups.** ``groups`` must have two values. To compare two
    groups of a many-valued attribute (e.g. one race against another), audit
    the rows of those two only, e.g. ``keep = np.isin(groups, [group,
    reference])`` and ``audit_explanations(model, X[keep], y[keep],
    groups[keep], ...)``; a group of fewer than about 30 matched rows gives a
    mean score too noisy to read alone.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); groups = rng.integers(0, 2, 60); y = (X[:, 0] > 0).astype(int)
    >>> model = LogisticRegression().fit(X, y)
    >>> audit = audit_explanations(model, X, y, groups, financial=[0])
    >>> audit.summary().index.tolist()
    ['coverage', 'cec', 'pfr', 'regime_A', 'regime_B', 'regime_C', 'regime_D']
    """
    steps, rule, method = check_steps(steps), check_rule(rule), check_method(method)
    threshold = check_unit_interval(threshold, "threshold")
    check_aligned(X, "X", y=y, groups=groups, prediction=prediction, prediction_cf=prediction_cf)
    X, X_pool = _aligned_tables(model, X, X_pool)
    M, columns = model_inputs(model, X)
    if match is None:
        if financial is None:
            raise ValueError("give financial (the features to match on) or a ready MatchResult as match.")
        match = match_counterfactuals(X, y, groups, financial, tau=tau, X_pool=X_pool, y_pool=y_pool,
                                      groups_pool=groups_pool)
    elif not isinstance(match, MatchResult):
        raise TypeError(f"match must be a MatchResult from match_counterfactuals, got {type(match).__name__}.")
    elif len(match.index) != len(M):
        raise ValueError(f"match has {len(match.index)} rows but X has {len(M)}; match the same rows.")
    C = counterfactual_rows(match, X if X_pool is None else X_pool, columns=columns)
    if baselines is None:
        pool = {} if X_pool is None else {"X_fit": X_pool, "y_fit": y_pool, "groups_fit": groups_pool}
        baselines = label_group_baselines(X, y, groups, **pool)
    B = baseline_matrix(baselines, M.shape, columns=columns)
    rows = np.flatnonzero(match.matched)
    pred, pred_cf = _predictions(model, X, M, C, match.matched, prediction, prediction_cf)
    index = row_index(X, len(M))[rows]
    names = tuple(columns) if columns is not None else feature_names(X, M.shape[1])
    cec = _score_pairs(model, M[rows], C[rows], B[rows], steps, rule, method, favourable, names, index)
    reg = sort_regimes(cec.score, pred[rows], pred_cf[rows], threshold, index)
    return ExplanationAudit(match=match, cec=cec, regimes=reg, rows=rows, prediction=pred, prediction_cf=pred_cf)

