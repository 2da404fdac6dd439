"""Feature specifications: how a column is encoded, how it may change, how advice may change it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

__all__ = ["KINDS", "ACTIONABILITY", "ADVICE", "FeatureSpec", "features_to_frame"]

KINDS = ("continuous", "ordinal", "categorical", "binary")
ACTIONABILITY = ("free", "increase", "decrease", "immutable")
ACTIONABILITY_SYMBOLS = {"free": "-", "increase": "↑", "decrease": "↓", "immutable": "="}
_ALIASES = {
    "-": "free",
    "↑": "increase",
    "up": "increase",
    "↓": "decrease",
    "down": "decrease",
    "=": "immutable",
    "==": "immutable",
    "fixed": "immutable",
}
_MONOTONE = ("increase", "decrease")
ADVICE = ("any", "increase", "decrease", "never")
_ADVICE_ALIASES = {
    "-": "any", "free": "any", "↑": "increase", "up": "increase", "↓": "decrease", "down": "decrease",
    "=": "never", "immutable": "never", "fixed": "never", "none": "never",
}
# What advice may do by default (the feature's actionability), and what it may be narrowed to.
_DEFAULT_ADVICE = {"free": "any", "increase": "increase", "decrease": "decrease", "immutable": "never"}
_ALLOWED_ADVICE = {"free": ADVICE, "increase": ("increase", "never"), "decrease": ("decrease", "never"),
                   "immutable": ("never",)}
# A value is "at a whole level" when it is within this distance of one (in levels, or in raw units).
_LEVEL_TOL = 1e-6



@dataclass(frozen=True)
class FeatureSpec:
    """How one column is encoded, how it may change, and what changing it costs.

    Parameters
    ----------
    name : str
        Column name in the data frame.
    kind : {"continuous", "ordinal", "categorical", "binary"}
        Measurement type; decides the encoding (see the module docstring).
    actionability : {"free", "increase", "decrease", "immutable"}, default "free"
        Which moves are allowed. The seeds' symbols ``"-"``, ``"↑"``, ``"↓"``,
        ``"="`` are accepted and normalised to the words.
    weight : float, default 1.0
        Non-negative cost weight of a change of this feature
        (see :meth:`Encoder.cost`).
    order : sequence, optional
        Levels of an ordinal or binary feature from worst to best (required for
        ordinal features with non-numeric levels; numeric levels default to
        sorted order). For a categorical feature, the list of categories (fixes
        the one-hot columns and their order). Not allowed for continuous features.
    lower, upper : float, optional
        Range of a continuous feature used for scaling (and as the valid range
        for generated values). Default: the range of the data at ``fit``.
    unit : str, optional
        Unit printed next to values in tables and figures (e.g. ``"DM"``).
    description : str, optional
        One line saying what the feature is.
    advise : {"any", "increase", "decrease", "never"}, optional
        The direction in which *advice* may move the feature. Default (None):
        what ``actionability`` allows (``free`` -> ``"any"``, ``immutable`` ->
        ``"never"``); :attr:`advice_direction` gives the direction in force.
        Narrow it for a feature that may change but must not be recommended:
        age grows (``actionability="increase"``) but "be older" is no advice
        (``advise="never"``); a past record such as credit history is never
        rewritten by advice. Must not allow what ``actionability`` forbids.
    max_change : float, optional
        The largest change advice may ask for, in the feature's units (for an
        ordinal feature, a whole number of levels), e.g. ``2`` for "at most two
        levels of savings" or ``10`` for "at most 10 more hours a week". Only for
        continuous and ordinal features. Default: no cap.
    never_advise_levels : tuple, default ()
        Levels of a categorical or ordinal feature that advice may never move a
        person *into*: a missing-value code such as ``"Unknown"``, or a level no
        one would recommend (``"Without-pay"``). A person already at such a level
        may stay there, and may leave it as far as the rest of the spec allows.
        Feasibility (:meth:`Encoder.feasible`) is unchanged: like ``advise``, this
        is a rule of advice only (:meth:`Encoder.actionable`). Each level must be
        one of the feature's levels (``order``, or the data's at ``fit``).

    Examples
    --------
    >>> FeatureSpec("age", "continuous", "↑", unit="years").actionability
    'increase'
    >>> spec = FeatureSpec("age", "continuous", "increase", advise="never")
    >>> spec.actionability, spec.advice_direction    # allowed to grow, never advised
    ('increase', 'never')
    >>> FeatureSpec("savings", "ordinal", "increase", order=["none", "< 100", ">= 100"]).order
    ('none', '< 100', '>= 100')
    >>> job = FeatureSpec("workclass", "categorical", never_advise_levels=("Unknown", "Without-pay"))
    >>> job.never_advise_levels, job.advice       # any change, but never into those two
    (('Unknown', 'Without-pay'), 'any')
    """

    name: str
    kind: str
    actionability: str = "free"
    weight: float = 1.0
    order: tuple | None = None
    lower: float | None = None
    upper: float | None = None
    unit: str = ""
    description: str = ""
    advise: str | None = None
    max_change: float | None = None
    never_advise_levels: tuple = ()

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"name={self.name!r}: a feature name must be a non-empty string.")
        where = f"feature {self.name!r}"
        if self.kind not in KINDS:
            raise ValueError(f"kind={self.kind!r} for {where} is not one of {KINDS}.")
        act = _ALIASES.get(self.actionability, self.actionability)
        if act not in ACTIONABILITY:
            raise ValueError(
                f"actionability={self.actionability!r} for {where} is not one of "
                f"{ACTIONABILITY} (or the symbols '-', '↑', '↓', '=')."
            )
        object.__setattr__(self, "actionability", act)
        if self.kind == "categorical" and act in _MONOTONE:
            raise ValueError(
                f"{where} is categorical, so actionability={act!r} has no direction; "
                "declare kind='ordinal' with order=[worst, ..., best], or use 'free' or 'immutable'."
            )
        try:
            weight = float(self.weight)
        except (TypeError, ValueError):
            raise TypeError(f"weight={self.weight!r} for {where} must be a number.") from None
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"weight={self.weight!r} for {where} must be finite and >= 0.")
        object.__setattr__(self, "weight", weight)
        if self.order is not None:
            if self.kind == "continuous":
                raise ValueError(
                    f"{where} is continuous, so order={self.order!r} is not used; "
                    "give lower/upper for its range, or declare kind='ordinal'."
                )
            if isinstance(self.order, (str, bytes)) or not isinstance(self.order, Iterable):
                raise TypeError(f"order={self.order!r} for {where} must be a list of levels.")
            order = tuple(self.order)
            if len(set(order)) != len(order) or len(order) == 0:
                raise ValueError(f"order={order!r} for {where} must list distinct levels.")
            if self.kind == "binary" and len(order) != 2:
                raise ValueError(
                    f"{where} is binary, so order must have exactly 2 levels, got {order!r}."
                )
            object.__setattr__(self, "order", order)
        if self.kind != "continuous" and (self.lower is not None or self.upper is not None):
            raise ValueError(
                f"lower/upper are for continuous features; {where} is {self.kind}."
            )
        if self.lower is not None and self.upper is not None and not self.lower < self.upper:
            raise ValueError(
                f"lower={self.lower!r} must be below upper={self.upper!r} for {where}."
            )
        self._set_advice(where, act)
        self._set_never_advised(where)

    def _set_never_advised(self, where: str) -> None:
        """Check ``never_advise_levels`` (a tuple of distinct levels of a categorical or ordinal feature)."""
        levels = self.never_advise_levels
        example = f"({levels!r},)" if isinstance(levels, str) else "('Unknown',)"
        if levels is None or isinstance(levels, (str, bytes)) or not isinstance(levels, Iterable):
            raise TypeError(f"never_advise_levels={levels!r} for {where} must be a tuple of levels, e.g. "
                            f"never_advise_levels={example} (() for none).")
        levels = tuple(levels)
        if not levels:
            object.__setattr__(self, "never_advise_levels", ())
            return
        if self.kind not in ("categorical", "ordinal"):
            fix = ("use advise='increase' or 'decrease' to keep advice from one of its two levels"
                   if self.kind == "binary" else "use advise or max_change to limit advice on it")
            raise ValueError(f"never_advise_levels={levels!r} for {where}: only a categorical or ordinal feature has "
                             f"levels to exclude, and this one is {self.kind}; {fix}.")
        if len(set(levels)) != len(levels):
            raise ValueError(f"never_advise_levels={levels!r} for {where} lists a level more than once; list each "
                             "once.")
        if self.order is not None:
            unknown = [level for level in levels if level not in self.order]
            if unknown:
                raise ValueError(f"never_advise_levels={levels!r} for {where} names {unknown}, which are not among "
                                 f"its levels {list(self.order)}; check the spelling.")
        object.__setattr__(self, "never_advise_levels", levels)

    def _set_advice(self, where: str, act: str) -> None:
        # ``advise`` keeps what was given (None = follow actionability), so that
        # dataclasses.replace(spec, actionability="immutable") narrows the advice with it
        if self.advise is not None:
            advise = _ADVICE_ALIASES.get(self.advise, self.advise)
            if advise not in ADVICE:
                raise ValueError(f"advise={self.advise!r} for {where} is not one of {ADVICE}.")
            if advise not in _ALLOWED_ADVICE[act]:
                raise ValueError(
                    f"advise={advise!r} for {where} allows a move that actionability={act!r} forbids; advice may "
                    f"only narrow what is feasible: use one of {_ALLOWED_ADVICE[act]}."
                )
            if self.kind == "categorical" and advise in _MONOTONE:
                raise ValueError(f"{where} is categorical, so advise={advise!r} has no direction; use 'any' or "
                                 "'never'.")
            object.__setattr__(self, "advise", advise)
        if self.max_change is None:
            return
        if self.kind in ("binary", "categorical"):
            raise ValueError(
                f"max_change={self.max_change!r} for {where}: a {self.kind} feature changes by one whole step or "
                "not at all, so a cap has no meaning; use advise='never' to keep advice from changing it."
            )
        if isinstance(self.max_change, (bool, np.bool_)) or not isinstance(self.max_change, (int, float, np.number)):
            raise TypeError(f"max_change={self.max_change!r} for {where} must be a number.")
        cap = float(self.max_change)
        if not math.isfinite(cap) or cap <= 0:
            raise ValueError(f"max_change={self.max_change!r} for {where} must be a finite number > 0.")
        if self.kind == "ordinal" and cap != round(cap):
            raise ValueError(f"max_change={self.max_change!r} for {where} counts levels of an ordinal feature; give a "
                             "whole number.")
        object.__setattr__(self, "max_change", cap)

    @property
    def advice_direction(self) -> str:
        """The direction advice may move the feature: ``advise``, or by default what ``actionability`` allows."""
        return _DEFAULT_ADVICE[self.actionability] if self.advise is None else self.advise

    @property
    def symbol(self) -> str:
        """The seeds' symbol for the actionability (``-``, ``↑``, ``↓`` or ``=``)."""
        return ACTIONABILITY_SYMBOLS[self.actionability]

    @property
    def advice(self) -> str:
        """What advice may do with the feature, in words (e.g. ``"increase, at most 2 levels"``)."""
        direction = self.advice_direction
        if self.max_change is None or direction == "never":
            return direction
        unit = ("level" if self.max_change == 1 else "levels") if self.kind == "ordinal" else (self.unit or "units")
        sign = "±" if direction == "any" else ""
        return f"{direction}, at most {sign}{self.max_change:g} {unit}"


def features_to_frame(features: Sequence[FeatureSpec]) -> pd.DataFrame:
    """One row per feature: kind, actionability, advice, levels never advised into (a column only when some
    feature has them), weight, levels or range, unit, description.

    Used by the book's data-set appendix so the tables always match the code.
    """
    rows = []
    for spec in features:
        if spec.order is not None:
            levels = "; ".join(map(str, spec.order))
        elif spec.lower is not None or spec.upper is not None:
            lower = spec.lower if spec.lower is not None else "data min"
            upper = spec.upper if spec.upper is not None else "data max"
            levels = f"[{lower}, {upper}]"
        else:
            levels = ""
        rows.append(
            {
                "feature": spec.name,
                "kind": spec.kind,
                "actionability": f"{spec.symbol} {spec.actionability}",
                "advice": spec.advice,
                "never advised into": "; ".join(map(str, spec.never_advise_levels)),
                "weight": spec.weight,
                "levels (worst to best) or range": levels,
                "unit": spec.unit,
                "description": spec.description,
            }
        )
    table = pd.DataFrame(rows)
    if "never advised into" in table and not table["never advised into"].astype(bool).any():
        table = table.drop(columns="never advised into")  # a column only where some feature uses it
    return table


