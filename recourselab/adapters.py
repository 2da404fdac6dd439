"""Audit your own model: a fitted raw-frame classifier seen through the package's encoded matrix ``Z``.

Every recourse method of the package works on the encoded rows ``Z`` of an
:class:`~recourselab.features.Encoder` (columns in [0, 1], one-hot blocks),
because that is where costs and actionability (:class:`~recourselab.features.FeatureSpec`)
are defined. A practitioner's model is usually fitted on the *raw* frame, with
its own preprocessing: a scikit-learn ``Pipeline`` whose ``ColumnTransformer``
one-hot encodes and scales the columns its own way. Calling it on ``Z`` fails
("X has 49 features, but ColumnTransformer is expecting 12").

:class:`EncodedModel` is the glue: it decodes ``Z`` back to the raw frame
(:meth:`Encoder.inverse_transform <recourselab.features.Encoder.inverse_transform>`),
puts the columns in the order the estimator was fitted with, and calls the
estimator. It has the scikit-learn classifier interface (``predict_proba``,
``predict``, ``classes_``, ``decision_function`` when the estimator has one),
so every function of the package that takes a model accepts it, and the
package's actionability model is kept: recourse is still searched, costed and
checked (:meth:`Encoder.feasible <recourselab.features.Encoder.feasible>`) in
``Z``.

Two libraries do the same for their own methods: DiCE's ``backend="sklearn"``
accepts a pipeline on the raw frame, and fairlearn's
``ThresholdOptimizer(prefit=True)`` wraps any fitted estimator. Neither has a
per-feature actionability model (immutable, increase-only, decrease-only
features); :class:`EncodedModel` keeps the package's.

Decoding snaps values to valid levels (ordinal features to the nearest level,
one-hot blocks to their largest column, integer columns rounded), so the
wrapped model is piecewise constant in ``Z`` along such features, as the raw
model is along them anyway. Observed rows decode exactly.
"""

from __future__ import annotations

import math
import numbers
from typing import Mapping

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._validation import check_aligned, check_columns, check_labels, check_seed, favourable_column, plain
from .features import Encoder, check_encoded, check_encoder

__all__ = ["EncodedModel", "check_model", "linear_in_encoded_space"]


def _estimator_has(name: str):
    return lambda self: hasattr(self.estimator, name)


def _fitted(estimator) -> bool:
    try:
        check_is_fitted(estimator)
    except NotFittedError:
        return False
    except TypeError:  # not a scikit-learn estimator: trust it if it can predict
        return hasattr(estimator, "predict_proba") or hasattr(estimator, "predict")
    return True


class EncodedModel(ClassifierMixin, BaseEstimator):
    """A classifier on the raw frame (e.g. a fitted ``Pipeline``), usable on the package's encoded rows ``Z``.

    ``predict_proba(Z)`` decodes ``Z`` with the encoder, arranges the columns
    as the estimator expects them and returns
    ``estimator.predict_proba(frame)``; ``predict`` and ``decision_function``
    likewise. Costs, candidates and feasibility stay in ``Z``, under the
    encoder's :class:`~recourselab.features.FeatureSpec` actionability.

    Parameters
    ----------
    estimator : classifier taking a pandas DataFrame
        Fitted (used as is, like fairlearn's ``prefit=True``) or not fitted
        (then call :meth:`fit` with encoded rows and labels: a clone of it is
        fitted on the decoded frame). ``sklearn.base.clone`` of an
        EncodedModel clones the estimator (unfitted), keeps the fitted
        encoder and ``fill``, and pins ``columns`` to the raw columns the
        fitted estimator took, so the clone can be refitted on encoded rows
        (as cross-validation does) and sees the same columns.
    encoder : Encoder
        The fitted encoder whose encoded rows ``Z`` the model will receive.
    columns : sequence of str, optional
        The raw columns the estimator takes, in order. Default: the
        estimator's ``feature_names_in_`` (set by scikit-learn when it was
        fitted on a DataFrame), else the encoder's feature names.
    fill : mapping or DataFrame, optional
        Values of columns the estimator takes but no FeatureSpec describes
        (an identifier, a sampling weight such as Adult's ``fnlwgt``): a
        mapping column -> one value used for every row (a finite number or a
        text label; None, NaN and inf are refused), or a reference frame
        from which each such column takes its median (numbers) or its most
        frequent value (anything else). Without it such columns are an error:
        a recourse method cannot move a column it does not know, so describe
        it with a FeatureSpec (``actionability="immutable"`` if it may not
        change) or give its value here. An estimator that is not fitted yet
        takes the encoder's features and the columns of a ``fill`` mapping.

    Notes
    -----
    Encoded rows ``Z`` may be an array (columns by position, as
    ``encoder.transform`` returns them) or a DataFrame, which is read by
    column *name*: its columns must be the encoder's ``feature_names_out_``
    (in any order), else ValueError. ``predict_proba`` returns the
    estimator's columns in the order of ``classes_``; the package's functions
    that take a model pick the favourable class's column by its label
    (``favourable=``, default 1), never by position.

    Attributes
    ----------
    estimator_ : classifier
        The fitted clone, after :meth:`fit` (absent for a prefit estimator).

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.compose import make_column_transformer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import OneHotEncoder
    >>> from recourselab.features import Encoder, FeatureSpec
    >>> frame = pd.DataFrame({"income": [1.0, 2.0, 3.0, 4.0], "job": ["a", "b", "a", "b"]})
    >>> pipe = make_pipeline(make_column_transformer((OneHotEncoder(), ["job"]), remainder="passthrough"),
    ...                      LogisticRegression()).fit(frame, [0, 0, 1, 1])
    >>> encoder = Encoder([FeatureSpec("income", "continuous", "increase"),
    ...                    FeatureSpec("job", "categorical")]).fit(frame)
    >>> model = EncodedModel(pipe, encoder)
    >>> Z = encoder.transform(frame)
    >>> Z.shape, pipe.n_features_in_                  # 3 encoded columns, 2 raw ones
    ((4, 3), 2)
    >>> bool((model.predict_proba(Z) == pipe.predict_proba(frame)).all())
    True
    """

    def __init__(self, estimator, encoder, *, columns=None, fill=None):
        self.estimator = estimator
        self.encoder = encoder
        self.columns = columns
        self.fill = fill

    # ------------------------------------------------------------------ set-up
    def _model(self):
        """The estimator that scores rows: the fitted clone, else the estimator given (prefit)."""
        if hasattr(self, "estimator_"):
            return self.estimator_
        if not _fitted(self.estimator):
            raise NotFittedError(
                f"the {type(self.estimator).__name__} inside this EncodedModel is not fitted; fit it on the raw "
                "frame first (then it is used as is), or call EncodedModel.fit(Z, y) to fit a clone on decoded rows."
            )
        return self.estimator

    def _layout(self, estimator) -> tuple[list, dict]:
        """The raw columns in the estimator's order and the constant columns filled in (validated)."""
        encoder = check_encoder(self.encoder)
        if self.columns is not None:
            if isinstance(self.columns, str):
                raise TypeError(f"columns={self.columns!r} must be a list of column names, not one string.")
            columns = list(self.columns)
        elif hasattr(estimator, "feature_names_in_"):
            columns = [str(c) for c in estimator.feature_names_in_]
        else:  # not fitted yet: it will take the encoder's features and the columns a fill mapping gives
            extra = [c for c in self.fill if c not in encoder.feature_names] if isinstance(self.fill, Mapping) else []
            columns = list(encoder.feature_names) + extra
        if len(set(columns)) != len(columns):
            raise ValueError(f"columns lists a name more than once: {columns}.")
        described = set(encoder.feature_names)
        extra = [c for c in columns if c not in described]
        fill = self._fill_values(extra)
        missing = [c for c in extra if c not in fill]
        if missing:
            raise ValueError(
                f"the {type(estimator).__name__} takes the column(s) {missing}, which no FeatureSpec of the encoder "
                f"describes (it describes {encoder.feature_names}). Describe each with a FeatureSpec (actionability "
                "'immutable' if it may not change) and refit the encoder, or give its value with "
                "EncodedModel(..., fill={column: value}) or fill=<a reference frame>."
            )
        return columns, fill

    def _fill_values(self, extra: list) -> dict:
        """The value of each column in ``extra`` (those no FeatureSpec describes), from ``fill``, validated."""
        if self.fill is None:
            return {}
        if isinstance(self.fill, pd.DataFrame):
            absent = [c for c in extra if c not in self.fill.columns]
            if absent:
                raise ValueError(f"fill is a reference frame without the column(s) {absent} the estimator takes; "
                                 f"its columns are {list(self.fill.columns)}.")
            return {c: _check_fill_value(_typical(self.fill[c], c), f"the fill frame's typical {c!r}") for c in extra}
        if not isinstance(self.fill, Mapping):
            raise TypeError(f"fill must be a mapping column -> value or a reference DataFrame, got "
                            f"{type(self.fill).__name__}.")
        unused = [c for c in self.fill if c not in extra]
        if unused:
            raise ValueError(f"fill gives values for {unused}, which the estimator does not take or a FeatureSpec "
                             f"already describes; the columns needing a value are {extra}.")
        return {c: _check_fill_value(value, f"fill[{c!r}]") for c, value in self.fill.items()}

    def decode(self, Z) -> pd.DataFrame:
        """The raw frame the estimator sees for encoded rows ``Z`` (columns in the estimator's order).

        Parameters
        ----------
        Z : array of shape (n, n_columns) or (n_columns,), or DataFrame
            Encoded rows (a DataFrame is read by column name, see Notes).

        Returns
        -------
        pandas.DataFrame
        """
        return self._decode(Z, self._model())[0]

    def _decode(self, Z, estimator) -> tuple[pd.DataFrame, dict]:
        """The raw frame for encoded rows ``Z`` and the filled-in values."""
        encoder = check_encoder(self.encoder)
        columns, fill = self._layout(estimator)
        frame = encoder.inverse_transform(_encoded_rows(Z, encoder))
        for column, value in fill.items():
            frame[column] = value
        return frame[columns], fill

    def _score(self, method: str, Z) -> np.ndarray:
        """``estimator.<method>`` on the decoded rows of ``Z``; a failure caused by a text fill value says so."""
        estimator = self._model()
        frame, fill = self._decode(Z, estimator)
        try:
            return np.asarray(getattr(estimator, method)(frame))
        except (TypeError, ValueError) as err:
            text = {c: v for c, v in fill.items() if isinstance(v, str) and isinstance(self.fill, Mapping)}
            if not text:
                raise
            raise TypeError(f"the {type(estimator).__name__} could not score the decoded rows, and fill gives text "
                            f"{text}: it may need a number there; give fill a value like the ones it was fitted "
                            f"on ({type(err).__name__}: {err}).") from err

    # ------------------------------------------------------------------ scikit-learn interface
    def fit(self, Z, y, **fit_params) -> "EncodedModel":
        """Fit a clone of ``estimator`` on the decoded rows of ``Z`` and labels ``y``.

        Parameters
        ----------
        Z : array of shape (n, n_columns)
            Encoded rows.
        y : array of shape (n,)
        **fit_params
            Passed to the estimator's ``fit``.

        Returns
        -------
        EncodedModel
            ``self``.
        """
        if not hasattr(self.estimator, "fit"):
            raise TypeError(f"estimator {type(self.estimator).__name__} has no fit(); give a scikit-learn estimator.")
        estimator = clone(self.estimator)
        if self.columns is None and not hasattr(self.estimator, "feature_names_in_"):
            columns_from = estimator  # unfitted: columns default to the encoder's features
        else:
            columns_from = self.estimator
        check_aligned(Z, "Z", y=y)
        frame = self._decode(Z, columns_from)[0]
        y = check_labels(y, "y", len(frame))
        y = np.asarray(y.tolist())  # the labels' own dtype back (check_labels returns objects)
        self.estimator_ = estimator.fit(frame, y, **fit_params)
        return self

    def __sklearn_clone__(self) -> "EncodedModel":
        # scikit-learn's clone would also clone the encoder into an unfitted one; the encoder defines the
        # rows the model receives (like a column list), so the clone keeps it and only the estimator is renewed.
        columns = self.columns
        if columns is None:  # pin the raw columns the fitted estimator took (its clone will not know them)
            fitted = getattr(self, "estimator_", self.estimator)
            names = getattr(fitted, "feature_names_in_", None)
            columns = None if names is None else [str(c) for c in names]
        return type(self)(clone(self.estimator), self.encoder, columns=columns, fill=self.fill)

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "estimator_") or _fitted(self.estimator)

    @property
    def classes_(self) -> np.ndarray:
        """The estimator's class labels (the columns of :meth:`predict_proba`)."""
        return self._model().classes_

    @property
    def n_features_in_(self) -> int:
        """Number of encoded columns the model takes (the encoder's)."""
        return check_encoder(self.encoder).n_columns

    def predict_proba(self, Z) -> np.ndarray:
        """Class probabilities of encoded rows ``Z``: the estimator's ``predict_proba`` on the decoded frame.

        Parameters
        ----------
        Z : array of shape (n, n_columns), or DataFrame (read by column name)

        Returns
        -------
        ndarray of shape (n, n_classes)
            Columns in the order of ``classes_``.
        """
        estimator = self._model()
        if not hasattr(estimator, "predict_proba"):
            raise TypeError(
                f"estimator {type(estimator).__name__} has no predict_proba; the package's methods need "
                "probabilities: wrap a probabilistic classifier (or sklearn.calibration.CalibratedClassifierCV "
                "around this one)."
            )
        return self._score("predict_proba", Z)

    def predict(self, Z) -> np.ndarray:
        """Predicted labels of encoded rows ``Z``: the estimator's ``predict`` on the decoded frame.

        Parameters
        ----------
        Z : array of shape (n, n_columns)

        Returns
        -------
        ndarray of shape (n,)
        """
        return self._score("predict", Z)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, Z) -> np.ndarray:
        """The estimator's ``decision_function`` (logit for binary models) on the decoded rows of ``Z``.

        Parameters
        ----------
        Z : array of shape (n, n_columns)

        Returns
        -------
        ndarray
        """
        return self._score("decision_function", Z)


def check_model(model, encoder: Encoder, name: str = "model", *, favourable=1):
    """``model`` if it scores the encoder's rows ``Z``; a clear error (and the fix) otherwise.

    A model fitted on the raw frame (a ``Pipeline`` with its own column
    transformer) expects the raw columns, not the encoded ones; wrap it in
    :class:`EncodedModel`. An :class:`EncodedModel` must wrap an encoder with
    the same encoded columns as ``encoder``.

    Parameters
    ----------
    model : classifier with ``predict_proba``
    encoder : Encoder
        The fitted encoder of the rows the model will receive.
    name : str, default "model"
        The argument's name, used in error messages.
    favourable : label, default 1
        The class that counts as the favourable outcome: a fitted model whose
        ``classes_`` do not include it is refused (ValueError listing them;
        pass e.g. ``favourable=0`` when 1 means default or reoffending).

    Returns
    -------
    object
        ``model`` itself.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.compose import make_column_transformer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import OneHotEncoder
    >>> from recourselab.features import Encoder, FeatureSpec
    >>> frame = pd.DataFrame({"income": [1.0, 2.0, 3.0, 4.0], "job": ["a", "b", "a", "b"]})
    >>> encoder = Encoder([FeatureSpec("income", "continuous"), FeatureSpec("job", "categorical")]).fit(frame)
    >>> pipe = make_pipeline(make_column_transformer((OneHotEncoder(), ["job"]), remainder="passthrough"),
    ...                      LogisticRegression()).fit(frame, [0, 0, 1, 1])      # fitted on the raw frame
    >>> check_model(pipe, encoder)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: model Pipeline was fitted on a DataFrame with columns ['income', 'job']...
    """
    check_encoder(encoder)
    favourable_column(model, favourable, name)  # a probabilistic model that knows the favourable class
    if isinstance(model, EncodedModel):
        inner = check_encoder(model.encoder, f"{name}.encoder")
        if list(inner.feature_names_out_) != list(encoder.feature_names_out_):
            raise ValueError(
                f"{name} wraps an encoder with {inner.n_columns} encoded columns {inner.feature_names_out_[:4]}..., "
                f"but the rows come from an encoder with {encoder.n_columns} {encoder.feature_names_out_[:4]}...; "
                "wrap the model with the same encoder that encodes the rows."
            )
        return model
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        names = [str(c) for c in names]
        if names != list(encoder.feature_names_out_):
            raise TypeError(
                f"{name} {type(model).__name__} was fitted on a DataFrame with columns {names[:12]}"
                f"{' ...' if len(names) > 12 else ''}, not on the encoder's {encoder.n_columns} encoded columns; "
                f"wrap it: recourselab.adapters.EncodedModel({name}, encoder) decodes the encoded rows for it."
            )
        return model
    n_in = getattr(model, "n_features_in_", None)
    if n_in is not None and int(n_in) != encoder.n_columns:
        raise TypeError(
            f"{name} {type(model).__name__} takes {int(n_in)} features but the encoder has {encoder.n_columns} "
            "encoded columns; if the model was fitted on raw columns, wrap it: "
            f"recourselab.adapters.EncodedModel({name}, encoder)."
        )
    return model


def _encoded_rows(Z, encoder: Encoder) -> np.ndarray:
    """Encoded rows as a float array: a DataFrame (or a named Series, one row) aligned by column name."""
    if isinstance(Z, pd.Series) and not isinstance(Z.index, pd.RangeIndex):
        Z = Z.to_frame().T
    if isinstance(Z, pd.DataFrame):
        given = {str(c) for c in Z.columns}
        if set(encoder.feature_names) <= given and given != set(encoder.feature_names_out_):
            raise ValueError(f"Z has the raw columns {encoder.feature_names[:6]}..., not the encoder's encoded ones; "
                             "EncodedModel takes encoded rows: pass encoder.transform(frame) (or call the estimator "
                             "on the raw frame).")
        Z = check_columns(Z, encoder.feature_names_out_, "Z")
    Z = check_encoded(Z, "Z", encoder.n_columns)
    if len(Z) == 0:
        raise ValueError("Z has no rows; give at least one encoded row.")
    return Z


def _typical(column: pd.Series, name) -> object:
    """A reference column's median (numbers, rounded for integers) or most frequent value (anything else)."""
    values = column.dropna()
    if values.empty:
        raise ValueError(f"column {name!r} of the fill frame has no values; give a value with fill={{...}}.")
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        value = values.median()
        return int(round(value)) if pd.api.types.is_integer_dtype(values) else value
    return values.mode().iloc[0]


def _check_fill_value(value, name: str):
    """One fill value: a finite number (bools included) or a text label; never None, NaN, inf or a container."""
    value = plain(value)
    if isinstance(value, str) or isinstance(value, (bool, np.bool_)):
        return value
    if value is None or not isinstance(value, numbers.Number):
        raise TypeError(f"{name}={value!r} must be one value for every row (a number or a text label), not "
                        f"{type(value).__name__}.")
    if isinstance(value, numbers.Real) and not math.isfinite(value):
        raise ValueError(f"{name}={value!r} must be a finite number (the estimator would meet it in every row).")
    return value


def _continuous_probes(encoder: Encoder, name: str) -> np.ndarray:
    """A continuous feature's ends and middle in raw units."""
    lo, hi = encoder.ranges_[name]
    raw = np.array([lo, (lo + hi) / 2, hi])
    if pd.api.types.is_integer_dtype(encoder.dtypes_[name]):
        raw = np.round(raw)
    return np.unique(raw)


def _probe_rows(encoder: Encoder, Z: np.ndarray, rng: np.random.Generator, n_base: int):
    """Valid encoded rows that move every feature through its values, one feature at a time.

    Each of ``n_base`` observed rows is copied once per value of each feature: every level of an
    ordinal, binary or categorical feature, and for a continuous one its two ends and its middle
    (rounded to a whole unit for an integer column, so that decoding leaves the value as it is).
    Returns the rows and, per feature, the range of rows that move it.
    """
    base = Z[rng.choice(len(Z), min(n_base, len(Z)), replace=False)]
    probes, where, start = [base], {}, len(base)
    for s in encoder.specs_:
        sl = encoder.slices_[s.name]
        if s.kind == "continuous":
            lo, hi = encoder.ranges_[s.name]
            values = [np.array([(v - lo) / ((hi - lo) or 1.0)]) for v in _continuous_probes(encoder, s.name)]
        elif s.kind == "categorical":
            values = list(np.eye(sl.stop - sl.start))
        else:
            n_levels = len(encoder.levels_[s.name])
            values = [np.array([k / max(n_levels - 1, 1)]) for k in range(n_levels)]
        for value in values:
            moved = base.copy()
            moved[:, sl] = value
            probes.append(moved)
        where[s.name] = slice(start, start + len(values) * len(base))
        start = where[s.name].stop
    return np.vstack(probes), where


def _nonlinearity(scores: np.ndarray, n_base: int, encoder: Encoder, name: str) -> float:
    """How far one feature's probes are from "each base row's score plus one effect per value of the feature".

    ``scores`` come value by value, ``n_base`` rows each (see :func:`_probe_rows`). A feature the model
    reads affinely, without interactions, fits exactly: a common slope in its encoded value (one effect
    per level for a categorical feature, where any effects are affine in the one-hot columns).
    """
    n_values = len(scores) // n_base
    base = np.tile(np.eye(n_base), (n_values, 1))
    if encoder.spec(name).kind == "categorical":
        effect = np.repeat(np.eye(n_values)[:, 1:], n_base, axis=0)
    else:
        effect = np.repeat(np.arange(n_values, dtype=float), n_base)[:, None]  # levels (or ends and middle)
        if encoder.spec(name).kind == "continuous":
            effect = np.repeat(_continuous_probes(encoder, name), n_base)[:, None]
    design = np.column_stack([base, effect])
    fit = design @ np.linalg.lstsq(design, scores, rcond=None)[0]
    return float(np.abs(fit - scores).max())


def linear_in_encoded_space(model, encoder: Encoder, X: pd.DataFrame, *, favourable=1, n_base: int = 20,
                            atol: float = 1e-6, random_state: int = 0) -> tuple[np.ndarray, float]:
    """The coefficients of a linear raw-frame model in the encoder's columns: ``a . z + b``.

    A practitioner's logistic regression usually sits behind its own
    ``ColumnTransformer`` (scalers, one-hot encoders) on the raw frame, so its
    ``coef_`` are not in the package's encoded space, where
    :func:`~recourselab.counterfactuals.linear_recourse` needs them. When every
    step before the linear classifier is affine in each raw column (scaling,
    one-hot encoding of a categorical column, passing a number through), the
    model's decision function is affine in the encoded row ``z``:
    :math:`f(\\mathrm{decode}(z)) = a^\\top z + b`. This function finds
    :math:`(a, b)` by least squares on valid encoded rows that move each feature
    through its values (all levels of every ordinal and categorical feature,
    the ends and middle of every continuous one) and on the rows of ``X``, and
    checks the fit: if any row misses by more than ``atol`` (relative to the
    scale of the scores), the model is not linear in the encoded features and
    a ``ValueError`` says so, naming the feature whose moves the fit misses most.

    The favourable side is :math:`a^\\top z + b \\ge 0`. For a categorical
    feature the coefficients of its one-hot block are found up to a common
    constant (its columns sum to 1), which changes nothing on valid rows.

    Parameters
    ----------
    model : fitted binary classifier on the raw frame, with ``decision_function``
        (e.g. a ``Pipeline`` ending in ``LogisticRegression`` or ``LinearSVC``).
    encoder : Encoder
        Fitted; it must describe every column the model reads.
    X : DataFrame
        Raw rows (e.g. the ones to audit); part of the check.
    favourable : label, default 1
        The favourable class; if it is ``classes_[0]``, the signs are flipped.
    n_base : int, default 20
        Observed rows from which each feature is moved through its values.
    atol : float, default 1e-6
        Largest error allowed, relative to ``1 + max |f|``.
    random_state : int, default 0
        Which rows of ``X`` serve as bases.

    Returns
    -------
    coef : ndarray of shape (n_columns,)
    intercept : float

    Raises
    ------
    ValueError
        If the model is not affine in the encoded features (a tree ensemble, a
        spline, an ordinal column one-hot encoded by the pipeline, an
        interaction), naming the feature; use
        :func:`~recourselab.counterfactuals.recourse_for_refused` for such models.
    TypeError
        If the model has no ``decision_function``.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.compose import make_column_transformer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import OneHotEncoder, StandardScaler
    >>> from recourselab.features import Encoder, FeatureSpec
    >>> frame = pd.DataFrame({"income": [1.0, 2.0, 3.0, 4.0, 2.5, 3.5], "job": ["a", "b", "a", "b", "c", "c"]})
    >>> encoder = Encoder([FeatureSpec("income", "continuous"), FeatureSpec("job", "categorical")]).fit(frame)
    >>> pipe = make_pipeline(make_column_transformer((OneHotEncoder(), ["job"]), (StandardScaler(), ["income"])),
    ...                      LogisticRegression()).fit(frame, [0, 0, 1, 1, 0, 1])
    >>> a, b = linear_in_encoded_space(pipe, encoder, frame)
    >>> bool(abs((encoder.transform(frame) @ a + b) - pipe.decision_function(frame)).max() < 1e-9)
    True
    """
    check_encoder(encoder)
    if isinstance(model, EncodedModel):
        model = model.estimator
    if not hasattr(model, "decision_function"):
        raise TypeError(f"model {type(model).__name__} has no decision_function; linear_in_encoded_space needs a "
                        "linear classifier's score (e.g. a Pipeline ending in LogisticRegression). For any other "
                        "model use recourselab.counterfactuals.recourse_for_refused.")
    column = favourable_column(model, favourable)
    classes = np.asarray(model.classes_)
    if len(classes) != 2:
        raise ValueError(f"model has {len(classes)} classes {list(classes)}; linear_in_encoded_space needs a binary "
                         "classifier.")
    if not isinstance(X, pd.DataFrame) or len(X) == 0:
        raise TypeError("X must be a non-empty DataFrame of raw rows (the columns the model and encoder read).")
    n_base = int(n_base)
    if n_base < 1:
        raise ValueError(f"n_base={n_base}; give a positive number of base rows, e.g. 20.")
    rng = np.random.default_rng(check_seed(random_state, "random_state"))
    adapter = EncodedModel(model, encoder)
    Z = encoder.transform(X)
    probes, where = _probe_rows(encoder, Z, rng, n_base)
    rows = np.vstack([probes, Z])
    scores = np.asarray(adapter.decision_function(rows), dtype=float).ravel()
    if column == 0:
        scores = -scores
    design = np.column_stack([rows, np.ones(len(rows))])
    theta = np.linalg.lstsq(design, scores, rcond=None)[0]
    error = np.abs(design @ theta - scores)
    scale = 1.0 + np.abs(scores).max()
    if error.max() > atol * scale:
        n_b = min(n_base, len(Z))  # the base rows each feature's probes move
        worst = max(where, key=lambda name: _nonlinearity(scores[where[name]], n_b, encoder, name))
        raise ValueError(
            f"model {type(model).__name__} is not linear in the encoded features: the best affine fit misses its "
            f"decision function by up to {error.max():.3g} (scores up to {np.abs(scores).max():.3g}), most where "
            f"{worst!r} moves. linear_recourse needs a linear classifier behind steps that are affine in each "
            "column (scalers, one-hot encoding of categorical columns, numbers passed through; an ordinal column "
            "one-hot encoded by the pipeline, splines, interactions or trees are not). For any model use "
            "recourselab.counterfactuals.recourse_for_refused.")
    return theta[:-1], float(theta[-1])
