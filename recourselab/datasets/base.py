"""The :class:`Dataset` container every loader returns, and the helpers the loaders share."""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from importlib import resources

import pandas as pd

from ..features import Encoder, FeatureSpec, features_to_frame

__all__ = ["Dataset"]


@dataclass(frozen=True)
class Dataset:
    """A tabular data set with its target, protected attributes and feature specs.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per individual, human-readable values; holds every feature
        column and the target column.
    target : str
        Name of the target column; 1 = favourable outcome, 0 = unfavourable.
    protected : str or tuple of str
        Protected attribute columns (e.g. ``("sex",)``); a single string names
        one column (``"sex"`` is ``("sex",)``, never the letters of the name).
        They may not have missing values.
    features : tuple of FeatureSpec
        One spec per feature column (the columns a model and a recourse method
        see). A spec for the target column is an error (a model would see the
        label).
    description : str
        What the data is and what was done to the raw file.
    citation : str
        BibTeX key(s) of the data's source in ``book/references.bib``.

    Examples
    --------
    >>> from recourselab.datasets import load_german_credit
    >>> data = load_german_credit()
    >>> data.frame.shape, data.target
    ((1000, 22), 'good_credit')
    >>> data.X.shape, int(data.y.sum())
    ((1000, 21), 700)
    """

    frame: pd.DataFrame
    target: str
    protected: tuple
    features: tuple
    description: str = ""
    citation: str = ""

    def __post_init__(self):
        if not isinstance(self.frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame, got {type(self.frame).__name__}.")
        object.__setattr__(self, "protected", _column_names(self.protected, "protected"))
        features = (self.features,) if isinstance(self.features, FeatureSpec) else self.features
        if isinstance(features, (str, bytes)) or not hasattr(features, "__iter__"):
            raise TypeError(f"features must be a sequence of FeatureSpec, got {type(features).__name__}.")
        object.__setattr__(self, "features", tuple(features))
        not_specs = [type(f).__name__ for f in self.features if not isinstance(f, FeatureSpec)]
        if not_specs:
            raise TypeError(f"features must be FeatureSpec objects, got {not_specs[:3]}; describe each feature "
                            "column with recourselab.features.FeatureSpec(name, kind, ...).")
        columns = list(self.frame.columns)
        if self.target not in columns:
            raise ValueError(f"target={self.target!r} is not a column of frame; columns are {columns}.")
        target = self.frame[self.target]
        if target.isna().any():
            rows = list(target.index[target.isna()][:5])
            raise ValueError(f"target column {self.target!r} has {int(target.isna().sum())} missing value(s) (first "
                             f"rows: {rows}); every row needs a 0/1 outcome: drop or label those rows.")
        values = set(pd.unique(target).tolist())
        if not all(not isinstance(v, str) and v in (0, 1) for v in values):
            raise ValueError(
                f"target column {self.target!r} must hold 0/1 (1 = favourable), found {sorted(values, key=repr)[:6]}."
            )
        names = self.feature_names
        duplicated = sorted({n for n in names if names.count(n) > 1}, key=str)
        if duplicated:
            raise ValueError(f"features describe the columns {duplicated} more than once; give one FeatureSpec "
                             "per column.")
        if self.target in names:
            raise ValueError(
                f"features include the target column {self.target!r}: a model or a recourse method would see the "
                "label it is meant to predict. Drop that FeatureSpec."
            )
        missing = [n for n in names if n not in columns]
        if missing:
            raise ValueError(f"features name columns that frame lacks: {missing}.")
        bad = [p for p in self.protected if p not in columns]
        if bad:
            raise ValueError(f"protected names columns that frame lacks: {bad}.")
        if self.target in self.protected:
            raise ValueError(f"protected includes the target column {self.target!r}; name the protected "
                             "attributes (e.g. 'sex'), not the outcome.")
        for p in self.protected:
            absent = self.frame[p].isna()
            if absent.any():
                rows = list(self.frame.index[absent][:5])
                raise ValueError(
                    f"protected column {p!r} has {int(absent.sum())} missing value(s) (first rows: {rows}); every "
                    "individual needs a group, or group comparisons would silently leave them out. Label them "
                    "(e.g. 'unknown') or drop those rows."
                )

    @property
    def feature_names(self) -> list[str]:
        """Names of the feature columns, in spec order."""
        return [s.name for s in self.features]

    @property
    def X(self) -> pd.DataFrame:
        """The feature columns (a copy)."""
        return self.frame[self.feature_names].copy()

    @property
    def y(self) -> pd.Series:
        """The target column (1 = favourable)."""
        return self.frame[self.target].copy()

    def spec(self, name: str) -> FeatureSpec:
        """The FeatureSpec of feature ``name``."""
        for s in self.features:
            if s.name == name:
                return s
        raise KeyError(f"no feature called {name!r}; features are {self.feature_names}.")

    def encoder(self) -> Encoder:
        """A new, unfitted :class:`~recourselab.features.Encoder` for this data set's features.

        The frame's other columns (the target, protected attributes that are not
        features) are passed as ``ignore``, so fitting on ``frame`` does not warn.
        """
        described = set(self.feature_names)
        return Encoder(list(self.features), ignore=tuple(c for c in self.frame.columns if c not in described))

    def feature_table(self) -> pd.DataFrame:
        """The feature specs as a table (see :func:`~recourselab.features.features_to_frame`)."""
        return features_to_frame(self.features)



def _column_names(names, argument: str) -> tuple:
    """Column names as a tuple; one string is one column (``tuple("xg")`` would be ``("x", "g")``)."""
    if isinstance(names, str):
        return (names,)
    if names is None or not hasattr(names, "__iter__"):
        raise TypeError(f"{argument}={names!r} must be a column name or a sequence of column names.")
    return tuple(names)


def _read_gzip(name: str, **read_csv_kwargs) -> pd.DataFrame:
    with resources.files("recourselab").joinpath("data", name).open("rb") as raw:
        with gzip.open(raw, "rt", encoding="ascii") as text:
            return pd.read_csv(text, header=None, **read_csv_kwargs)

