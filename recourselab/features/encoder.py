"""The Encoder: frames to [0, 1] columns and back, and the one model of feasible and actionable moves."""

from __future__ import annotations

import math
import warnings
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import NotFittedError

from .spec import _LEVEL_TOL, FeatureSpec

__all__ = ["check_encoded", "check_encoder", "Encoder"]

# Elements of the temporary difference array per chunk: small enough to stay in
# cache (measured fastest in benchmarks/features.py), large enough to vectorise.
_CHUNK_ELEMENTS = 40_000

def check_encoded(Z, name: str, n_columns: int) -> np.ndarray:
    """``Z`` as a 2-d float array of ``n_columns`` encoded columns, with no NaN or infinite value.

    Shared by every module that takes encoded rows; a single row may be given as a 1-d array.
    Raises ValueError naming ``name``, the shape, or the first bad column and row.
    """
    try:
        Z = np.asarray(Z, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be a numeric array of encoded rows: {err}") from None
    if Z.ndim == 1:
        Z = Z[None, :]
    if Z.ndim != 2 or Z.shape[1] != n_columns:
        raise ValueError(
            f"{name} has shape {np.shape(Z)}; expected (n_rows, {n_columns}) encoded columns "
            "(use Encoder.transform on a frame first)."
        )
    if Z.size and not np.isfinite(Z.sum()):  # a sum propagates NaN and inf: one fast pass
        bad = ~np.isfinite(Z)
        if bad.any():  # (a finite sum can overflow only for values near 1e308)
            row, column = (int(v) for v in np.argwhere(bad)[0])
            what = "missing values" if np.isnan(Z[row, column]) else "infinite values"
            raise ValueError(
                f"{name} has {what} (first in encoded column {column}, row {row}); "
                "encode complete, finite rows only."
            )
    return Z


def check_encoder(encoder, name: str = "encoder") -> "Encoder":
    """``encoder`` if it is a fitted :class:`Encoder`; TypeError or scikit-learn's NotFittedError otherwise."""
    if not isinstance(encoder, Encoder):
        raise TypeError(f"{name} must be a fitted recourselab Encoder, got {type(encoder).__name__}.")
    encoder._require_fitted()
    return encoder


class Encoder(TransformerMixin, BaseEstimator):
    """Encode a frame into [0, 1] columns and decide which moves are feasible.

    Parameters
    ----------
    features : sequence of FeatureSpec
        One spec per column to encode, in the order of the encoded blocks.
    ignore : sequence of str, default ()
        Columns of the frame that are deliberately not features (the target, an
        identifier). :meth:`fit` warns about any other column that no spec
        describes, so a feature left out by mistake does not go unnoticed;
        :meth:`Dataset.encoder <recourselab.datasets.Dataset.encoder>` passes the
        data set's non-feature columns here.

    Attributes
    ----------
    feature_names_out_ : list of str
        Encoded column names (``"name"`` or ``"name=category"``).
    levels_ : dict
        Levels of each ordinal, binary and categorical feature.
    ranges_ : dict
        ``(lower, upper)`` of each continuous feature used for scaling.
    slices_ : dict
        Encoded columns of each feature.

    Examples
    --------
    >>> import pandas as pd
    >>> specs = [FeatureSpec("age", "continuous", "increase"),
    ...          FeatureSpec("sex", "binary", "immutable", order=["female", "male"])]
    >>> frame = pd.DataFrame({"age": [20, 40, 60], "sex": ["female", "male", "male"]})
    >>> enc = Encoder(specs).fit(frame)
    >>> Z = enc.transform(frame)
    >>> Z.tolist()
    [[0.0, 0.0], [0.5, 1.0], [1.0, 1.0]]
    >>> enc.feasible(Z[[1, 1]], Z[[2, 0]]).tolist()   # older: yes; younger and other sex: no
    [True, False]
    """

    def __init__(self, features: Sequence[FeatureSpec], ignore: Sequence[str] = ()):
        self.features = features
        self.ignore = ignore

    # ------------------------------------------------------------------ setup
    def _validate_specs(self) -> list[FeatureSpec]:
        specs = list(self.features) if self.features is not None else []
        if not specs:
            raise ValueError("features is empty; give at least one FeatureSpec.")
        for s in specs:
            if not isinstance(s, FeatureSpec):
                raise TypeError(f"features must hold FeatureSpec objects, got {type(s).__name__}: {s!r}.")
        names = [s.name for s in specs]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"features lists these names more than once: {dup}.")
        return specs

    def _check_frame(self, frame, argument: str = "frame") -> pd.DataFrame:
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"{argument} must be a pandas DataFrame, got {type(frame).__name__}.")
        missing = [s.name for s in self.specs_ if s.name not in frame.columns]
        if missing:
            raise ValueError(
                f"{argument} has no column for the feature(s) {missing}; its columns are "
                f"{list(frame.columns)}. Rename the columns or fix the FeatureSpec names."
            )
        for s in self.specs_:
            n_missing = int(frame[s.name].isna().sum())
            if n_missing:
                rows = list(frame.index[frame[s.name].isna()][:5])
                raise ValueError(
                    f"column {s.name!r} of {argument} has {n_missing} missing value(s) "
                    f"(first rows: {rows}); impute or drop them before encoding."
                )
        return frame

    def fit(self, frame: pd.DataFrame, y=None) -> "Encoder":
        """Learn ranges and levels from ``frame`` (which is not modified).

        Warns when ``frame`` has columns that no spec describes and that are not
        listed in ``ignore``: they are not encoded, and a model or a recourse
        method will never see them.
        """
        self.specs_ = self._validate_specs()
        frame = self._check_frame(frame)
        if len(frame) == 0:
            raise ValueError(
                "frame has 0 rows; fit the Encoder on the data (ranges and levels are learned from it)."
            )
        ignore = [self.ignore] if isinstance(self.ignore, str) else list(self.ignore or ())
        described = {s.name for s in self.specs_}
        extra = [c for c in frame.columns if c not in described and c not in ignore]
        if extra:
            warnings.warn(
                f"frame has columns that no FeatureSpec describes and that are not in ignore: {extra[:10]}"
                f"{' ...' if len(extra) > 10 else ''}; they are not encoded. Add a FeatureSpec for each, pass "
                "frame[encoder feature names], or list them in Encoder(..., ignore=[...]).",
                stacklevel=2,
            )
        self.levels_, self.ranges_, self.dtypes_, self.slices_ = {}, {}, {}, {}
        names_out: list[str] = []
        for s in self.specs_:
            col = frame[s.name]
            self.dtypes_[s.name] = col.dtype
            start = len(names_out)
            if s.kind == "continuous":
                if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
                    raise ValueError(
                        f"column {s.name!r} is declared continuous but has dtype {col.dtype}; "
                        "declare it ordinal/categorical or convert it to numbers."
                    )
                self._check_finite(s, col, "frame")
                lo = float(col.min()) if s.lower is None else float(s.lower)
                hi = float(col.max()) if s.upper is None else float(s.upper)
                if col.min() < lo or col.max() > hi:
                    warnings.warn(
                        f"column {s.name!r} has values in [{col.min()}, {col.max()}], outside its declared "
                        f"range [{lo}, {hi}]; they will encode outside [0, 1]. Widen lower/upper in its FeatureSpec.",
                        stacklevel=2,
                    )
                self.ranges_[s.name] = (lo, hi)
                names_out.append(s.name)
            else:
                levels = self._levels_for(s, col)
                self._check_levels(s, col, levels, "frame")
                unknown = [level for level in s.never_advise_levels if level not in levels]
                if unknown:
                    raise ValueError(
                        f"never_advise_levels={s.never_advise_levels!r} for feature {s.name!r} names {unknown}, "
                        f"which are not among its levels {list(levels)[:12]}; check the spelling."
                    )
                self.levels_[s.name] = levels
                if s.kind == "categorical":
                    names_out.extend(f"{s.name}={level}" for level in levels)
                else:
                    names_out.append(s.name)
            self.slices_[s.name] = slice(start, len(names_out))
        self.feature_names_out_ = names_out
        self.n_features_in_ = len(self.specs_)
        self._build_constraint_index()
        return self

    def _levels_for(self, s: FeatureSpec, col: pd.Series) -> tuple:
        if s.order is not None:
            return s.order
        values = pd.unique(col)
        if s.kind == "ordinal" and not pd.api.types.is_numeric_dtype(col):
            raise ValueError(
                f"feature {s.name!r} is ordinal with non-numeric values {sorted(map(str, values))[:6]}; "
                "give order=[worst, ..., best] in its FeatureSpec."
            )
        try:
            levels = tuple(sorted(values.tolist()))
        except TypeError:
            levels = tuple(sorted(values.tolist(), key=str))
        if s.kind == "binary" and len(levels) > 2:
            raise ValueError(
                f"feature {s.name!r} is binary but has {len(levels)} values {list(levels)[:6]}; "
                "declare it categorical or ordinal."
            )
        if s.kind == "binary" and len(levels) == 1:
            raise ValueError(
                f"feature {s.name!r} is binary but the data has the single value {levels[0]!r}; "
                "give order=[first, second] in its FeatureSpec."
            )
        return levels

    @staticmethod
    def _check_finite(s: FeatureSpec, col: pd.Series, argument: str):
        values = col.to_numpy(dtype=float)
        bad = ~np.isfinite(values)
        if bad.any():
            rows = list(col.index[bad][:5])
            raise ValueError(
                f"column {s.name!r} of {argument} has {int(bad.sum())} infinite value(s) (first rows: {rows}); "
                "a continuous feature needs finite numbers: cap, impute or drop those rows before encoding."
            )

    @staticmethod
    def _check_levels(s: FeatureSpec, col: pd.Series, levels: tuple, argument: str):
        codes = pd.Index(levels).get_indexer(col.to_numpy())
        if (codes < 0).any():
            bad = pd.unique(col.to_numpy()[codes < 0])[:6].tolist()
            what = "categories" if s.kind == "categorical" else "order"
            raise ValueError(
                f"column {s.name!r} of {argument} has values {bad} that are not in its {what} "
                f"{list(levels)}; add them to the FeatureSpec's order or clean the data."
            )
        return codes

    def _build_constraint_index(self):
        imm, inc, dec = [], [], []
        # aggregation matrix: encoded column -> feature, 1 for single columns,
        # 1/2 for one-hot columns (a change of category moves two columns by 1).
        agg = np.zeros((len(self.feature_names_out_), len(self.specs_)))
        for f, s in enumerate(self.specs_):
            cols = list(range(self.slices_[s.name].start, self.slices_[s.name].stop))
            agg[cols, f] = 0.5 if s.kind == "categorical" else 1.0
            {"immutable": imm, "increase": inc, "decrease": dec}.get(s.actionability, []).extend(cols)
        # every constrained column with the direction its change may take:
        # immutable both bounds, increase only a lower one, decrease only an upper one
        self._constrained = np.array(imm + inc + dec, dtype=int)
        self._may_fall = np.array([False] * len(imm) + [False] * len(inc) + [True] * len(dec))
        self._may_rise = np.array([False] * len(imm) + [True] * len(inc) + [False] * len(dec))
        self._agg = agg
        self._column_feature = np.argmax(agg > 0, axis=1)
        self._build_advice_index()

    def _encoded_cap(self, s: FeatureSpec) -> float:
        """A spec's ``max_change`` in encoded units (inf when it has none)."""
        if s.max_change is None:
            return np.inf
        if s.kind == "ordinal":
            return s.max_change / max(len(self.levels_[s.name]) - 1, 1)
        lo, hi = self.ranges_[s.name]
        return s.max_change / ((hi - lo) or 1.0)

    def _build_advice_index(self):
        """Per encoded column, the change advice may make (encoded units), and which columns hold whole levels."""
        d = len(self.feature_names_out_)
        lo, hi = np.full(d, -np.inf), np.full(d, np.inf)
        for s in self.specs_:
            block = self.slices_[s.name]
            cap = self._encoded_cap(s)
            lo[block] = {"never": 0.0, "increase": 0.0}.get(s.advice_direction, -cap)
            hi[block] = {"never": 0.0, "decrease": 0.0}.get(s.advice_direction, cap)
        # levels never advised: advice may not raise their one-hot column (it may stay at 1, or leave it)
        never_cols, never_vals, never_half, never_feature = [], [], [], []
        for f, s in enumerate(self.specs_):
            levels = self.levels_.get(s.name, ())
            for level in s.never_advise_levels:
                code = levels.index(level)
                if s.kind == "categorical":
                    j, value, half = self.slices_[s.name].start + code, 1.0, 0.5
                    hi[j] = 0.0
                else:
                    step = 1.0 / max(len(levels) - 1, 1)
                    j, value, half = self.slices_[s.name].start, code * step, step / 2
                never_cols.append(j)
                never_vals.append(value)
                never_half.append(half)
                never_feature.append(f)
        self._never_cols = np.array(never_cols, dtype=int)
        self._never_vals, self._never_half = np.array(never_vals), np.array(never_half)
        self._never_feature = np.array(never_feature, dtype=int)
        self._advice_lo, self._advice_hi = lo, hi
        self._advice_cols = np.flatnonzero(np.isfinite(lo) | np.isfinite(hi))
        # whole levels: ordinal/binary columns count levels, integer continuous columns count raw units
        steps, offsets, grid = np.ones(d), np.zeros(d), np.zeros(d, dtype=bool)
        for s in self.specs_:
            j = self.slices_[s.name].start
            if s.kind in ("ordinal", "binary"):
                steps[j], grid[j] = 1.0 / max(len(self.levels_[s.name]) - 1, 1), True
            elif s.kind == "continuous" and pd.api.types.is_integer_dtype(self.dtypes_[s.name]):
                low, high = self.ranges_[s.name]
                steps[j], offsets[j], grid[j] = 1.0 / ((high - low) or 1.0), low, True
        self._grid_cols, self._grid_step, self._grid_offset = np.flatnonzero(grid), steps[grid], offsets[grid]
        self._grid_top = np.array([(len(self.levels_[self.specs_[self._column_feature[j]].name]) - 1)
                                   if self.specs_[self._column_feature[j]].kind != "continuous" else np.inf
                                   for j in self._grid_cols])
        self._blocks = [self.slices_[s.name] for s in self.specs_ if s.kind == "categorical"]

    def _require_fitted(self):
        if not hasattr(self, "feature_names_out_"):
            raise NotFittedError("This Encoder is not fitted yet; call fit(frame) first.")

    # --------------------------------------------------------------- encoding
    @property
    def n_columns(self) -> int:
        """Number of encoded columns."""
        self._require_fitted()
        return len(self.feature_names_out_)

    @property
    def feature_names(self) -> list[str]:
        """Names of the encoded features (one per FeatureSpec)."""
        self._require_fitted()
        return [s.name for s in self.specs_]

    def spec_of_column(self, column) -> FeatureSpec:
        """The FeatureSpec of an encoded column, given by name (``"purpose=car"``) or position."""
        self._require_fitted()
        if isinstance(column, (int, np.integer)) and not isinstance(column, bool):
            if not 0 <= int(column) < self.n_columns:
                raise ValueError(f"column={column} is not an encoded column position (0..{self.n_columns - 1}).")
            return self.specs_[int(self._column_feature[int(column)])]
        if column not in self.feature_names_out_:
            raise ValueError(f"column={column!r} is not an encoded column; they are {self.feature_names_out_[:6]}...")
        return self.specs_[int(self._column_feature[self.feature_names_out_.index(column)])]

    def column_weights(self, weights: Mapping[str, float] | None = None) -> np.ndarray:
        """Cost weight of each encoded column: its feature's weight (see :meth:`weight_vector`)."""
        return self.weight_vector(weights)[self._column_feature]

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Encoded column names (scikit-learn convention)."""
        self._require_fitted()
        return np.asarray(self.feature_names_out_, dtype=object)

    def spec(self, name: str) -> FeatureSpec:
        """The FeatureSpec called ``name``."""
        self._require_fitted()
        for s in self.specs_:
            if s.name == name:
                return s
        raise KeyError(f"no feature called {name!r}; features are {self.feature_names}.")

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        """Encode ``frame`` (its feature columns, in spec order) into a float array."""
        self._require_fitted()
        frame = self._check_frame(frame)
        Z = np.zeros((len(frame), self.n_columns))
        for s in self.specs_:
            col = frame[s.name]
            sl = self.slices_[s.name]
            if s.kind == "continuous":
                if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
                    raise ValueError(f"column {s.name!r} is continuous but has dtype {col.dtype}.")
                self._check_finite(s, col, "frame")
                lo, hi = self.ranges_[s.name]
                Z[:, sl.start] = (col.to_numpy(dtype=float) - lo) / ((hi - lo) or 1.0)
                continue
            levels = self.levels_[s.name]
            codes = self._check_levels(s, col, levels, "frame")
            if s.kind == "categorical":
                Z[np.arange(len(frame)), sl.start + codes] = 1.0
            else:
                Z[:, sl.start] = codes / max(len(levels) - 1, 1)
        return Z

    def inverse_transform(self, Z, index=None) -> pd.DataFrame:
        """Decode encoded rows back to readable values, snapping to valid levels.

        Continuous values are rescaled (and rounded for integer columns), ordinal
        values snap to the nearest level, binary values at 0.5, categorical
        blocks to their largest column.

        Parameters
        ----------
        Z : array or DataFrame of shape (n, n_columns)
            Encoded rows.
        index : index-like of length n, optional
            Index of the returned frame. Default: ``Z``'s own index when ``Z`` is
            a DataFrame (or Series, for one row), else ``0..n-1``.
        """
        self._require_fitted()
        if index is None and isinstance(Z, pd.DataFrame):
            index = Z.index
        elif index is None and isinstance(Z, pd.Series):
            index = pd.Index([Z.name])
        Z = check_encoded(Z, "Z", self.n_columns)
        if index is not None and len(index) != len(Z):
            raise ValueError(f"index has {len(index)} entries but Z has {len(Z)} rows; give one label per row.")
        out = {}
        for s in self.specs_:
            sl = self.slices_[s.name]
            dtype = self.dtypes_[s.name]
            if s.kind == "continuous":
                lo, hi = self.ranges_[s.name]
                values = Z[:, sl.start] * ((hi - lo) or 1.0) + lo
                if pd.api.types.is_integer_dtype(dtype):
                    values = np.round(values)
                out[s.name] = pd.Series(values).astype(dtype)
                continue
            levels = self.levels_[s.name]
            if s.kind == "categorical":
                codes = np.argmax(Z[:, sl], axis=1)
            else:
                codes = np.clip(np.rint(Z[:, sl.start] * (len(levels) - 1)), 0, len(levels) - 1).astype(int)
            level_array = np.empty(len(levels), dtype=object)
            level_array[:] = levels  # element-wise, so tuple-valued levels stay whole
            out[s.name] = pd.Series(level_array[codes]).astype(dtype)
        frame = pd.DataFrame(out)
        if index is not None:
            frame.index = index
        return frame

    # ------------------------------------------------------------ feasibility
    def feasible(self, Z_from, Z_to, *, atol: float = 1e-9) -> np.ndarray:
        """Row-wise: does the move ``Z_from[i] -> Z_to[i]`` respect every feature's actionability?

        Parameters
        ----------
        Z_from, Z_to : array of shape (n, n_columns) or (n_columns,)
            Encoded rows; both must have the same shape.
        atol : float
            Tolerance for "unchanged" and "not decreased", in encoded units
            (a fraction of the feature's range), so rounding noise is no move.

        Returns
        -------
        ndarray of bool, shape (n,)

        Notes
        -----
        Vectorised over rows and over the constrained columns; the cost is a few
        comparisons per constrained encoded column (a million German Credit pairs
        take well under a second, see ``benchmarks/features.py``).
        """
        self._require_fitted()
        Z_from = np.asarray(Z_from, dtype=float)
        Z_to = np.asarray(Z_to, dtype=float)
        if Z_from.shape != Z_to.shape:
            raise ValueError(
                f"Z_from has shape {Z_from.shape} but Z_to has shape {Z_to.shape}; feasible() "
                "compares rows pairwise, so give arrays of the same shape "
                "(use feasible_pairs() for all pairs of two sets)."
            )
        Z_from = check_encoded(Z_from, "Z_from", self.n_columns)
        Z_to = check_encoded(Z_to, "Z_to", self.n_columns)
        lower, upper = self._delta_bounds(atol)
        cols = self._constrained
        ok = np.ones(len(Z_from), dtype=bool)
        chunk = max(1, _CHUNK_ELEMENTS // max(cols.size, 1))
        for start in range(0, len(Z_from), chunk):
            block = slice(start, start + chunk)  # gather per chunk: the copy stays in cache
            ok[block] = self._within(Z_to[block, cols] - Z_from[block, cols], lower, upper)
        return ok

    def _delta_bounds(self, atol: float):
        """Allowed range of each constrained column's change, given the tolerance."""
        if not atol >= 0:
            raise ValueError(f"atol={atol!r} must be >= 0.")
        lower = np.where(self._may_fall, -np.inf, -atol)
        upper = np.where(self._may_rise, np.inf, atol)
        return lower, upper

    @staticmethod
    def _within(delta: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
        return ((delta >= lower) & (delta <= upper)).all(axis=-1)

    def feasible_pairs(self, Z_from, Z_to, *, atol: float = 1e-9) -> np.ndarray:
        """All pairs: ``out[i, j]`` says whether ``Z_from[i] -> Z_to[j]`` is feasible.

        Returns a boolean array of shape (len(Z_from), len(Z_to)), computed in
        chunks of rows so memory stays bounded.
        """
        self._require_fitted()
        A = check_encoded(Z_from, "Z_from", self.n_columns)[:, self._constrained]
        B = check_encoded(Z_to, "Z_to", self.n_columns)[:, self._constrained]
        lower, upper = self._delta_bounds(atol)
        out = np.empty((len(A), len(B)), dtype=bool)
        chunk = max(1, _CHUNK_ELEMENTS * 25 // max(len(B) * A.shape[1], 1))
        for start in range(0, len(A), chunk):
            block = slice(start, start + chunk)
            out[block] = self._within(B[None, :, :] - A[block, None, :], lower, upper)
        return out

    def violations(self, Z_from, Z_to) -> pd.DataFrame:
        """Which feature's constraint each move breaks (rows = moves, columns = features).

        Slower than :meth:`feasible` (one column per feature); meant for
        explaining *why* a move is infeasible.
        """
        self._require_fitted()
        A = check_encoded(Z_from, "Z_from", self.n_columns)
        B = check_encoded(Z_to, "Z_to", self.n_columns)
        if A.shape != B.shape:
            raise ValueError(f"Z_from has shape {A.shape} but Z_to has shape {B.shape}; give the same shape.")
        D = B - A
        out = {}
        for s in self.specs_:
            d = D[:, self.slices_[s.name]]
            if s.actionability == "immutable":
                out[s.name] = (np.abs(d) > 1e-9).any(axis=1)
            elif s.actionability == "increase":
                out[s.name] = (d < -1e-9).any(axis=1)
            elif s.actionability == "decrease":
                out[s.name] = (d > 1e-9).any(axis=1)
            else:
                out[s.name] = np.zeros(len(D), dtype=bool)
        return pd.DataFrame(out)

    # ------------------------------------------------------------------ advice
    def advice_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The change advice may make to each encoded column: ``(lower, upper)`` in encoded units.

        From each spec's ``advise`` direction and ``max_change`` (0 where advice may not move a column
        that way, ``±inf`` where there is no cap); the one-hot column of a category in a spec's
        ``never_advise_levels`` may not rise (upper bound 0), as advice may not move a person into it. An
        ordinal's never-advised levels are no box: :meth:`actionable` checks them. A target ``z'`` of a
        row ``z`` is within these bounds when ``lower <= z' - z <= upper`` column by column;
        :meth:`actionable` also asks for whole levels and feasibility.
        """
        self._require_fitted()
        return self._advice_lo.copy(), self._advice_hi.copy()

    def on_levels(self, Z) -> np.ndarray:
        """Row-wise: is every discrete value a whole level?

        Binary and ordinal columns must sit on one of their levels, each categorical block must be a
        valid one-hot row, and a continuous feature whose fitted column has an integer dtype (age in
        years, months, counts) must be a whole number of its units.
        """
        self._require_fitted()
        Z = check_encoded(Z, "Z", self.n_columns)
        ok = np.ones(len(Z), dtype=bool)
        if self._grid_cols.size:
            levels = Z[:, self._grid_cols] / self._grid_step + self._grid_offset
            ok &= (np.abs(levels - np.round(levels)) <= _LEVEL_TOL).all(axis=1)
            ordinal = np.isfinite(self._grid_top)
            scaled = Z[:, self._grid_cols[ordinal]] / self._grid_step[ordinal]
            ok &= ((scaled >= -_LEVEL_TOL) & (scaled <= self._grid_top[ordinal] + _LEVEL_TOL)).all(axis=1)
        for block in self._blocks:
            values = Z[:, block]
            binary = (np.abs(values) <= _LEVEL_TOL) | (np.abs(values - 1) <= _LEVEL_TOL)
            ok &= binary.all(axis=1) & (np.abs(values.sum(axis=1) - 1) <= _LEVEL_TOL)
        return ok

    def _within_advice(self, delta: np.ndarray, atol: float) -> np.ndarray:
        cols = self._advice_cols
        return self._within(delta[..., cols], self._advice_lo[cols] - atol, self._advice_hi[cols] + atol)

    def _at_never(self, Z: np.ndarray) -> np.ndarray:
        """Per row and never-advised level (``never_advise_levels``, all features): is the row at that level?

        "At" means nearest to it, as :meth:`inverse_transform` decodes: a one-hot column above 1/2, an ordinal
        value within half a level.
        """
        return np.abs(Z[:, self._never_cols] - self._never_vals) < self._never_half

    def _into_never(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """Per row and never-advised level: does the move ``A -> B`` land on it from another level?"""
        return self._at_never(B) & ~self._at_never(A)

    def never_advised_moves(self, Z_from, Z_to) -> np.ndarray:
        """Per move and feature: does ``Z_from[i] -> Z_to[i]`` put the feature into a level it never advises?

        Returns a boolean array of shape (n, n_features) (spec order): True where the move lands on one of
        the feature's ``never_advise_levels`` from another level. Staying at such a level, or leaving it, is
        not a move into it. :meth:`actionable` refuses every move with a True here.

        Examples
        --------
        >>> import pandas as pd
        >>> spec = FeatureSpec("job", "categorical", never_advise_levels=("Unknown",))
        >>> enc = Encoder([spec]).fit(pd.DataFrame({"job": ["clerk", "nurse", "Unknown"]}))
        >>> z = enc.transform(pd.DataFrame({"job": ["clerk", "Unknown", "Unknown"]}))
        >>> to = enc.transform(pd.DataFrame({"job": ["Unknown", "Unknown", "nurse"]}))
        >>> enc.never_advised_moves(z, to)[:, 0].tolist(), enc.actionable(z, to).tolist()   # into, stay, leave
        ([True, False, False], [False, True, True])
        """
        self._require_fitted()
        A = check_encoded(Z_from, "Z_from", self.n_columns)
        B = check_encoded(Z_to, "Z_to", self.n_columns)
        if A.shape != B.shape:
            raise ValueError(f"Z_from has shape {A.shape} but Z_to has shape {B.shape}; give the same shape.")
        out = np.zeros((len(A), len(self.specs_)), dtype=bool)
        if self._never_cols.size:
            into = self._into_never(A, B)
            for k, f in enumerate(self._never_feature):
                out[:, f] |= into[:, k]
        return out

    def actionable(self, Z_from, Z_to, *, atol: float = 1e-9) -> np.ndarray:
        """Row-wise: is the move ``Z_from[i] -> Z_to[i]`` advice a person could follow?

        A move is actionable when it is :meth:`feasible`, lands on whole levels (:meth:`on_levels`),
        moves every feature only in the direction its spec's ``advise`` allows, no further than
        its ``max_change``, and into none of its ``never_advise_levels`` (a person already at such a
        level may stay; see :meth:`never_advised_moves`). ``atol`` is the tolerance of :meth:`feasible`,
        in encoded units.

        Returns
        -------
        ndarray of bool, shape (n,)

        Examples
        --------
        >>> import pandas as pd
        >>> specs = [FeatureSpec("age", "continuous", "increase", advise="never"),
        ...          FeatureSpec("savings", "ordinal", "increase", order=[0, 1, 2, 3], max_change=1)]
        >>> frame = pd.DataFrame({"age": [20, 60], "savings": [0, 3]})
        >>> enc = Encoder(specs).fit(frame)
        >>> z = enc.transform(pd.DataFrame({"age": [30, 30, 30, 30], "savings": [0, 0, 0, 0]}))
        >>> to = enc.transform(pd.DataFrame({"age": [30, 32, 30, 30], "savings": [1, 0, 2, 0]}))
        >>> to[3, 1] = 0.5                      # half a level of savings
        >>> enc.feasible(z, to).tolist(), enc.actionable(z, to).tolist()
        ([True, True, True, True], [True, False, False, False])
        """
        ok = self.feasible(Z_from, Z_to, atol=atol)
        A = check_encoded(Z_from, "Z_from", self.n_columns)
        B = check_encoded(Z_to, "Z_to", self.n_columns)
        ok &= self._within_advice(B - A, atol) & self.on_levels(B)
        if self._never_cols.size:
            ok &= ~self._into_never(A, B).any(axis=1)
        return ok

    def actionable_pairs(self, Z_from, Z_to, *, atol: float = 1e-9) -> np.ndarray:
        """All pairs: ``out[i, j]`` says whether ``Z_from[i] -> Z_to[j]`` is actionable (see :meth:`actionable`).

        Returns a boolean array of shape (len(Z_from), len(Z_to)), computed in chunks of rows.
        """
        out = self.feasible_pairs(Z_from, Z_to, atol=atol)
        A = check_encoded(Z_from, "Z_from", self.n_columns)
        B = check_encoded(Z_to, "Z_to", self.n_columns)
        out &= self.on_levels(B)[None, :]
        if self._never_cols.size:  # into a never-advised level: at it after, not before
            at_from, at_to = self._at_never(A), self._at_never(B)
        A, B = A[:, self._advice_cols], B[:, self._advice_cols]
        lower, upper = self._advice_lo[self._advice_cols] - atol, self._advice_hi[self._advice_cols] + atol
        width = max(A.shape[1], self._never_cols.size, 1)
        chunk = max(1, _CHUNK_ELEMENTS * 25 // max(len(B) * width, 1))
        for start in range(0, len(A), chunk):
            block = slice(start, start + chunk)
            out[block] &= self._within(B[None, :, :] - A[block, None, :], lower, upper)
            if self._never_cols.size:
                out[block] &= ~(at_to[None, :, :] & ~at_from[block, None, :]).any(axis=-1)
        return out

    def advice_violations(self, Z_from, Z_to) -> pd.DataFrame:
        """Why each move is not actionable: one column per feature, ``""`` where the feature is fine.

        The reasons: ``"moves the wrong way"`` (infeasible), ``"not to be advised"`` (``advise="never"``),
        ``"advised the wrong way"``, ``"not a whole level"``, ``"a level not to be advised (...)"`` (into one
        of its ``never_advise_levels``, named) and ``"beyond its plausible change (...)"`` (over
        ``max_change``, with the change and the cap in the feature's units).
        """
        self._require_fitted()
        A = check_encoded(Z_from, "Z_from", self.n_columns)
        B = check_encoded(Z_to, "Z_to", self.n_columns)
        if A.shape != B.shape:
            raise ValueError(f"Z_from has shape {A.shape} but Z_to has shape {B.shape}; give the same shape.")
        infeasible = self.violations(A, B)
        into = self.never_advised_moves(A, B)
        out = {}
        for f, s in enumerate(self.specs_):
            reasons = zip(A, B, infeasible[s.name], into[:, f], strict=True)
            out[s.name] = [self._advice_reason(s, a, b, bad, never) for a, b, bad, never in reasons]
        return pd.DataFrame(out)

    def _advice_reason(self, s: FeatureSpec, a: np.ndarray, b: np.ndarray, infeasible: bool,
                       never: bool = False) -> str:
        block = self.slices_[s.name]
        delta = b[block] - a[block]
        moved = np.abs(delta).max() > 1e-9
        if infeasible:
            return "moves the wrong way"
        direction = s.advice_direction
        if moved and direction == "never":
            return "not to be advised"
        if moved and s.kind != "categorical" and (delta[0] > 1e-9 and direction == "decrease"
                                                  or delta[0] < -1e-9 and direction == "increase"):
            return "advised the wrong way"
        if not self._block_on_levels(s, b):
            return "not a whole level"
        if never:
            level = self.inverse_transform(b[None, :])[s.name].iloc[0]
            return f"a level not to be advised ({level})"
        cap = self._encoded_cap(s)
        if moved and s.kind != "categorical" and abs(delta[0]) > cap + 1e-9:
            change = abs(delta[0]) * (s.max_change / cap)
            unit = "levels" if s.kind == "ordinal" else s.unit
            return f"beyond its plausible change ({change:.3g} > {s.max_change:g} {unit})".replace(" )", ")")
        return ""

    def _block_on_levels(self, s: FeatureSpec, b: np.ndarray) -> bool:
        """Is feature ``s`` of the encoded row ``b`` at a whole level (the other features ignored)?"""
        values = b[self.slices_[s.name]]
        if s.kind == "categorical":
            return bool(np.all((np.abs(values) <= _LEVEL_TOL) | (np.abs(values - 1) <= _LEVEL_TOL))
                        and abs(values.sum() - 1) <= _LEVEL_TOL)
        where = np.flatnonzero(self._grid_cols == self.slices_[s.name].start)
        if not where.size:
            return True
        level = values[0] / self._grid_step[where[0]] + self._grid_offset[where[0]]
        return bool(abs(level - round(level)) <= _LEVEL_TOL and -_LEVEL_TOL <= values[0] / self._grid_step[where[0]]
                    <= self._grid_top[where[0]] + _LEVEL_TOL)

    def snap_to_levels(self, Z_from, Z_to) -> np.ndarray:
        """``Z_to`` with every discrete value moved to a whole level, away from ``Z_from``.

        Ordinal and binary values, and integer-dtype continuous values, are rounded in the direction of
        the move (so each changed feature moves at least as far as proposed: one more level, never
        one less), and stay within the feature's levels; a categorical block takes its largest column.
        Directions and caps are not enforced: check the result with :meth:`actionable` (and the model).
        Neither input is modified.
        """
        self._require_fitted()
        A = check_encoded(Z_from, "Z_from", self.n_columns)
        B = check_encoded(Z_to, "Z_to", self.n_columns).copy()
        if A.shape != B.shape:
            raise ValueError(f"Z_from has shape {A.shape} but Z_to has shape {B.shape}; give the same shape.")
        if self._grid_cols.size:
            cols, step, offset = self._grid_cols, self._grid_step, self._grid_offset
            start, target = A[:, cols] / step + offset, B[:, cols] / step + offset
            near = np.round(target)
            snapped = np.where(np.abs(target - near) <= _LEVEL_TOL, near,
                               np.where(target > start, np.ceil(target), np.floor(target)))
            top = self._grid_top  # inf for integer continuous columns: only levels have a top
            B[:, cols] = np.clip(snapped - offset, 0.0, top) * step
        for block in self._blocks:
            values = B[:, block].copy()  # a view would be zeroed before its argmax
            B[:, block] = 0.0
            B[np.arange(len(B)), block.start + np.argmax(values, axis=1)] = 1.0
        return B

    # ------------------------------------------------------------------ costs
    def weight_vector(self, weights: Mapping[str, float] | None = None) -> np.ndarray:
        """Cost weight of each feature (spec order): the specs' ``weight``, overridden by ``weights``."""
        self._require_fitted()
        w = np.array([s.weight for s in self.specs_], dtype=float)
        if weights is None:
            return w
        if not isinstance(weights, Mapping):
            raise TypeError(f"weights must be a mapping feature name -> weight, got {type(weights).__name__}.")
        names = self.feature_names
        for name, value in weights.items():
            if name not in names:
                raise ValueError(f"weights names an unknown feature {name!r}; features are {names}.")
            value = float(value)
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"weights[{name!r}]={value!r} must be finite and >= 0.")
            w[names.index(name)] = value
        return w

    def feature_distances(self, Z_from, Z_to) -> np.ndarray:
        """Per-feature change of each move, shape (n, n_features).

        ``|Δ|`` in encoded units for continuous, ordinal and binary features
        (so one ordinal step is 1/(levels - 1)); 1 for a change of category
        and 0 otherwise for categorical features.
        """
        self._require_fitted()
        A = check_encoded(Z_from, "Z_from", self.n_columns)
        B = check_encoded(Z_to, "Z_to", self.n_columns)
        if A.shape != B.shape:
            raise ValueError(f"Z_from has shape {A.shape} but Z_to has shape {B.shape}; give the same shape.")
        return np.abs(B - A) @ self._agg

    def cost(self, Z_from, Z_to, *, weights: Mapping[str, float] | None = None, norm: str = "l1") -> np.ndarray:
        """Weighted cost of each move ``Z_from[i] -> Z_to[i]``.

        With per-feature distances ``d_f`` (:meth:`feature_distances`) and weights
        ``w_f`` (the specs' ``weight``, overridden by ``weights``):

        * ``norm="l1"``: :math:`\\sum_f w_f d_f`
        * ``norm="l2"``: :math:`\\sqrt{\\sum_f w_f d_f^2}`
        """
        w = self.weight_vector(weights)
        d = self.feature_distances(Z_from, Z_to)
        if norm == "l1":
            return d @ w
        if norm == "l2":
            return np.sqrt((d ** 2) @ w)
        raise ValueError(f"norm={norm!r} is not supported; use 'l1' or 'l2'.")

    def pairwise_cost(self, Z_from, Z_to, *, weights: Mapping[str, float] | None = None,
                      norm: str = "l1") -> np.ndarray:
        """Cost of every move ``Z_from[i] -> Z_to[j]``, shape (len(Z_from), len(Z_to)).

        Same definition as :meth:`cost`, computed with SciPy's
        ``cdist`` on rescaled columns (exact for
        valid one-hot rows: a change of category moves two columns by 1).
        """
        self._require_fitted()
        A = check_encoded(Z_from, "Z_from", self.n_columns)
        B = check_encoded(Z_to, "Z_to", self.n_columns)
        w = self.weight_vector(weights)
        column_share = self._agg.sum(axis=1)  # 1 or 1/2 per encoded column
        column_weight = w[self._column_feature] * column_share
        if norm == "l1":
            return cdist(A * column_weight, B * column_weight, "cityblock")
        if norm == "l2":  # weights applied to the squared differences, as in cost (exact ties stay ties)
            return np.sqrt(cdist(A, B, "sqeuclidean", w=column_weight))
        raise ValueError(f"norm={norm!r} is not supported; use 'l1' or 'l2'.")
