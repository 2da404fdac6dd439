"""The paper's comparison: its methods (fairlearn stand-ins for the baselines), their evaluation, cross-validation."""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from .._extras import require
from .._validation import (
    check_aligned,
    check_choice,
    check_int,
    check_seed,
    check_table,
    check_unit_interval,
    favourable_column,
    plain,
)
from ._inputs import (
    baseline_matrix,
    check_steps,
    encode_groups,
    frame_columns,
    group_codes,
    labels,
    partner_matrix,
)
from .attributions import explain, fairlearn_types
from .audit import REGIMES, scores_from_attributions, sort_regimes
from .matching import _financial_matrix, counterfactual_rows, label_group_baselines, match_counterfactuals
from .mlp import MLPClassifier

__all__ = ["METHODS", "AGARWAL_MAX_ITER", "FittedMethod", "fit_method", "evaluate_method", "cross_validate_methods"]

#: The methods :func:`fit_method` knows: the paper's baselines (fairlearn stand-ins) and the CEC ablations.
METHODS = ("unconstrained", "hardt", "agarwal", "correlation_remover", "eo_only", "cec_only", "cec")
#: Iterations of ExponentiatedGradient for "agarwal": each fits one network, so 10 keep a German-Credit
#: fold to a few seconds (fairlearn's default is 50; it stops earlier once the duality gap is small).
AGARWAL_MAX_ITER = 10


@dataclass(frozen=True)
class FittedMethod:
    """A model fitted by :func:`fit_method`, with what is needed to predict and explain it.

    Attributes
    ----------
    name : str
    model : object
        What integrated gradients explain: an :class:`MLPClassifier`, a
        ``ThresholdOptimizer`` or an ``ExponentiatedGradient``.
    remover : fairlearn CorrelationRemover or None
        For "correlation_remover": the fitted pre-processing; the network sees
        its output, so attributions are taken in the transformed space.
    group_values : tuple
        The two values of the protected attribute (the first is coded 0).
    fit_seconds : float
    columns : tuple of str or None
        The columns of a DataFrame ``X`` it was fitted on; a DataFrame given
        later is aligned to them by name.
    """

    name: str
    model: object
    remover: object = None
    group_values: tuple = (0, 1)
    fit_seconds: float = float("nan")
    columns: tuple | None = None

    def inputs(self, X, groups) -> np.ndarray:
        """The features the model sees (the CorrelationRemover's output for that method)."""
        M = check_table(X, "X", columns=self.columns if isinstance(X, pd.DataFrame) else None)
        if self.remover is None:
            return M
        codes = encode_groups(labels(groups, "groups", len(M)), self.group_values, "groups", "the training data")
        return self.remover.transform(np.column_stack([M, codes]))

    def predict(self, X, groups, random_state=0) -> np.ndarray:
        """0/1 decisions; randomised post-processors and reductions use ``random_state``."""
        threshold_optimizer, exponentiated_gradient = fairlearn_types()
        Z = self.inputs(X, groups)
        if threshold_optimizer and isinstance(self.model, threshold_optimizer):
            groups = labels(groups, "groups", len(Z))
            encode_groups(groups, self.group_values, "groups", "the training data")   # a group it never saw
            return np.asarray(self.model.predict(Z, sensitive_features=groups, random_state=random_state))
        if exponentiated_gradient and isinstance(self.model, exponentiated_gradient):
            return np.asarray(self.model.predict(Z, random_state=random_state))
        return np.asarray(self.model.predict(Z))

    def ranking_score(self, X, groups, random_state=0, favourable=1) -> np.ndarray:
        """The score the AUC is computed from (see :func:`evaluate_method`): P(favourable) where there is one."""
        threshold_optimizer, exponentiated_gradient = fairlearn_types()
        Z = self.inputs(X, groups)
        if threshold_optimizer and isinstance(self.model, threshold_optimizer):
            return (self.predict(X, groups, random_state) == favourable).astype(float)
        if exponentiated_gradient and isinstance(self.model, exponentiated_gradient):
            total = np.zeros(len(Z))
            for predictor, weight in zip(self.model.predictors_, np.asarray(self.model.weights_, dtype=float),
                                         strict=True):
                if weight > 0:
                    total += weight * _favourable_probability(predictor, Z, favourable)
            return total
        return _favourable_probability(self.model, Z, favourable)


def _favourable_probability(model, Z, favourable=1) -> np.ndarray:
    """P(favourable); also for fairlearn's constant DummyClassifier, whose predict_proba may have one column."""
    from sklearn.dummy import DummyClassifier

    proba = np.asarray(model.predict_proba(Z), dtype=float)
    if isinstance(model, DummyClassifier):
        classes = [plain(c) for c in model.classes_]
        return proba[:, classes.index(favourable)] if favourable in classes else np.zeros(len(Z))
    return proba[:, favourable_column(model, favourable)]


@contextlib.contextmanager
def _quiet_fairlearn():
    """Silence pandas-3 deprecations raised inside fairlearn 0.15's reductions (not ours to fix)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="fairlearn")
        yield


def _check_mlp_params(params, name: str) -> dict:
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise TypeError(f"{name} must be a dict of MLPClassifier arguments, got {type(params).__name__}.")
    valid = MLPClassifier().get_params()
    bad = [k for k in params if k not in valid]
    if bad:
        raise ValueError(f"{name} has unknown keys {bad}; valid keys are {sorted(valid)}.")
    return dict(params)


def _mlp(mlp_params, random_state, **overrides) -> MLPClassifier:
    params = _check_mlp_params(mlp_params, "mlp_params")
    params.setdefault("random_state", random_state)
    params.update(overrides)
    return MLPClassifier(**params)


def _fit_model(name, M, y, a, codes, X_cf, baselines, mlp_params, random_state):
    """The fitted model of one method and its CorrelationRemover (None for the other methods)."""
    if name in ("unconstrained", "eo_only", "cec_only", "cec"):
        lam_eo = 1.0 if name in ("eo_only", "cec") else 0.0
        lam_cec = 1.0 if name in ("cec_only", "cec") else 0.0
        if lam_cec and (X_cf is None or baselines is None):
            raise ValueError(f"method {name!r} trains with the CEC penalty and needs X_cf and baselines for the "
                             "training rows (see match_counterfactuals and label_group_baselines).")
        model = _mlp(mlp_params, random_state, lambda_eo=lam_eo, lambda_cec=lam_cec)
        return model.fit(M, y, sensitive_features=a, X_cf=X_cf if lam_cec else None,
                         baselines=baselines if lam_cec else None), None
    if name == "hardt":
        ThresholdOptimizer = require("fairlearn.postprocessing", "fairness").ThresholdOptimizer
        model = ThresholdOptimizer(estimator=_mlp(mlp_params, random_state, lambda_eo=0.0, lambda_cec=0.0),
                                   constraints="equalized_odds", objective="balanced_accuracy_score",
                                   predict_method="predict_proba")
        return model.fit(M, y, sensitive_features=a), None
    if name == "agarwal":
        reductions = require("fairlearn.reductions", "fairness")
        EqualizedOdds, ExponentiatedGradient = reductions.EqualizedOdds, reductions.ExponentiatedGradient
        model = ExponentiatedGradient(_mlp(mlp_params, random_state, lambda_eo=0.0, lambda_cec=0.0),
                                      EqualizedOdds(), max_iter=AGARWAL_MAX_ITER)
        with _quiet_fairlearn():
            return model.fit(M, y, sensitive_features=a), None
    CorrelationRemover = require("fairlearn.preprocessing", "fairness").CorrelationRemover  # correlation_remover
    remover = CorrelationRemover(sensitive_feature_ids=[M.shape[1]])
    remover.fit(np.column_stack([M, codes]))
    Z = remover.transform(np.column_stack([M, codes]))
    return _mlp(mlp_params, random_state, lambda_eo=0.0, lambda_cec=0.0).fit(Z, y), remover


def fit_method(name: str, X, y, groups, *, X_cf=None, baselines=None, mlp_params=None,
               random_state=0) -> FittedMethod:
    """Fit one of the paper's methods (or a fairlearn stand-in) with the same network.

    ``X`` is exactly what the model sees: whether the protected attribute is
    one of its columns is the caller's choice; ``groups`` is passed separately.

    * ``"unconstrained"``: :class:`MLPClassifier` with both penalties off.
    * ``"hardt"``: fairlearn ``ThresholdOptimizer(constraints="equalized_odds",
      objective="balanced_accuracy_score", predict_method="predict_proba")``
      around an unconstrained network. Balanced accuracy is chosen over
      accuracy because on imbalanced data (70% good risks in German Credit)
      the accuracy objective under equalized odds can settle on approving
      everyone, which satisfies the constraint trivially.
    * ``"agarwal"``: fairlearn ``ExponentiatedGradient(MLPClassifier,
      EqualizedOdds(), max_iter=AGARWAL_MAX_ITER)`` (10; each iteration fits
      one network, so fairlearn's default of 50 would take five times longer).
    * ``"correlation_remover"``: fairlearn ``CorrelationRemover`` (removes the
      linear correlation of every feature with the group) standing in for the
      paper's disparate impact remover, then an unconstrained network on the
      transformed features. Attributions are taken in that transformed space.
    * ``"eo_only"``: λ_EO = 1, λ_CEC = 0 (ablation).
    * ``"cec_only"``: λ_EO = 0, λ_CEC = 1 (ablation).
    * ``"cec"``: λ_EO = 1, λ_CEC = 1 (the paper's model).

    Parameters
    ----------
    name : one of ``METHODS``
    X : DataFrame or 2-d array of numbers, shape (n, d)
    y : array of 0/1 labels, shape (n,)
        1 = the favourable outcome.
    groups : array with two values, shape (n,)
    X_cf, baselines : arrays of shape (n, d)
        The training rows' partners and baselines; needed by "cec_only" and "cec"
        (DataFrames are aligned to X's columns by name).
    mlp_params : dict, optional
        Keyword arguments of :class:`MLPClassifier` (e.g. ``epochs``,
        ``hidden_layer_sizes``); the λ's are set by the method.
    random_state : int, default 0

    Returns
    -------
    FittedMethod
    """
    check_choice(name, "name", METHODS)
    check_aligned(X, "X", y=y, groups=groups, X_cf=X_cf, baselines=baselines)
    M = check_table(X, "X")
    n = len(M)
    y = labels(y, "y", n)
    if not set(pd.unique(y).tolist()) <= {0, 1}:
        raise ValueError("y must hold 0/1 labels (1 = favourable) for the fairness baselines.")
    a = labels(groups, "groups", n)
    values, codes = group_codes(a, "groups")
    columns = frame_columns(X)
    if X_cf is not None:
        X_cf = partner_matrix(X_cf, "X_cf", M.shape, columns=columns)
    if baselines is not None:
        baselines = baseline_matrix(baselines, M.shape, columns=columns)
    start = time.perf_counter()
    model, remover = _fit_model(name, M, y, a, codes, X_cf, baselines, mlp_params, random_state)
    return FittedMethod(name=name, model=model, remover=remover, group_values=values,
                        fit_seconds=time.perf_counter() - start, columns=None if columns is None else tuple(columns))


def _partner_groups(groups_cf, matched, group_values, n: int) -> np.ndarray:
    """The partners' groups; every matched row's must be one of the two groups."""
    a_cf = np.asarray(groups_cf.to_numpy() if isinstance(groups_cf, (pd.Series, pd.Index)) else groups_cf)
    if groups_cf is None or isinstance(groups_cf, (str, bytes)) or a_cf.shape != (n,):
        raise ValueError(f"groups_cf has shape {a_cf.shape}; give the group of every row's partner, shape ({n},).")
    known = (a_cf == group_values[0]) | (a_cf == group_values[1])
    if (matched & ~known).any():   # unmatched rows' partner groups are never used
        i = int(np.flatnonzero(matched & ~known)[0])
        raise ValueError(f"groups_cf[{i}]={plain(a_cf[i])!r} is not one of the two groups {list(group_values)}, "
                         f"but row {i} has a partner; give every matched row's partner group (e.g. "
                         "match.partner_group).")
    return a_cf


def _procedural(fitted, M, C, B, a, a_cf, matched, pred, pred_cf, threshold, steps, favourable):
    """Mean CEC, flip rate and regime shares on the matched rows, each row in the space the model sees."""
    rows = np.flatnonzero(matched)
    if not len(rows):
        return pd.Series(np.nan, index=list(REGIMES)), float("nan"), float("nan")
    # the partner with its own group, the baseline with the factual's
    Zb = fitted.inputs(B[rows], a[rows])
    G = explain(fitted.model, fitted.inputs(M[rows], a[rows]), Zb, steps, favourable=favourable)
    Gc = explain(fitted.model, fitted.inputs(C[rows], a_cf[rows]), Zb, steps, favourable=favourable)
    cec, _ = scores_from_attributions(G, Gc)
    reg = sort_regimes(cec, pred[rows], pred_cf[rows], threshold, None)
    return reg.shares, reg.flip_rate, float(cec.mean())


def evaluate_method(model_or_fitted, X_test, y_test, groups_test, *, X_cf, groups_cf, baselines,
                    threshold: float = 0.25, steps: int = 32, random_state=0, favourable=1) -> dict:
    """Utility, outcome fairness and procedural fairness of one fitted model on a test set.

    * ``auc`` from a score: the probability of the favourable class for
      networks, the weighted mixture of the predictors' probabilities for
      ``ExponentiatedGradient``, and the hard randomised decision for
      ``ThresholdOptimizer`` (which has no probability of its own), which
      lowers its AUC.
    * ``f1`` (of the favourable class); ``eo_gap`` = the larger of the absolute
      TPR and FPR differences and ``sp_gap`` (fairlearn's
      ``equalized_odds_difference`` and ``demographic_parity_difference``), on
      all test rows.
    * ``cec`` (mean score), ``pfr`` (prediction flip rate) and the regime
      shares ``regime_A`` ... ``regime_D`` on the matched rows.

    A group-aware post-processor predicts each counterfactual row with the
    counterfactual's own group ``groups_cf``. Randomised decisions use the same
    random numbers for a row and its partner, so a flip is never just noise.
    With the correlation remover, attributions are taken in the transformed
    space: the partner is transformed with its own group and the baseline with
    the factual's group, which (the transformation being affine) is exactly the
    label-group mean of the transformed training data.

    Parameters
    ----------
    model_or_fitted : FittedMethod or a model
    X_test : DataFrame or 2-d array, shape (n, d)
    y_test : array of labels, shape (n,)
    groups_test : array, shape (n,)
        Each test row's group.
    X_cf : array of shape (n, d)
        Partners (all-NaN rows where unmatched; those rows are left out of the
        procedural metrics).
    groups_cf : array of shape (n,)
        The partners' group (e.g. ``match.partner_group``); every matched
        row's entry must be one of the two groups (a missing one is an error).
    baselines : array of shape (n, d)
        The factual rows' baselines (training label-group means).
    threshold : float, default 0.25
    steps : int, default 32
    random_state : int, default 0
    favourable : label, default 1
        The favourable class: the AUC ranks by its probability, F1 is its F1,
        and its logit is explained.

    Returns
    -------
    dict
    """
    metrics = require("fairlearn.metrics", "fairness", "the outcome-fairness metrics of evaluate")
    demographic_parity_difference = metrics.demographic_parity_difference
    equalized_odds_difference = metrics.equalized_odds_difference
    from sklearn.metrics import f1_score, roc_auc_score

    random_state = check_seed(random_state)
    threshold = check_unit_interval(threshold, "threshold")
    steps = check_steps(steps)
    check_aligned(X_test, "X_test", y_test=y_test, groups_test=groups_test, X_cf=X_cf, groups_cf=groups_cf,
                  baselines=baselines)
    fitted = model_or_fitted if isinstance(model_or_fitted, FittedMethod) else \
        FittedMethod(name=type(model_or_fitted).__name__, model=model_or_fitted,
                     group_values=group_codes(labels(groups_test, "groups_test"), "groups_test")[0])
    columns = fitted.columns or frame_columns(X_test)
    M = check_table(X_test, "X_test", columns=columns if isinstance(X_test, pd.DataFrame) else None)
    n = len(M)
    y = labels(y_test, "y_test", n)
    a = labels(groups_test, "groups_test", n)
    C = partner_matrix(X_cf, "X_cf", M.shape, reference="X_test", columns=columns)
    matched = ~np.isnan(C).any(axis=1)
    a_cf = _partner_groups(groups_cf, matched, fitted.group_values, n)
    B = baseline_matrix(baselines, M.shape, columns=columns)
    pred = fitted.predict(M, a, random_state)
    a_cf_filled = np.where(matched, a_cf, a)
    pred_cf = fitted.predict(np.where(matched[:, None], C, M), a_cf_filled, random_state)
    score = fitted.ranking_score(M, a, random_state, favourable)
    shares, pfr, mean_cec = _procedural(fitted, M, C, B, a, a_cf_filled, matched, pred, pred_cf, threshold, steps,
                                        favourable)
    out = {
        "n": n,
        "n_matched": int(matched.sum()),
        "auc": float(roc_auc_score(y == favourable, score)) if len(np.unique(y)) == 2 else float("nan"),
        "f1": float(f1_score(y, pred, pos_label=favourable, zero_division=0)),
        "eo_gap": float(equalized_odds_difference(y, pred, sensitive_features=a)),
        "sp_gap": float(demographic_parity_difference(y, pred, sensitive_features=a)),
        "cec": mean_cec,
        "pfr": pfr,
    }
    out.update({f"regime_{r}": float(shares[r]) for r in REGIMES})
    return out


def _check_variants(variants, methods) -> dict:
    if variants is not None and not isinstance(variants, Mapping):
        raise TypeError(f"variants must be a dict name -> MLPClassifier arguments, got {type(variants).__name__}.")
    variants = dict(variants or {})
    clash = [v for v in variants if v in methods]
    if clash:
        raise ValueError(f"variants {clash} have the names of methods; give them other names.")
    return {name: _check_mlp_params(params, f"variants[{name!r}]") for name, params in variants.items()}


def _fold_data(frame, M, y01, a, values, codes, train, test, financial, tau) -> dict:
    """One fold's pairs and baselines: training rows matched within the training fold, test rows against it."""
    Xtr, Xte = frame.iloc[train], frame.iloc[test]
    m_tr = match_counterfactuals(Xtr, y01[train], a[train], financial, tau=tau)
    m_te = match_counterfactuals(Xte, y01[test], a[test], financial, tau=tau, X_pool=Xtr, y_pool=y01[train],
                                 groups_pool=a[train])
    return {
        "row": {"coverage_train": m_tr.coverage, "coverage_test": m_te.coverage},
        "X_cf": counterfactual_rows(m_tr, M[train]),
        "baselines": label_group_baselines(M[train], y01[train], a[train]),
        "test": dict(X_cf=counterfactual_rows(m_te, M[train]), groups_cf=np.asarray(values)[1 - codes[test]],
                     baselines=label_group_baselines(M[test], y01[test], a[test], X_fit=M[train],
                                                     y_fit=y01[train], groups_fit=a[train])),
    }


def cross_validate_methods(X, y, groups, financial, methods: Sequence[str] = METHODS, *, n_splits: int = 5, tau=None,
                           mlp_params=None, variants=None, threshold: float = 0.25, steps: int = 32,
                           random_state=0, progress: bool = False) -> pd.DataFrame:
    """The paper's experiment: k-fold cross-validation of several methods on one data set.

    Folds are stratified on (label, group). In each fold, the training rows are
    matched within the training fold and get their label-group baselines from
    it; every test row is matched against the training fold (standardised with
    the training statistics) and gets the training mean of its own (label,
    group) cell as its baseline. Each method is fitted with :func:`fit_method`
    and scored with :func:`evaluate_method`.

    Parameters
    ----------
    X : DataFrame or 2-d array of numbers
        What the models see (include the protected attribute as a column or not).
    y : array of two labels; the larger one (sorted) is coded 1 = favourable
    groups : array with two values
    financial : columns of X to match on
    methods : sequence of names from ``METHODS``
    n_splits : int, default 5
    tau : float, optional
        Matching threshold (unmatched rows drop out of CEC training and of the
        procedural metrics).
    mlp_params : dict, optional
        :class:`MLPClassifier` arguments shared by all methods.
    variants : dict, optional
        Further networks to evaluate alongside ``methods``: name -> keyword
        arguments of :class:`MLPClassifier` (on top of ``mlp_params``), e.g.
        ``{"cec (λ_CEC = 2)": {"lambda_cec": 2.0, "lambda_eo": 1.0}}``; used for
        sensitivity sweeps. Each is trained on the fold's pairs and baselines.
    threshold, steps : see :func:`evaluate_method`
    random_state : int, default 0
        Seeds the folds; the networks of fold k use ``random_state + k``.
    progress : bool, default False
        Show a tqdm progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per (fold, method): coverage of the matching, fit time and
        every metric of :func:`evaluate_method`.

    Examples
    --------
    >>> from recourselab.datasets import make_cec_synthetic
    >>> data = make_cec_synthetic(200, random_state=0)
    >>> X = data.frame[[c for c in data.feature_names if c != "group"]]
    >>> fin = [c for c in X.columns if c.startswith("fin_")]
    >>> res = cross_validate_methods(X, data.y, data.frame["group"], fin, methods=["unconstrained"], n_splits=2,
    ...                              mlp_params={"hidden_layer_sizes": (8,), "epochs": 2}, steps=8)
    >>> res[["fold", "method"]].values.tolist()
    [[0, 'unconstrained'], [1, 'unconstrained']]
    """
    from sklearn.model_selection import StratifiedKFold
    from tqdm.auto import tqdm

    random_state = check_seed(random_state)
    methods = [methods] if isinstance(methods, str) else list(methods)
    for i, method in enumerate(methods):
        check_choice(method, f"methods[{i}]", METHODS)
    n_splits = check_int(n_splits, "n_splits", minimum=2)
    check_unit_interval(threshold, "threshold")
    steps = check_steps(steps)
    _check_mlp_params(mlp_params, "mlp_params")
    variants = _check_variants(variants, methods)
    check_aligned(X, "X", y=y, groups=groups)
    M = check_table(X, "X")
    y = labels(y, "y", len(M))
    classes = np.unique(y)
    if len(classes) != 2:
        raise ValueError(f"y must have two labels, found {classes.tolist()[:6]}.")
    y01 = (y == classes[1]).astype(int)
    a = labels(groups, "groups", len(M))
    values, codes = group_codes(a, "groups")
    _financial_matrix(X, financial, "X")   # validate names early
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(M)
    folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
    results = []
    bar = tqdm(total=n_splits * (len(methods) + len(variants)), disable=not progress, desc="folds x methods")
    for fold, (train, test) in enumerate(folds.split(M, 2 * y01 + codes)):
        data = _fold_data(frame, M, y01, a, values, codes, train, test, financial, tau)
        seed = random_state + fold
        evaluate = dict(threshold=threshold, steps=steps, random_state=seed, **data["test"])
        for name in methods:
            fitted = fit_method(name, M[train], y01[train], a[train], X_cf=data["X_cf"], baselines=data["baselines"],
                                mlp_params=mlp_params, random_state=seed)
            row = {"fold": fold, "method": name, **data["row"], "fit_seconds": fitted.fit_seconds}
            results.append({**row, **evaluate_method(fitted, M[test], y01[test], a[test], **evaluate)})
            bar.update(1)
        for name, params in variants.items():
            start = time.perf_counter()
            model = _mlp(mlp_params, seed, **params).fit(M[train], y01[train], sensitive_features=a[train],
                                                         X_cf=data["X_cf"], baselines=data["baselines"])
            row = {"fold": fold, "method": name, **data["row"], "fit_seconds": time.perf_counter() - start}
            results.append({**row, **evaluate_method(model, M[test], y01[test], a[test], **evaluate)})
            bar.update(1)
    bar.close()
    return pd.DataFrame(results)

