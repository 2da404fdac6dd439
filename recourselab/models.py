"""The few model helpers the chapters share: a seeded split, a fitted model, its scores.

Everything here works with any scikit-learn-style classifier (``fit``,
``predict_proba``, ``classes_``); the helpers only save the chapters from
repeating the same five lines and from picking the wrong probability column.

Seeds. ``random_state`` is None, a Python or numpy integer in ``[0, 2**32 - 1]``,
or a ``numpy.random.Generator`` (which is asked for one integer seed). A float
is rejected even when it is whole (``1.7`` would otherwise be truncated to 1
without a word; scikit-learn rejects ``2.0`` too).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from ._validation import check_bool, check_choice, check_number, check_seed, check_unit_interval, favourable_column
from .adapters import _encoded_rows
from .datasets import Dataset
from .features import Encoder

__all__ = [
    "split_dataset",
    "make_classifier",
    "favourable_proba",
    "TrainedModel",
    "train_model",
]

MODELS = ("logistic", "forest")


def split_dataset(dataset: Dataset, *, test_size: float = 0.3, random_state=0, stratify: bool = True):
    """Split a data set's frame into train and test frames (stratified on the target by default).

    Parameters
    ----------
    dataset : Dataset
    test_size : float, default 0.3
        Share of the rows in the test frame.
    random_state : None, int or numpy.random.Generator, default 0
        Seeds the shuffle, so the same seed gives the same split (see the module notes on seeds).
    stratify : bool, default True
        Keep the target's proportions in both frames.

    Returns
    -------
    train, test : pandas.DataFrame
        Row subsets of ``dataset.frame`` with their original index.
    """
    _check_dataset(dataset)
    test_size = _check_share(test_size, "test_size")
    stratify = check_bool(stratify, "stratify")
    frame = dataset.frame
    labels = frame[dataset.target] if stratify else None
    return train_test_split(frame, test_size=test_size, random_state=_as_seed(random_state), stratify=labels)


def make_classifier(model: str = "logistic", *, random_state=0, **params):
    """A new scikit-learn classifier: ``"logistic"`` (LogisticRegression) or ``"forest"`` (RandomForest).

    ``params`` override the defaults (``max_iter=1000`` for the logistic
    regression; ``n_estimators=200, min_samples_leaf=5`` for the forest);
    ``random_state`` (None, an int seed or a numpy Generator, which gives one
    int seed) is passed to the estimator (the forest's bootstrap and feature
    sampling; the logistic regression's solver where it is random).
    """
    random_state = _as_seed(random_state)
    check_choice(model, "model", MODELS)
    if model == "logistic":
        return LogisticRegression(**{"max_iter": 1000, "random_state": random_state, **params})
    defaults = {"n_estimators": 200, "min_samples_leaf": 5, "random_state": random_state, "n_jobs": 1}
    return RandomForestClassifier(**{**defaults, **params})


def favourable_proba(model, Z, *, favourable=1) -> np.ndarray:
    """Probability of the favourable class, whatever the column order of ``predict_proba``.

    Parameters
    ----------
    model : fitted classifier with ``predict_proba`` and ``classes_``
    Z : array-like
        Rows to score, as the model expects them.
    favourable : label, default 1
        The class that counts as the favourable outcome (e.g. ``favourable=0`` when 1 means default
        or reoffending). A model whose ``classes_`` do not include it is refused.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> model = LogisticRegression().fit([[0.0], [1.0], [2.0], [3.0]], ["bad", "bad", "good", "good"])
    >>> bool(favourable_proba(model, [[3.0]], favourable="good")[0] > 0.5)
    True
    """
    column = favourable_column(model, favourable)
    return np.asarray(model.predict_proba(Z))[:, column]


@dataclass(frozen=True)
class TrainedModel:
    """One split, one encoder, one fitted model: what a chapter audits.

    Attributes
    ----------
    dataset : Dataset
    encoder : Encoder
        Fitted on the whole data set's frame (see :func:`train_model`).
    model : classifier
        Fitted on ``encoder.transform(train)``.
    train, test : pandas.DataFrame
        The split frames (original index kept).
    Z_train, Z_test : ndarray
        Encoded features of ``train`` and ``test``.
    threshold : float
        Probability at or above which the decision is favourable, strictly
        between 0 and 1.
    """

    dataset: Dataset
    encoder: Encoder
    model: object
    train: pd.DataFrame
    test: pd.DataFrame
    Z_train: np.ndarray
    Z_test: np.ndarray
    threshold: float = 0.5

    def __post_init__(self):
        object.__setattr__(self, "threshold", _check_share(self.threshold, "threshold"))

    @property
    def y_train(self) -> np.ndarray:
        return self.train[self.dataset.target].to_numpy()

    @property
    def y_test(self) -> np.ndarray:
        return self.test[self.dataset.target].to_numpy()

    def proba(self, Z) -> np.ndarray:
        """Probability of the favourable outcome (label 1) for encoded rows ``Z`` (array, or frame read by name)."""
        return favourable_proba(self.model, _encoded_rows(Z, self.encoder))

    def decide(self, Z) -> np.ndarray:
        """The model's decision for encoded rows ``Z``: True = favourable."""
        return self.proba(Z) >= self.threshold

    def to_frame(self) -> pd.DataFrame:
        """Accuracy and favourable-decision rate on train and test."""
        rows = []
        for name, Z, y in (("train", self.Z_train, self.y_train), ("test", self.Z_test, self.y_test)):
            decision = self.decide(Z)
            rows.append({"split": name, "rows": len(y), "accuracy": float(np.mean(decision == (y == 1))),
                         "favourable rate": float(decision.mean()), "true favourable rate": float(np.mean(y == 1))})
        return pd.DataFrame(rows).set_index("split")


def train_model(dataset: Dataset, *, model="logistic", test_size: float = 0.3, random_state=0,
                stratify: bool = True, threshold: float = 0.5) -> TrainedModel:
    """Split ``dataset``, encode it, and fit a classifier on the training rows.

    The encoder is fitted on the whole frame: min-max ranges and category levels
    describe the data's schema and use no labels, and this way test rows are in
    [0, 1] too and no category is unknown at transform time.

    Parameters
    ----------
    dataset : Dataset
    model : {"logistic", "forest"} or a scikit-learn classifier
        A classifier is cloned before fitting, so the object passed in is not changed.
    test_size : float, default 0.3
    random_state : None, int or numpy.random.Generator, default 0
        Seeds the split and the model.
    stratify : bool, default True
        Keep the target's class shares equal in train and test (scikit-learn's
        ``train_test_split`` does not by default; pass False to mirror a paper
        that used the default).
    threshold : float, default 0.5
        Decision threshold on the favourable-class probability.

    Examples
    --------
    >>> from recourselab.datasets import load_german_credit
    >>> trained = train_model(load_german_credit(), random_state=0)
    >>> trained.Z_test.shape
    (300, 34)
    """
    _check_dataset(dataset)
    threshold = _check_share(threshold, "threshold")
    seed = _as_seed(random_state)
    classifier = _new_classifier(model, seed)
    train, test = split_dataset(dataset, test_size=test_size, random_state=seed, stratify=stratify)
    # Ranges and category levels are the data's schema, not something learned from labels:
    # fitting them on all rows keeps every row in [0, 1] and every category known.
    encoder = dataset.encoder().fit(dataset.frame)
    Z_train, Z_test = encoder.transform(train), encoder.transform(test)
    classifier.fit(Z_train, train[dataset.target].to_numpy())
    return TrainedModel(dataset, encoder, classifier, train, test, Z_train, Z_test, threshold)


def _new_classifier(model, seed):
    """An unfitted classifier: :func:`make_classifier` for a name, a clone of an estimator with ``fit``.

    A clone is fitted, so the caller's estimator is left untouched (shared with :mod:`recourselab.audit`).
    """
    if isinstance(model, str):
        return make_classifier(model, random_state=seed)
    if not hasattr(model, "fit"):
        raise TypeError(f"model={model!r} must be a name in {MODELS} or a scikit-learn classifier with fit().")
    return clone(model)


def _check_dataset(dataset) -> Dataset:
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a recourselab Dataset, got {type(dataset).__name__}; load one with "
                        "recourselab.datasets (or build a Dataset around your frame).")
    return dataset


def _check_share(value, name: str) -> float:
    """A number strictly between 0 and 1 (a share of rows, a probability threshold)."""
    return check_unit_interval(check_number(value, name), name, open_interval=True)


def _as_seed(random_state, name: str = "random_state") -> int | None:
    """An int seed for scikit-learn: None stays None (fresh randomness), anything else goes through ``check_seed``.

    Floats are rejected, not truncated: ``int(1.7)`` would silently give the seed 1.
    """
    return None if random_state is None else check_seed(random_state, name)
